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
entry point and its commands through ``openstack.capacity.v3``. Where the
API is, in the order osc-lib's ClientManager decides it, as for every
plugin that asks it (python-ironicclient's, for one):

- an endpoint override: ``--os-capacity-endpoint-override``,
  ``OS_CAPACITY_ENDPOINT_OVERRIDE`` or clouds.yaml
  ``capacity_endpoint_override``;
- the user's service catalog, service type SERVICE_TYPE (the devstack
  plugin registers it there);
- without a catalog (``--os-token`` with ``--os-endpoint``, the
  admin_token and none auth types), that endpoint.
"""

from osc_lib import utils

API_NAME = 'capacity'
API_VERSION_OPTION = 'os_capacity_api_version'
# The version of the REST API the commands use (/v3/).
DEFAULT_API_VERSION = '3'
API_VERSIONS = {'3': 'flavor_exporter.osc.client.CapacityClient'}
SERVICE_TYPE = 'capacity'


def make_client(instance):
    """The capacity client over the user's keystoneauth session."""
    client_class = utils.get_client_class(
        API_NAME, instance._api_version[API_NAME], API_VERSIONS)
    return client_class(
        session=instance.session,
        interface=instance.interface,
        region_name=instance.region_name,
        # Without it keystoneauth would take an admin_token cloud's one
        # endpoint (its Nova, say) for ours, and ignore an override.
        endpoint_override=instance.get_endpoint_for_service_type(
            SERVICE_TYPE, region_name=instance.region_name,
            interface=instance.interface))


def build_option_parser(parser):
    """--os-capacity-api-version, as every plugin has, and the override.

    openstacksdk files ``--os-capacity-endpoint-override`` under the
    cloud's capacity_endpoint_override, where clouds.yaml puts it and
    osc-lib looks for it.
    """
    parser.add_argument(
        '--os-capacity-api-version',
        metavar='<capacity-api-version>',
        default=utils.env('OS_CAPACITY_API_VERSION',
                          default=DEFAULT_API_VERSION),
        help='Capacity API version, default=%s (Env: '
             'OS_CAPACITY_API_VERSION)' % DEFAULT_API_VERSION)
    parser.add_argument(
        '--os-capacity-endpoint-override',
        metavar='<url>',
        default=utils.env('OS_CAPACITY_ENDPOINT_OVERRIDE'),
        help='URL of the capacity API (flavor-exporter), instead of the '
             'service catalog\'s (Env: OS_CAPACITY_ENDPOINT_OVERRIDE; '
             'clouds.yaml: capacity_endpoint_override)')
    return parser
