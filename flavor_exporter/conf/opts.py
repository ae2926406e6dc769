# Copyright 2026 The flavor-exporter Authors
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.
"""The options of every group, for oslo-config-generator.

The modules are listed explicitly so that a new group is a reviewed change.
"""

from oslo_log import log

from flavor_exporter.conf import api
from flavor_exporter.conf import cache
from flavor_exporter.conf import capacity
from flavor_exporter.conf import checks
from flavor_exporter.conf import clouds
from flavor_exporter.conf import coordination
from flavor_exporter.conf import default
from flavor_exporter.conf import middleware
from flavor_exporter.conf import notifications
from flavor_exporter.conf import openstack
from flavor_exporter.conf import pci
from flavor_exporter.conf import projects
from flavor_exporter.conf import quota
from flavor_exporter.conf import worker

_MODULES = (default, clouds, api, middleware, worker, coordination, cache,
            openstack, capacity, quota, projects, checks, pci, notifications)

# The oslo.config.opts namespaces of the sample configuration, in the
# order etc/flavor-exporter/flavor-exporter-config-generator.conf names
# them (a unit test holds the two together): every option a configuration
# file may set.
SAMPLE_NAMESPACES = ('flavor_exporter', 'oslo.log', 'flavor_exporter.service',
                     'keystonemiddleware.auth_token',
                     'oslo.middleware.healthcheck', 'oslo.policy')


def list_opts():
    return [(group, options)
            for module in _MODULES
            for group, options in module.list_opts().items()]


def set_defaults():
    """Defaults of library options that suit this service."""
    log.set_defaults(default_log_levels=log.get_default_log_levels() + [
        'openstack=WARNING', 'pymemcache=WARNING', 'tooz=WARNING',
        # Its discovery warning repeats what the refresh's ERROR says.
        'keystoneauth.identity.generic.base=ERROR'])
