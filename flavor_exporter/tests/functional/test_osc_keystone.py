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
"""``openstack capacity`` commands with a real Keystone token and catalog.

The API runs behind keystonemiddleware (as in
test_keystone_auth); its URL is registered in Keystone's catalog as the
"capacity" service, as the devstack plugin does. A project member runs the
installed ``openstack`` command with nothing but Keystone's URL and a
password: the plugin finds the API in the catalog and sends the token.
"""

import json
import os
import subprocess
import sys

import fixtures
import requests

from flavor_exporter.osc import plugin
from flavor_exporter.tests.functional import test_keystone_auth as ka
from testcloud import keystone_catalog


def register_capacity(keystone, url, region='RegionOne'):
    """The capacity service and its public endpoint; a cleanup function."""
    headers = {'X-Auth-Token': keystone_catalog.admin_token(keystone)}
    base = keystone['url'] + '/v3'
    resp = requests.post(base + '/services', headers=headers,
                         timeout=ka.TIMEOUT, json={'service': {
                             'type': plugin.SERVICE_TYPE,
                             'name': 'flavor-exporter'}})
    resp.raise_for_status()
    service_id = resp.json()['service']['id']
    resp = requests.post(base + '/endpoints', headers=headers,
                         timeout=ka.TIMEOUT, json={'endpoint': {
                             'service_id': service_id,
                             'interface': 'public', 'url': url,
                             'region_id': region}})
    resp.raise_for_status()

    def unregister():
        # Deleting the service deletes its endpoints.
        requests.delete(base + '/services/' + service_id, timeout=ka.TIMEOUT,
                        headers={'X-Auth-Token':
                                 keystone_catalog.admin_token(keystone)})
    return unregister


class TestOpenstackCapacityCommand(ka.ApiBehindKeystone):

    @classmethod
    def _start(cls, resources):
        super()._start(resources)
        resources.addCleanup(register_capacity(
            cls.keystone, 'http://127.0.0.1:%d' % cls.port))

    def openstack(self, *args, password=None, env=None):
        """The openstack command as a member, with an openrc's variables.

        env: instead of those, only these (and no OS_* of this process).
        """
        keystone = self.keystone
        home = self.useFixture(fixtures.TempDir()).path
        if env is None:
            env = ka.clean_env(
                home,
                OS_AUTH_URL=keystone['url'] + '/v3',
                OS_USERNAME=keystone['member_user'],
                OS_PASSWORD=password or keystone['member_password'],
                OS_PROJECT_NAME=keystone['member_project'],
                OS_USER_DOMAIN_ID='default', OS_PROJECT_DOMAIN_ID='default',
                OS_REGION_NAME='RegionOne', OS_INTERFACE='public',
                OS_IDENTITY_API_VERSION='3')
        else:
            env = ka.clean_env(home, **env)
        return subprocess.run(
            [os.path.join(os.path.dirname(sys.executable), 'openstack')]
            + list(args),
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, timeout=120)

    def test_list_is_what_the_api_serves(self):
        done = self.openstack('capacity', 'flavor', 'list', '-f', 'json')
        self.assertEqual(0, done.returncode, done.stderr)
        listed = json.loads(done.stdout)
        token, _access = ka.token_of(self.keystone, 'member')
        served = self.get('/v3/flavors/', token).json()['flavors']
        self.assertEqual(
            [(f['id'], f['name'], f['total'], f['available'])
             for f in served],
            [(f['ID'], f['Name'], f['Total'], f['Available'])
             for f in listed])
        self.assertEqual((4, 3), {f['Name']: (f['Total'], f['Available'])
                                  for f in listed}[ka.GPU_MEDIUM])

    def test_gpu_list_and_show(self):
        done = self.openstack('capacity', 'flavor', 'list', '--gpu',
                              '-f', 'json')
        self.assertEqual(0, done.returncode, done.stderr)
        listed = json.loads(done.stdout)
        self.assertTrue(listed)
        self.assertTrue(all(f['GPU'] for f in listed), listed)
        done = self.openstack('capacity', 'flavor', 'show', ka.GPU_MEDIUM,
                              '-f', 'json')
        self.assertEqual(0, done.returncode, done.stderr)
        shown = json.loads(done.stdout)
        self.assertEqual((ka.GPU_MEDIUM, 4, 3),
                         (shown['name'], shown['total'],
                          shown['available']))

    def test_cloud_list_and_one_cloud(self):
        # A deployment of one cloud: "default", which --cloud can name.
        done = self.openstack('capacity', 'cloud', 'list', '-f', 'json')
        self.assertEqual(0, done.returncode, done.stderr)
        listed = json.loads(done.stdout)
        self.assertEqual([('default', True)],
                         [(c['Name'], c['Default']) for c in listed])
        # Published once for the class: an age, whatever it has become.
        self.assertGreaterEqual(listed[0]['Age Seconds'], 0)
        done = self.openstack('capacity', 'flavor', 'show', '--cloud',
                              'default', ka.GPU_MEDIUM, '-f', 'json')
        self.assertEqual(0, done.returncode, done.stderr)
        shown = json.loads(done.stdout)
        self.assertEqual((ka.GPU_MEDIUM, 4, 3),
                         (shown['name'], shown['total'],
                          shown['available']))

    def test_token_and_endpoint_as_other_plugins_take_them(self):
        # No catalog, no password: a token the user already has, sent to
        # the endpoint named; the API's keystonemiddleware validates it.
        token, _access = ka.token_of(self.keystone, 'member')
        url = 'http://127.0.0.1:%d' % self.port
        done = self.openstack('--os-token', token, '--os-endpoint', url,
                              'capacity', 'flavor', 'list', '-f', 'json',
                              env={})
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertEqual(
            [f['name'] for f in self.get('/v3/flavors/', token)
             .json()['flavors']],
            [f['Name'] for f in json.loads(done.stdout)])
        done = self.openstack('--os-token', 'not-a-token', '--os-endpoint',
                              url, 'capacity', 'flavor', 'list', env={})
        self.assertEqual(1, done.returncode)
        self.assertIn('HTTP 401', done.stderr)

    def test_wrong_password_is_keystones_refusal(self):
        done = self.openstack('capacity', 'flavor', 'list',
                              password='not-the-password')
        self.assertEqual(1, done.returncode)
        self.assertIn('HTTP 401', done.stderr)
        self.assertEqual('', done.stdout)
