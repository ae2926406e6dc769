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
"""Configuration mistakes stop the real console scripts at start.

One line on stderr naming the option and what to do, exit status 2, and
no process left behind: before, a memcached server without its port
crashed every forked API and worker child again and again, and a
coordination URL tooz has no driver for was accepted and the worker
logged a failed tick every five seconds for ever.
"""

import os
import subprocess

import fixtures

from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from testcloud import loopback


class TestRefusedAtStart(base.TestCase):

    def setUp(self):
        super().setUp()
        self.directory = self.useFixture(fixtures.TempDir()).path

    def run_script(self, name, text, *args):
        config = os.path.join(self.directory, 'flavor-exporter.conf')
        with open(config, 'w') as f:
            f.write('[DEFAULT]\nauth_strategy = noauth\n[api]\nport = %d\n'
                    % loopback.free_port() + text)
        # A command that did not stop would be killed here, and fail.
        done = subprocess.run(
            fe_fixtures.console_script(name) + ['--config-file', config,
                                                *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=120)
        self.assertEqual(2, done.returncode, done.stderr)
        self.assertEqual('', done.stdout)
        lines = done.stderr.splitlines()
        self.assertEqual(1, len(lines), done.stderr)
        self.assertTrue(lines[0].startswith(name + ': %s: ' % config),
                        lines[0])
        return lines[0]

    def test_memcached_server_without_port(self):
        for name in ('flavor-exporter-api', 'flavor-exporter-worker',
                     'flavor-exporter-all'):
            line = self.run_script(
                name, '[document_cache]\nmemcache_servers = localhost\n')
            self.assertIn(
                "[document_cache] memcache_servers is not valid: "
                "'localhost' is not host:port; add the port (memcached "
                "listens on 11211 by default)", line)

    def test_coordination_url_without_a_driver(self):
        for args in ((), ('--run-once',)):
            line = self.run_script(
                'flavor-exporter-worker',
                '[coordination]\nbackend_url = bogus://\n', *args)
            self.assertIn("[coordination] backend_url 'bogus://': tooz has "
                          "no 'bogus' driver; use one of ", line)
            self.assertIn('memcached', line)
