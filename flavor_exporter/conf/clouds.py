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
(flavor_exporter.common.clouds.register_opts). The sample configuration
shows them as a commented example in the help of [DEFAULT] clouds, as
Cinder documents its backend groups: oslo-config-generator writes every
group it is given as a live section header, and a live [cloud:NAME] in a
copied sample names a cloud that [DEFAULT] clouds does not list.
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

from flavor_exporter.conf import openstack

GROUP_PREFIX = 'cloud:'

# Indented as a block: the sample shows it verbatim under "#".
_EXAMPLE = '\n'.join('    ' + line if line else '' for line in (
    '[DEFAULT]',
    'clouds = regionone, regiontwo',
    '',
    '[cloud:regionone]',
    'region_name = RegionOne',
    '',
    '[cloud:regiontwo]',
    'auth_type = password',
    'auth_url = https://keystone.example.org/v3',
    'username = flavor-exporter',
    'password = secret',
    'project_name = service',
    'user_domain_name = Default',
    'project_domain_name = Default',
    'region_name = RegionTwo',
))

opts = [
    cfg.ListOpt('clouds', default=[],
                help='Clouds or regions this deployment serves, each read '
                     'and published on its own and served under '
                     '/v3/clouds/NAME/. The connection options of cloud '
                     'NAME are those of [openstack], in a group '
                     '[cloud:NAME]; with no auth_type there, the '
                     'clouds.yaml entry named by its "cloud" option, NAME '
                     'by default. Names are letters, digits, ".", "_" and '
                     '"-". Empty: one cloud, described by [openstack] and '
                     'called "default".\n'
                     '\n'
                     'For example, two regions, the first read through '
                     'the clouds.yaml entry "regionone", the second with '
                     'keystoneauth options:\n'
                     '\n' + _EXAMPLE + '\n\n'
                     'A [cloud:NAME] group takes every option of '
                     '[openstack].'),
    cfg.StrOpt('default_cloud',
               help='The cloud that /gpus/flavors, /v3/flavors and '
                    '/v3/status serve. Empty: the first of [DEFAULT] '
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
    # Not the [cloud:NAME] groups: see the module's docstring.
    return {'DEFAULT': opts}
