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
"""python-openstackclient's plugin interface for the capacity service.

openstackclient finds this module through the ``openstack.cli.extension``
entry point and its commands through ``openstack.capacity.v2``; the
service is found in the user's service catalog under SERVICE_TYPE (the
devstack plugin registers it there).
"""

from osc_lib import utils

API_NAME = 'capacity'
API_VERSION_OPTION = 'os_capacity_api_version'
# The version of the REST API the commands use (/v2/).
DEFAULT_API_VERSION = '2'
API_VERSIONS = {'2': 'flavor_exporter.osc.client.CapacityClient'}
SERVICE_TYPE = 'capacity'


def make_client(instance):
    """The capacity client over the user's keystoneauth session."""
    client_class = utils.get_client_class(
        API_NAME, instance._api_version[API_NAME], API_VERSIONS)
    return client_class(
        session=instance.session,
        interface=instance.interface,
        region_name=instance.region_name)


def build_option_parser(parser):
    """--os-capacity-api-version, as every plugin has."""
    parser.add_argument(
        '--os-capacity-api-version',
        metavar='<capacity-api-version>',
        default=utils.env('OS_CAPACITY_API_VERSION',
                          default=DEFAULT_API_VERSION),
        help='Capacity API version, default=%s (Env: '
             'OS_CAPACITY_API_VERSION)' % DEFAULT_API_VERSION)
    return parser
