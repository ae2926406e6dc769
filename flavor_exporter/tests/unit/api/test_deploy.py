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
import subprocess
import sys
import textwrap
from unittest import mock

import fixtures

from flavor_exporter.api import wsgi_env
from flavor_exporter.cmd import api as cmd_api
from flavor_exporter.tests.unit.api import base


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
                  webob.Request.blank('/v2/flavors/').get_response(
                      api.application).status_int)
        ''')
        output = subprocess.run([sys.executable, '-c', script], env=env,
                                capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(0, output.returncode, output.stderr)
        results = [line.split()[1:] for line in output.stdout.splitlines()
                   if line.startswith('RESULT ')]
        self.assertEqual([['keystone', '401']], results, output.stdout)


class TestCommand(base.ApiTestCase):

    def test_uwsgi_argv(self):
        self.flags(group='api', host_ip='127.0.0.1', port=8999,
                   listen_backlog=77)
        with mock.patch('os.cpu_count', return_value=3):
            argv = cmd_api.uwsgi_argv(self.conf, '/bin/uwsgi')
        self.assertEqual('/bin/uwsgi', argv[0])

        def value(flag):
            return argv[argv.index(flag) + 1]

        self.assertEqual('127.0.0.1:8999', value('--http'))
        self.assertEqual('6', value('--processes'))
        self.assertEqual('77', value('--listen'))
        self.assertEqual('flavor_exporter.wsgi.api:application',
                         value('--module'))
        for flag in ('--master', '--lazy-apps', '--need-app',
                     '--die-on-term', '--strict'):
            self.assertIn(flag, argv)

    def test_workers_and_ipv6(self):
        self.flags(group='api', host_ip='::1', workers=3)
        argv = cmd_api.uwsgi_argv(self.conf, 'uwsgi')
        self.assertEqual('[::1]:8780', argv[argv.index('--http') + 1])
        self.assertEqual('3', argv[argv.index('--processes') + 1])

    def test_find_uwsgi(self):
        beside = os.path.join(os.path.dirname(sys.executable), 'uwsgi')
        with mock.patch('os.access', return_value=True):
            self.assertEqual(beside, cmd_api.find_uwsgi())
        with mock.patch('os.access', return_value=False), \
                mock.patch('shutil.which', return_value='/usr/bin/uwsgi'):
            self.assertEqual('/usr/bin/uwsgi', cmd_api.find_uwsgi())
        with mock.patch('os.access', return_value=False), \
                mock.patch('shutil.which', return_value=None):
            error = self.assertRaises(cmd_api.UwsgiNotFound,
                                      cmd_api.find_uwsgi)
        self.assertIn('pip install pyuwsgi', str(error))

    def test_main_execs_uwsgi_with_the_config_files(self):
        directory = self.useFixture(fixtures.TempDir()).path
        conf_file = os.path.join(directory, 'api.conf')
        conf_d = os.path.join(directory, 'conf.d')
        os.mkdir(conf_d)
        with open(conf_file, 'w') as f:
            f.write('[api]\nport = 9123\nhost_ip = 0.0.0.0\n')
        for name in ('b.conf', 'a.conf', 'ignored.txt'):
            open(os.path.join(conf_d, name), 'w').close()
        with mock.patch('os.execve') as execve, \
                mock.patch.object(cmd_api, 'find_uwsgi',
                                  return_value='/x/uwsgi'), \
                mock.patch('flavor_exporter.api.auth.LOG') as auth_log, \
                mock.patch('oslo_log.log.setup'):
            cmd_api.main(['--config-file', conf_file,
                          '--config-dir', conf_d])
        binary, argv, env = execve.call_args[0]
        self.assertEqual('/x/uwsgi', binary)
        self.assertEqual('0.0.0.0:9123',
                         argv[argv.index('--http') + 1])
        self.assertEqual(
            [conf_file, os.path.join(conf_d, 'a.conf'),
             os.path.join(conf_d, 'b.conf')],
            wsgi_env.config_files(env))
        auth_log.warning.assert_called_once()

    def test_main_without_uwsgi(self):
        stderr = self.useFixture(fixtures.StringStream('stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr))
        with mock.patch.object(cmd_api, 'find_uwsgi',
                               side_effect=cmd_api.UwsgiNotFound('no')), \
                mock.patch('os.execve') as execve, \
                mock.patch('oslo_log.log.setup'):
            self.assertEqual(1, cmd_api.main([]))
        execve.assert_not_called()
        stderr.seek(0)
        self.assertIn('flavor-exporter-api: no', stderr.read())
