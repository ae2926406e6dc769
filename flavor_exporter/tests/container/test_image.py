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
"""The image as README.rst and docker-compose.yml tell operators to run it.

Built from this checkout; memcached, the worker and the API each in a
container of their own (the host's network, against the real test cloud);
the configuration directory mounted on /etc/flavor-exporter holds
flavor-exporter.conf and clouds.yaml with mode 600, owned by the image's
user, and no environment variable is passed. What the API container
serves must be what flavor-exporter-report computes from the same files.
"""

import json
import os
import shutil
import subprocess
import textwrap
import time

import fixtures
from testtools import content
import yaml

from flavor_exporter.tests import base
from flavor_exporter.tests.container import podman
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests.functional import test_api_uwsgi
from testcloud import loopback

SCENARIO = 'predecessor'
# The image's user (Dockerfile), whom README.rst tells to chown files to.
UID = 42480
MEMCACHED = 'docker.io/library/memcached:1.6'
CONFIG_DIR = '/etc/flavor-exporter'


def numbers(flavors):
    """{name: (total, available, zones)} of a /v3/flavors/ list."""
    return {f['name']: (f['total'], f['available'],
                        f['availability_zones']) for f in flavors}


class TestImage(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            SCENARIO, shared=True)).cloud
        self.image, build_seconds = podman.image()
        self.addDetail('image build seconds',
                       content.text_content('%.0f' % build_seconds))
        self.memcached_port = loopback.free_port()
        self.api_port = loopback.free_port()
        self.etc = self.operator_config_dir()

    def operator_config_dir(self):
        """The directory an operator mounts, as README.rst says to make it.

        Mode 700, files 600, everything the image's user's: readable by
        that user only.
        """
        etc = os.path.join(self.useFixture(fixtures.TempDir()).path, 'etc')
        os.mkdir(etc)
        shutil.copy(self.cloud.clouds_yaml,
                    os.path.join(etc, 'clouds.yaml'))
        with open(os.path.join(etc, 'flavor-exporter.conf'), 'w') as conf:
            conf.write(textwrap.dedent('''
                [DEFAULT]
                auth_strategy = noauth
                [api]
                host_ip = 127.0.0.1
                port = %d
                workers = 1
                [document_cache]
                memcache_servers = 127.0.0.1:%d
                [openstack]
                cloud = %s
                ''') % (self.api_port, self.memcached_port,
                        self.cloud.cloud_name))
        os.chmod(etc, 0o700)
        for name in os.listdir(etc):
            os.chmod(os.path.join(etc, name), 0o600)
            os.chown(os.path.join(etc, name), UID, UID)
        os.chown(etc, UID, UID)
        return etc

    def mounted(self):
        # --read-only: the image writes nothing (README.rst says so).
        return ['--volume', '%s:%s:ro' % (self.etc, CONFIG_DIR),
                '--read-only']

    def report_on_the_host(self):
        # As root, with the clouds.yaml beside it named by the variable an
        # operator outside a container would set.
        done = subprocess.run(
            fe_fixtures.console_script('flavor-exporter-report')
            + ['--config-file', os.path.join(self.etc,
                                             'flavor-exporter.conf'),
               '--format', 'json'],
            env=dict(os.environ, OS_CLIENT_CONFIG_FILE=os.path.join(
                self.etc, 'clouds.yaml')),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=180)
        self.assertEqual(0, done.returncode, done.stderr)
        return json.loads(done.stdout)

    def container(self, *args):
        return self.useFixture(podman.Container(*args)).log_on_failure(self)

    def wait_for_port(self, api):
        """Until the API listens; fails at once if its container exits.

        Starting a container copies the image (vfs storage): seconds.
        """
        deadline = time.monotonic() + 180
        while True:
            try:
                loopback.wait_for_port(self.api_port, timeout=1)
                return
            except RuntimeError:
                self.assertTrue(api.running(), 'the API container exited')
                self.assertLess(time.monotonic(), deadline,
                                'the API container does not listen')

    def wait_for(self, path):
        answer = test_api_uwsgi.fetch_ok(self.api_port, path, timeout=180)
        self.assertEqual(200, answer[0], answer)
        return json.loads(answer[2])

    def test_containers_serve_what_the_report_computes(self):
        # The report reads the cloud from the same files, on the host.
        expected = self.report_on_the_host()
        self.container(MEMCACHED, '-l', '127.0.0.1', '-p',
                       str(self.memcached_port), '-U', '0')
        self.container(*self.mounted(), self.image, 'flavor-exporter-worker',
                       '--config-file', CONFIG_DIR + '/flavor-exporter.conf')
        # As docker-compose.yml runs it (the image's own command runs the
        # worker too: test_env_file).
        api = self.container(*self.mounted(), self.image,
                             'flavor-exporter-api', '--config-file',
                             CONFIG_DIR + '/flavor-exporter.conf')
        self.wait_for_port(api)

        served = self.wait_for('/v3/flavors/')
        self.assertEqual(numbers(expected['flavors']),
                         numbers(served['flavors']))
        legacy = self.wait_for('/gpus/flavors/')
        self.assertEqual(
            sorted((f['id'], f['name'], f['available'], f['total'])
                   for f in expected['flavors'] if f['gpu']),
            sorted((f['flavor_openstack_id'], f['flavor_name'],
                    f['available'], f['total'])
                   for f in legacy['flavors']))
        medium = numbers(served['flavors'])['de.NBI GPU V100 medium']
        self.assertEqual((4, 3), medium[:2])

        self.assertEqual('%d\n' % UID, api.exec('id', '-u').stdout)
        # Nothing compiles at install: no compiler came along either.
        self.assertEqual('none\n', api.exec(
            'sh', '-c', 'command -v gcc cc c++ || echo none').stdout)
        # docker-compose.yml's health check, run where compose runs it.
        with open(os.path.join(podman.ROOT, 'docker-compose.yml')) as f:
            check = yaml.safe_load(f)['services']['api']['healthcheck']
        self.assertEqual('CMD', check['test'][0])
        command = [arg.replace(':8780/', ':%d/' % self.api_port)
                   for arg in check['test'][1:]]
        done = api.exec(*command)
        self.assertEqual(0, done.returncode, done.stderr)
