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
logged a failed tick every five seconds for ever, a malformed bus or
cell database URL killed each forked worker child, which the launcher
started again, a traceback each time, and a policy file that did not
parse started fine and answered 500 to every authenticated request.
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

    def run_script(self, name, text, *args, auth='noauth'):
        config = os.path.join(self.directory, 'flavor-exporter.conf')
        with open(config, 'w') as f:
            f.write('[DEFAULT]\nauth_strategy = %s\n[api]\nport = %d\n'
                    % (auth, loopback.free_port()) + text)
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

    def test_malformed_transport_url(self):
        # Before: the worker's child died in start(), the launcher forked
        # another, for ever; the command never returned.
        for name, args in (('flavor-exporter-worker', ()),
                           ('flavor-exporter-worker', ('--run-once',)),
                           ('flavor-exporter-all', ())):
            line = self.run_script(
                name, '[openstack]\nnotification_transport_url = '
                'rabbit://fe:s3cret@rabbit.example.org:port/\n', *args)
            self.assertIn('[openstack] notification_transport_url: its '
                          'host or port cannot be read', line)
            self.assertNotIn('s3cret', line)

    def test_malformed_cell_database_url(self):
        for name in ('flavor-exporter-worker', 'flavor-exporter-report'):
            line = self.run_script(
                name, '[openstack]\ncell_database_connections = '
                'mysql+pymysql//fe:s3cret@db.example.org/nova_cell1\n')
            self.assertIn('[openstack] cell_database_connections, URL 1 '
                          'of 1: not an SQLAlchemy URL', line)
            self.assertNotIn('s3cret', line)

    def test_policy_file_that_does_not_parse(self):
        with open(os.path.join(self.directory, 'policy.yaml'), 'w') as f:
            f.write('"capacity:status:get": [role:admin\n')
        line = self.run_script(
            'flavor-exporter-api', '[oslo_policy]\npolicy_file = '
            'policy.yaml\n', auth='keystone')
        self.assertIn('[oslo_policy] policy file %s cannot be read as '
                      'rules: while parsing a flow sequence' % os.path.join(
                          self.directory, 'policy.yaml'), line)
