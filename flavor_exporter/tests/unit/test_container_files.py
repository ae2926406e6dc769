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
"""What the Dockerfile and docker-compose.yml promise, read from them.

tests/container builds the image and runs it; these hold the parts no run
shows: what the build stage installs, how compose restarts and publishes,
and that tools/container-host.sh prepares the base images both name.
"""

import configparser
import os
import re

import yaml

from flavor_exporter.tests import base

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..')
COMPILERS = re.compile(r'^(gcc|g\+\+|clang|cpp|build-essential|'
                       r'.*-dev)(-\d+)?$')


def read(name):
    with open(os.path.join(ROOT, name)) as f:
        return f.read()


def qualified(image):
    """docker.io/library/NAME:TAG for NAME:TAG, as podman names it."""
    if '/' not in image:
        return 'docker.io/library/' + image
    return image


class TestDockerfile(base.BaseTestCase):

    def instructions(self):
        # Continuation lines joined: one instruction a line.
        return read('Dockerfile').replace('\\\n', ' ').splitlines()

    def test_no_compiler_is_installed(self):
        packages = []
        for line in self.instructions():
            for command in re.findall(r'apt-get install ([^&;]*)', line):
                packages += [word for word in command.split()
                             if not word.startswith('-')]
        # git (pbr's) is there: the install line was found and parsed.
        self.assertIn('git', packages)
        self.assertEqual([], [p for p in packages if COMPILERS.match(p)])

    def test_base_images_are_prepared(self):
        bases = {qualified(line.split()[1]) for line in self.instructions()
                 if line.startswith('FROM ')}
        compose = yaml.safe_load(read('docker-compose.yml'))
        bases |= {qualified(service['image'])
                  for service in compose['services'].values()
                  if 'build' not in service}
        prepared = set(re.findall(r'^[A-Z_]+_IMAGE=(\S+)$',
                                  read('tools/container-host.sh'), re.M))
        self.assertEqual(bases, prepared)


class TestCompose(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.services = yaml.safe_load(
            read('docker-compose.yml'))['services']

    def test_every_service_restarts(self):
        self.assertEqual({'unless-stopped'},
                         {s.get('restart') for s in self.services.values()})

    def test_api_health_is_its_healthcheck(self):
        check = self.services['api']['healthcheck']['test']
        self.assertIn("'http://127.0.0.1:8780/healthcheck'", check[-1])

    def test_published_on_loopback_only(self):
        # The example runs noauth: published beyond the host, anyone could
        # read the data.
        ports = [port for service in self.services.values()
                 for port in service.get('ports', ())]
        self.assertEqual(['127.0.0.1:8780:8780'], ports)


class TestEnvFileCompose(base.BaseTestCase):
    """docker-compose.env-file.yml: the seed's way, with memcached.

    tests/container/test_env_file.py runs its services.
    """

    def setUp(self):
        super().setUp()
        self.services = yaml.safe_load(
            read('docker-compose.env-file.yml'))['services']

    def test_every_service_restarts(self):
        self.assertEqual({'unless-stopped'},
                         {s.get('restart') for s in self.services.values()})

    def test_the_image_command_with_memcached(self):
        service = self.services['flavor-exporter']
        # No command: the image's, which runs the worker in the API's
        # process; its documents go to the memcached service.
        self.assertNotIn('command', service)
        self.assertEqual('memcached:11211', service['environment'][
            'OS_DOCUMENT_CACHE__MEMCACHE_SERVERS'])
        self.assertEqual(['memcached'], service['depends_on'])
        self.assertIn("'http://127.0.0.1:8780/healthcheck'",
                      service['healthcheck']['test'][-1])

    def test_the_image_configuration(self):
        # What the image holds at /etc/flavor-exporter/flavor-exporter.conf
        # when nothing is mounted: its command's file.
        self.assertIn('COPY etc/container/flavor-exporter.conf '
                      '/etc/flavor-exporter/flavor-exporter.conf',
                      read('Dockerfile'))
        self.assertIn('CMD ["flavor-exporter-all", "--config-file", '
                      '"/etc/flavor-exporter/flavor-exporter.conf"]',
                      read('Dockerfile'))
        conf = configparser.ConfigParser()
        conf.read_string(read('etc/container/flavor-exporter.conf'))
        self.assertEqual(('0.0.0.0', 'memory'),
                         (conf['api']['host_ip'],
                          conf['document_cache']['backend']))


class TestPackageData(base.BaseTestCase):
    """An image built without .git (PBR_VERSION) still has every file."""

    def test_every_file_the_package_reads_is_named(self):
        package = os.path.join(ROOT, 'flavor_exporter')
        found = set()
        for directory, dirs, files in os.walk(package):
            dirs[:] = [d for d in dirs if d not in ('tests', '__pycache__')]
            found |= {os.path.relpath(os.path.join(directory, name), package)
                      for name in files if not name.endswith('.py')}
        setup = configparser.ConfigParser()
        setup.read(os.path.join(ROOT, 'setup.cfg'))
        named = set()
        # pbr's format: "package = paths", the next lines more paths.
        package = None
        for line in setup['files']['package_data'].strip().splitlines():
            if '=' in line:
                package, _, line = line.partition('=')
            self.assertEqual('flavor_exporter', (package or '').strip())
            named |= set(line.split())
        self.assertIn('api/openapi.json', found)
        self.assertEqual(found, named)

    def test_every_directory_of_modules_is_a_package(self):
        # find_packages leaves a directory without __init__.py out of the
        # wheel: it imports from a checkout, not once installed.
        package = os.path.join(ROOT, 'flavor_exporter')
        missing = []
        for directory, dirs, files in os.walk(package):
            dirs[:] = [d for d in dirs if d != '__pycache__']
            if (any(name.endswith('.py') for name in files)
                    and '__init__.py' not in files):
                missing.append(os.path.relpath(directory, ROOT))
        self.assertEqual([], missing)
