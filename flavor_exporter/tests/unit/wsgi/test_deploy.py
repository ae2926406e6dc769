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
"""flavor-exporter-api and the WSGI entry point."""

import os
import socket
import subprocess
import sys
import textwrap
from unittest import mock

import fixtures

from flavor_exporter.cmd import api as cmd_api
from flavor_exporter.cmd import start
from flavor_exporter.tests.unit.api import base
from flavor_exporter.wsgi import environment as wsgi_env
from flavor_exporter.wsgi import server


class TestConfigFiles(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path

    def touch(self, name):
        path = os.path.join(self.dir, name)
        open(path, 'w').close()
        return path

    def test_default_file_optional(self):
        env = {wsgi_env.CONFIG_DIR_ENV: self.dir}
        self.assertEqual([], wsgi_env.config_files(env))
        path = self.touch('flavor-exporter.conf')
        self.assertEqual([path], wsgi_env.config_files(env))

    def test_default_dir(self):
        self.assertEqual(
            [p for p in ['/etc/flavor-exporter/flavor-exporter.conf']
             if os.path.exists(p)], wsgi_env.config_files({}))

    def test_named_files_must_exist(self):
        a, b = self.touch('a.conf'), self.touch('b.conf')
        env = {wsgi_env.CONFIG_DIR_ENV: self.dir,
               wsgi_env.CONFIG_FILES_ENV: 'a.conf; b.conf;'}
        self.assertEqual([a, b], wsgi_env.config_files(env))
        env[wsgi_env.CONFIG_FILES_ENV] = 'a.conf;missing.conf'
        error = self.assertRaises(RuntimeError, wsgi_env.config_files, env)
        self.assertIn('missing.conf', str(error))

    def test_empty_list_means_none(self):
        env = {wsgi_env.CONFIG_FILES_ENV: ''}
        self.assertEqual([], wsgi_env.config_files(env))

    def test_environment_round_trip(self):
        files = [self.touch('a.conf'), self.touch('b.conf')]
        env = wsgi_env.environment(files)
        self.assertEqual(files, wsgi_env.config_files(env))
        self.assertEqual([], wsgi_env.config_files(
            wsgi_env.environment([])))


class TestWsgiModule(base.ApiTestCase):

    def test_application_from_environment(self):
        directory = self.useFixture(fixtures.TempDir()).path
        with open(os.path.join(directory, 'api.conf'), 'w') as f:
            f.write(textwrap.dedent('''
                [DEFAULT]
                auth_strategy = keystone
                [api]
                compute_on_miss = true
                [document_cache]
                backend = memory
                [keystone_authtoken]
                www_authenticate_uri = http://127.0.0.1:5000
            '''))
        env = dict(os.environ, **{wsgi_env.CONFIG_DIR_ENV: directory,
                                  wsgi_env.CONFIG_FILES_ENV: 'api.conf'})
        # A fresh interpreter, as uWSGI loads it: argv is not parsed.
        script = textwrap.dedent('''
            import sys
            sys.argv = ['uwsgi', '--bogus']
            import webob
            from flavor_exporter.wsgi import api
            from flavor_exporter.common import config
            print('RESULT', config.CONF.auth_strategy,
                  webob.Request.blank('/v3/flavors/').get_response(
                      api.application).status_int)
            # An API process carries only the API, whatever
            # [api] compute_on_miss says: never the cloud's client.
            print('RESULT', *sorted(
                name for name in ('openstack', 'numpy',
                                  'flavor_exporter.worker',
                                  'flavor_exporter.capacity')
                if name in sys.modules) or ['none'])
        ''')
        output = subprocess.run([sys.executable, '-c', script], env=env,
                                capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(0, output.returncode, output.stderr)
        results = [line.split()[1:] for line in output.stdout.splitlines()
                   if line.startswith('RESULT ')]
        self.assertEqual([['keystone', '401'], ['none']], results,
                         output.stdout)


class TestCommand(base.ApiTestCase):

    def test_workers(self):
        with mock.patch('os.cpu_count', return_value=3):
            self.assertEqual(3, cmd_api.workers(self.conf))
        with mock.patch('os.cpu_count', return_value=None):
            self.assertEqual(1, cmd_api.workers(self.conf))
        self.flags(group='api', workers=2)
        self.assertEqual(2, cmd_api.workers(self.conf))

    def test_main_serves_with_granian_as_configured(self):
        directory = self.useFixture(fixtures.TempDir()).path
        conf_file = os.path.join(directory, 'api.conf')
        with socket.socket() as probe:
            probe.bind(('127.0.0.1', 0))
            free = probe.getsockname()[1]
        with open(conf_file, 'w') as f:
            f.write('[api]\nport = %d\nhost_ip = 127.0.0.1\nworkers = 3\n'
                    'threads = 2\nmax_connections = 5000\n'
                    'request_timeout = 7.5\n' % free)
        with mock.patch.object(server, 'serve') as serve, \
                mock.patch('oslo_log.log.setup'):
            self.assertEqual(0, cmd_api.main(['--config-file', conf_file]))
        granian, make_app = serve.call_args[0]
        self.assertEqual(('127.0.0.1', free),
                         (granian.bind_addr, granian.bind_port))
        self.assertEqual((3, 2, 5000), (granian.workers,
                                        granian.blocking_threads,
                                        granian.backpressure))
        self.assertEqual(7500, granian.http1_settings.header_read_timeout)
        # The port was only checked: granian binds it.
        with socket.socket() as sock:
            sock.bind(('127.0.0.1', free))

    def test_main_with_the_port_taken(self):
        stderr = self.useFixture(fixtures.StringStream('stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr))
        taken = socket.socket()
        self.addCleanup(taken.close)
        taken.bind(('127.0.0.1', 0))
        taken.listen()
        self.flags(group='api', host_ip='127.0.0.1',
                   port=taken.getsockname()[1])
        with mock.patch.object(server, 'serve') as serve, \
                mock.patch.object(start.config, 'prepare_service'), \
                mock.patch.object(start.config, 'CONF', self.conf):
            self.assertEqual(1, cmd_api.main([]))
        serve.assert_not_called()
        stderr.seek(0)
        lines = stderr.read().splitlines()
        self.assertEqual(1, len(lines))
        self.assertIn('flavor-exporter-api: cannot listen on 127.0.0.1:%d'
                      % taken.getsockname()[1], lines[0])
