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
"""The seed's portal client against the served API, on the real cloud.

A client written the way the de.NBI SimpleVM portal backend's connector
is (requests Session, urllib3 Retry honouring Retry-After, HTTP Basic
credentials, its casts) reads /v2/flavors/ of flavor-exporter-api, which
serves what the worker published from a real Nova + Placement (the
predecessor's de.NBI cloud), and gets every flavor right: the numbers of
flavor-exporter-report, field by field.
"""

import os

import bcrypt
import requests
from requests import adapters
from urllib3.util import retry

from flavor_exporter.tests.functional import test_commands
from flavor_exporter.tests.unit.api import test_seed
from testcloud import loopback


def portal_session(user=None, password=None):
    """A requests Session set up as the portal's connector sets its own."""
    session = requests.Session()
    adapter = adapters.HTTPAdapter(
        pool_connections=10, pool_maxsize=10, max_retries=retry.Retry(
            total=3, backoff_factor=0.3,
            status_forcelist=[429, 500, 502, 503, 504],
            allowed_methods=['GET']))
    session.mount('http://', adapter)
    if user and password:
        session.auth = requests.auth.HTTPBasicAuth(user, password)
    return session


class TestSeedClient(test_commands.CommandsTestCase):

    def serve(self, *lines):
        config = self.write_config(lines=lines)
        self.expected = {f['id']: f for f in self.report(config)['flavors']}
        done = self.run_command('flavor-exporter-worker', '--config-file',
                                config, '--run-once')
        self.assertEqual(0, done.returncode, done.stderr)
        self.start('flavor-exporter-api', config)
        loopback.wait_for_port(self.port, timeout=60)
        return 'http://127.0.0.1:%d' % self.port

    def fetch(self, url, session):
        response = session.get(url + '/v2/flavors/', timeout=(30, 30))
        response.raise_for_status()
        return test_seed.as_the_portal_reads(response.content)

    def assert_every_field(self, read, ids):
        self.assertEqual(sorted(ids), sorted(f['id'] for f in read))
        for flavor in read:
            expected = self.expected[flavor['id']]
            gpu = expected['gpu']
            self.assertEqual({
                'id': expected['id'], 'name': expected['name'],
                'available': expected['available'],
                'total': expected['total'], 'cores': expected['vcpus'],
                'mem': expected['ram'], 'type': 'gpu' if gpu else 'cpu',
                'gpu_type': gpu['type'] if gpu else None,
                'gpu_count': gpu['count'] if gpu else None,
                'root_disk': expected['disk'],
                'ephemeral_disk': expected['ephemeral']}, flavor)

    def test_with_http_basic(self):
        user_file = os.path.join(self.workdir, 'htpasswd')
        with open(user_file, 'w') as f:
            f.write('portal:%s\n' % bcrypt.hashpw(
                b'S3cret', bcrypt.gensalt(5)).decode())
        url = self.serve('[DEFAULT]', 'auth_strategy = http_basic',
                         'http_basic_auth_user_file = %s' % user_file)
        read = self.fetch(url, portal_session('portal', 'S3cret'))
        # Public flavors: a Basic user has no project to share private
        # ones with.
        public = [i for i, f in self.expected.items() if f['is_public']]
        self.assertLess(len(public), len(self.expected))
        self.assert_every_field(read, public)
        medium = [f for f in read if f['name'] == 'de.NBI GPU V100 medium']
        self.assertEqual([('gpu', 'V100', 1, 4, 3)], [
            (f['type'], f['gpu_type'], f['gpu_count'], f['total'],
             f['available']) for f in medium])
        for session in (portal_session(), portal_session('portal', 'x')):
            self.assertRaises(requests.HTTPError, self.fetch, url, session)

    def test_without_authentication(self):
        url = self.serve()
        self.assert_every_field(self.fetch(url, portal_session()),
                                list(self.expected))
