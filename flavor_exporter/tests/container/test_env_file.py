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
"""The image run as the OpenStackFlavorExporter's README ran its own.

``docker run --env-file ./env.file IMAGE``: no configuration mounted,
no command given; the env file holds the cloud's credentials as an
openrc sets them (a real Keystone's, password auth) and flavor-exporter's
options as oslo.config reads them from the environment
(OS_<GROUP>__<OPTION>). The seed's portal client authenticated with HTTP
Basic: the user file is the one file mounted. The container must serve
the seed's /v2/flavors/ and the predecessor's /gpus/flavors/ with the
numbers flavor-exporter-report computes from the same cloud; then the
same with memcached beside it, as docker-compose.env-file.yml runs them.

Every container runs with the host's network (podman.py): [api] host_ip
is set to loopback by the env file, the port to a free one.
"""

import base64
import json
import os
import subprocess
import textwrap
import time
import urllib.error
import urllib.request

import bcrypt
import fixtures
from pymemcache.client import base as memcache
import yaml

from flavor_exporter.tests import base
from flavor_exporter.tests.container import podman
from flavor_exporter.tests.container import test_image
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from testcloud import loopback

SCENARIO = test_image.SCENARIO
USER, PASSWORD = 'portal', 'S3cret'
USER_FILE = '/etc/flavor-exporter-auth/htpasswd'
COMPOSE = 'docker-compose.env-file.yml'


class TestEnvFile(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        # A Keystone: the OS_* variables are an openrc's, password auth.
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            SCENARIO, keystone=True, shared=True)).cloud
        self.image, _seconds = podman.image()
        self.port = loopback.free_port()
        self.workdir = self.useFixture(fixtures.TempDir()).path
        self.htpasswd = os.path.join(self.workdir, 'htpasswd')
        with open(self.htpasswd, 'w') as f:
            f.write('%s:%s\n' % (USER, bcrypt.hashpw(
                PASSWORD.encode(), bcrypt.gensalt(5)).decode()))
        os.chmod(self.htpasswd, 0o600)
        os.chown(self.htpasswd, test_image.UID, test_image.UID)

    def openrc(self):
        """The OS_* variables of the cloud's admin, as an openrc has them."""
        with open(self.cloud.clouds_yaml) as f:
            entry = yaml.safe_load(f)['clouds'][self.cloud.cloud_name]
        auth = entry['auth']
        return {'OS_AUTH_URL': auth['auth_url'],
                'OS_USERNAME': auth['username'],
                'OS_PASSWORD': auth['password'],
                'OS_PROJECT_NAME': auth['project_name'],
                'OS_USER_DOMAIN_NAME': auth['user_domain_name'],
                'OS_PROJECT_DOMAIN_NAME': auth['project_domain_name'],
                'OS_REGION_NAME': entry['region_name'],
                'OS_IDENTITY_API_VERSION': '3'}

    def env_file(self, extra=None):
        """env.file: the openrc, Basic auth, the port; no config file."""
        variables = dict(self.openrc(), **{
            'OS_DEFAULT__AUTH_STRATEGY': 'http_basic',
            'OS_DEFAULT__HTTP_BASIC_AUTH_USER_FILE': USER_FILE,
            # The host's network: loopback, a free port.
            'OS_API__HOST_IP': '127.0.0.1',
            'OS_API__PORT': str(self.port)}, **(extra or {}))
        path = os.path.join(self.workdir, 'env.file')
        with open(path, 'w') as f:
            f.write(''.join('%s=%s\n' % item
                            for item in sorted(variables.items())))
        return path

    def report(self):
        """What flavor-exporter-report computes, from the same OS_* only."""
        config = os.path.join(self.workdir, 'report.conf')
        with open(config, 'w') as f:
            f.write('[DEFAULT]\n')
        env = {name: value for name, value in os.environ.items()
               if not name.startswith('OS_')}
        env.update(self.openrc())
        done = subprocess.run(
            fe_fixtures.console_script('flavor-exporter-report')
            + ['--config-file', config, '--format', 'json'], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=180)
        self.assertEqual(0, done.returncode, done.stderr)
        return json.loads(done.stdout)

    def run_image(self, env_file, *more):
        """The image's own command, from env_file and the user file."""
        container = self.useFixture(podman.Container(
            '--env-file', env_file, '--read-only',
            '--volume', '%s:%s:ro' % (self.htpasswd, USER_FILE),
            *more, self.image)).log_on_failure(self)
        deadline = time.monotonic() + 180
        while True:
            try:
                loopback.wait_for_port(self.port, timeout=1)
                return container
            except RuntimeError:
                self.assertTrue(container.running(),
                                'the container exited:\n' +
                                container.logs()[-3000:])
                self.assertLess(time.monotonic(), deadline,
                                'the container does not listen')

    def get(self, path, user=USER, password=PASSWORD, timeout=180):
        """(status, JSON body) once the data is there (not 503)."""
        request = urllib.request.Request(
            'http://127.0.0.1:%d%s' % (self.port, path))
        if user:
            request.add_header('Authorization', 'Basic ' + base64.b64encode(
                ('%s:%s' % (user, password)).encode()).decode())
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    return answer.status, json.load(answer)
            except urllib.error.HTTPError as error:
                if error.code != 503 or time.monotonic() > deadline:
                    return error.code, json.loads(error.read() or b'null')
            time.sleep(0.5)

    def assertServesTheReport(self, expected):
        status, seed = self.get('/v2/flavors/')
        self.assertEqual(200, status, seed)
        # The seed's list: every public flavor (what a Basic user reads
        # by default), the report's numbers.
        public = [f for f in expected['flavors'] if f['is_public']]
        self.assertTrue(public)
        self.assertEqual(
            sorted((f['id'], f['available'], f['total']) for f in public),
            sorted((f['id'], f['available'], f['total']) for f in seed))
        status, legacy = self.get('/gpus/flavors/')
        self.assertEqual(200, status, legacy)
        self.assertEqual(
            sorted((f['id'], f['available'], f['total'])
                   for f in public if f['gpu']),
            sorted((f['flavor_openstack_id'], f['available'], f['total'])
                   for f in legacy['flavors']))
        # Basic auth as the seed's client sends it; no credentials, 401.
        status, _body = self.get('/v2/flavors/', user=None, timeout=0)
        self.assertEqual(401, status)

    def test_env_file_alone(self):
        expected = self.report()
        self.assertTrue(expected['flavors'])
        self.run_image(self.env_file())
        self.assertServesTheReport(expected)

    def test_compose_with_memcached(self):
        # docker-compose.env-file.yml's services, as podman runs them on
        # the host's network: memcached's name is its loopback address.
        with open(os.path.join(podman.ROOT, COMPOSE)) as f:
            services = yaml.safe_load(f)['services']
        self.assertEqual(['env.file'], services['flavor-exporter'][
            'env_file'])
        self.assertEqual(['./htpasswd:%s:ro' % USER_FILE],
                         services['flavor-exporter']['volumes'])
        memcached_port = loopback.free_port()
        self.useFixture(podman.Container(
            test_image.MEMCACHED, *services['memcached']['command'],
            '-l', '127.0.0.1', '-p', str(memcached_port), '-U', '0'))
        environment = {
            name: value.replace('memcached:11211',
                                '127.0.0.1:%d' % memcached_port)
            for name, value in services['flavor-exporter'][
                'environment'].items()}
        self.assertEqual('memcached',
                         environment['OS_DOCUMENT_CACHE__BACKEND'])
        expected = self.report()
        self.run_image(self.env_file(environment))
        self.assertServesTheReport(expected)
        # The worker in the container published into memcached.
        client = memcache.Client(('127.0.0.1', memcached_port))
        self.addCleanup(client.close)
        self.assertGreater(int(client.stats()[b'curr_items']), 0)

    def test_the_image_file_alone_asks_for_authentication(self):
        # No auth variable: the API refuses to start in one line (the
        # default is Keystone), not "configuration file not found".
        path = os.path.join(self.workdir, 'bare.env')
        with open(path, 'w') as f:
            f.write(textwrap.dedent('''\
                OS_API__HOST_IP=127.0.0.1
                OS_API__PORT=%d
                ''' % self.port))
        done = podman.podman('run', '--rm', '--network', 'host',
                             '--env-file', path, self.image, check=False)
        self.assertEqual(2, done.returncode, done.stderr)
        self.assertIn('auth_strategy = keystone (the default) needs',
                      done.stderr)
        self.assertNotIn('configuration file not found', done.stderr)
