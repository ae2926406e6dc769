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

"""Read the test cloud's Placement state in one call, for assertions.

Tests compare what the cloud reports with what the scenario says; this
turns Placement's REST answers into a dict keyed by provider name.
"""

from openstack import exceptions as sdk_exc

# 1.14 gives parent and root provider UUIDs, 1.6 traits, 1.19 aggregates.
MICROVERSION = '1.19'


def _get(conn, url):
    resp = conn.placement.get(url, microversion=MICROVERSION)
    sdk_exc.raise_from_response(resp)
    return resp.json()


def providers(conn):
    """Every resource provider by name.

    Each value has uuid, parent and root (provider names), inventories,
    usages, traits and aggregates.
    """
    rps = _get(conn, '/resource_providers')['resource_providers']
    names = {rp['uuid']: rp['name'] for rp in rps}
    result = {}
    for rp in rps:
        base = '/resource_providers/%s' % rp['uuid']
        result[rp['name']] = {
            'uuid': rp['uuid'],
            'parent': names.get(rp['parent_provider_uuid']),
            'root': names[rp['root_provider_uuid']],
            'inventories': _get(conn, base + '/inventories')['inventories'],
            'usages': _get(conn, base + '/usages')['usages'],
            'traits': set(_get(conn, base + '/traits')['traits']),
            'aggregates': set(_get(conn, base + '/aggregates')['aggregates']),
        }
    return result


def usages(conn):
    """``{provider name: {resource class: used}}``, to check clean-ups."""
    return {name: rp['usages'] for name, rp in providers(conn).items()}
