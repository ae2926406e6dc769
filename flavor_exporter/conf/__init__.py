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
"""The one oslo.config CONF that the API, the worker and the tools share."""

from oslo_config import cfg

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

CONF = cfg.CONF

default.register_opts(CONF)
clouds.register_opts(CONF)
api.register_opts(CONF)
middleware.register_opts(CONF)
worker.register_opts(CONF)
cache.register_opts(CONF)
openstack.register_opts(CONF)
capacity.register_opts(CONF)
coordination.register_opts(CONF)
pci.register_opts(CONF)
quota.register_opts(CONF)
projects.register_opts(CONF)
checks.register_opts(CONF)
notifications.register_opts(CONF)
