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

"""Register the cloud's compute and placement endpoints in Keystone.

The Nova and Placement ports are only known once the cloud listens, after
Keystone was bootstrapped, so the cloud adds itself to the catalog, as a
deployment tool would, through Keystone's REST API.
"""

import requests

TIMEOUT = 30


def admin_token(keystone):
    """Get a project-scoped admin token by password."""
    body = {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': keystone['admin_user'], 'domain': {'id': 'default'},
            'password': keystone['admin_password']}}},
        'scope': {'project': {'name': keystone['admin_project'],
                              'domain': {'id': 'default'}}}}}
    resp = requests.post(keystone['url'] + '/v3/auth/tokens', json=body,
                         timeout=TIMEOUT)
    resp.raise_for_status()
    return resp.headers['X-Subject-Token']


def register(keystone, compute_url, placement_url, region='RegionOne'):
    """Create the compute and placement services and their endpoints.

    Returns {service type: (service id, public endpoint id)}: Nova's
    unified limits belong to the compute service ([oslo_limit]
    endpoint_id names its endpoint).
    """
    headers = {'X-Auth-Token': admin_token(keystone)}
    base = keystone['url'] + '/v3'
    registered = {}
    for service_type, name, url in (('compute', 'nova', compute_url),
                                    ('placement', 'placement',
                                     placement_url)):
        resp = requests.post(base + '/services', headers=headers,
                             timeout=TIMEOUT,
                             json={'service': {'type': service_type,
                                               'name': name}})
        resp.raise_for_status()
        service_id = resp.json()['service']['id']
        for interface in ('public', 'internal', 'admin'):
            resp = requests.post(base + '/endpoints', headers=headers,
                                 timeout=TIMEOUT, json={'endpoint': {
                                     'service_id': service_id,
                                     'interface': interface, 'url': url,
                                     'region_id': region}})
            resp.raise_for_status()
            if interface == 'public':
                registered[service_type] = (service_id,
                                            resp.json()['endpoint']['id'])
    return registered
