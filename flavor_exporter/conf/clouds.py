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
"""Which clouds (or regions) one deployment serves.

Like Cinder's enabled_backends: [DEFAULT] clouds names them, and each name
has a group of its own, [cloud:NAME], with the options of [openstack].
Those groups are registered once the files are read
(flavor_exporter.common.clouds.register_opts); the sample configuration
shows them as [cloud:NAME].
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

from flavor_exporter.conf import openstack

GROUP_PREFIX = 'cloud:'

# The group the sample configuration documents the cloud groups under.
SAMPLE_GROUP = GROUP_PREFIX + 'NAME'

opts = [
    cfg.ListOpt('clouds', default=[],
                help='Clouds or regions this deployment serves, each read '
                     'and published on its own and served under '
                     '/v2/clouds/NAME/. The connection options of cloud '
                     'NAME are those of [openstack], in a group '
                     '[cloud:NAME]; with no auth_type there, the '
                     'clouds.yaml entry named by its "cloud" option, NAME '
                     'by default. Names are letters, digits, ".", "_" and '
                     '"-". Empty: one cloud, described by [openstack] and '
                     'called "default".'),
    cfg.StrOpt('default_cloud',
               help='The cloud that /gpus/flavors, /v2/flavors and '
                    '/v2/status serve. Empty: the first of [DEFAULT] '
                    'clouds.'),
]


def cloud_opts(name):
    """The options of group [cloud:name]: [openstack]'s."""
    named = cfg.StrOpt(
        'cloud', default=name,
        help='Name of the clouds.yaml entry to use when no keystoneauth '
             'options are set in this group; the cloud\'s own name by '
             'default.')
    return [named if opt.dest == 'cloud' else opt for opt in openstack.opts]


def register_cloud_group(conf, name):
    group = GROUP_PREFIX + name
    conf.register_opts(cloud_opts(name), group=group)
    ks_loading.register_session_conf_options(conf, group)
    ks_loading.register_auth_conf_options(conf, group)
    return group


def register_opts(conf):
    conf.register_opts(opts)


def list_opts():
    sample = cfg.OptGroup(
        SAMPLE_GROUP, title='One cloud of [DEFAULT] clouds',
        help='The connection options of cloud NAME, one group per name '
             'listed in [DEFAULT] clouds; the same as [openstack].')
    return {'DEFAULT': opts,
            sample: openstack.list_opts()[openstack.openstack_group]}
