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

"""The test cloud with real Keystone 30 in front of Nova and Placement."""

import requests

from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures


class KeystoneCloudTest(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            'disabled_host', keystone=True, shared=True)).cloud

    def test_bad_or_missing_token_is_401(self):
        for url in (self.cloud.compute_url + '/flavors',
                    self.cloud.placement_url + '/resource_providers'):
            for headers in ({'X-Auth-Token': 'admin:admin'},
                            {'X-Auth-Token': 'admin'}, {}):
                resp = requests.get(url, headers=headers, timeout=30)
                self.assertEqual(401, resp.status_code, (url, headers))

    def test_stub_headers_are_not_trusted(self):
        resp = requests.get(self.cloud.compute_url + '/flavors', headers={
            'X-Auth-User': 'admin', 'X-Auth-Project-Id': 'admin',
            'X-Roles': 'admin'}, timeout=30)
        self.assertEqual(401, resp.status_code)

    def test_version_documents_are_public(self):
        compute_root = self.cloud.compute_url.rsplit('/', 1)[0] + '/'
        for url in (compute_root, self.cloud.placement_url + '/'):
            self.assertEqual(200, requests.get(url, timeout=30).status_code)

    def test_admin_gets_a_catalog_and_admin_apis(self):
        conn = self.cloud.connection()
        catalog = {entry['type']: entry for entry in
                   conn.session.auth.get_access(conn.session).service_catalog
                   .catalog}
        for service_type, url in (('compute', self.cloud.compute_url),
                                  ('placement', self.cloud.placement_url)):
            urls = {e['interface']: e['url']
                    for e in catalog[service_type]['endpoints']}
            self.assertEqual(url, urls['public'])
        self.assertEqual(self.cloud.compute_url,
                         conn.compute.get_endpoint().rstrip('/'))
        resp = conn.compute.get('/os-hypervisors/detail',
                                microversion='2.87')
        self.assertEqual(200, resp.status_code)
        self.assertEqual(3, len(resp.json()['hypervisors']))
        resp = conn.placement.get('/resource_providers')
        self.assertEqual(3, len(resp.json()['resource_providers']))

    def test_member_is_forbidden_admin_apis(self):
        conn = self.cloud.connection(member=True)
        self.assertEqual(200, conn.compute.get('/flavors').status_code)
        self.assertEqual(403, conn.compute.get('/os-hypervisors')
                         .status_code)
        self.assertEqual(403, conn.placement.get('/resource_providers')
                         .status_code)

    def test_credentials_are_exposed(self):
        self.assertTrue(self.cloud.keystone_url.startswith(
            'http://127.0.0.1:'))
        self.assertEqual('admin', self.cloud.keystone['admin_user'])
        self.assertEqual('demo', self.cloud.keystone['member_user'])
        resp = requests.post(self.cloud.keystone_url + '/v3/auth/tokens',
                             timeout=30, json={'auth': {'identity': {
                                 'methods': ['password'], 'password': {
                                     'user': {
                                         'name': 'demo',
                                         'domain': {'id': 'default'},
                                         'password': 'wrong'}}}}})
        self.assertEqual(401, resp.status_code)
