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
"""Every command is quiet in a fresh install, as a new user makes one.

A new virtualenv (python -m venv), the project installed into it from
this tree with pip (its cache and the machine's indexes, the newest
versions the requirements allow, not tox's), the cli extra included:
every console script of setup.cfg and every ``openstack capacity``
command of the plugin answers ``--help`` with nothing on stderr. A
library's warning there (eventlet's deprecation, dnspython's
CryptographyDeprecationWarning through oslo.service -> futurist ->
eventlet) buries what the command says; the commands avoid its cause
(flavor_exporter.cmd and flavor_exporter.wsgi set EVENTLET_NO_GREENDNS
before oslo.service is imported), which this test would catch coming
back with a new release of any of them.

The venv takes one to three minutes to install on 2 cores with a warm
pip cache; the commands about two seconds each.
"""

import configparser
import os
import subprocess
import sys

import fixtures
import testtools

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))


def console_scripts():
    """The console scripts setup.cfg installs, by name."""
    return sorted(_entry_points('console_scripts'))


def capacity_commands():
    """Every ``openstack capacity`` command, as argv after ``openstack``.

    capacity_flavor_list -> ['capacity', 'flavor', 'list'], as cliff
    splits the entry point's name on underscores.
    """
    return sorted(name.split('_')
                  for name in _entry_points('openstack.capacity.v3'))


def _entry_points(group):
    parser = configparser.ConfigParser()
    parser.read(os.path.join(REPOSITORY, 'setup.cfg'))
    lines = parser['entry_points'][group].strip().splitlines()
    return [line.split('=')[0].strip() for line in lines if line.strip()]


class FreshInstallTestCase(testtools.TestCase):

    @classmethod
    def setUpClass(cls):
        # One venv for the class: its install is the slow part.
        super().setUpClass()
        cls._tempdir = fixtures.TempDir()
        cls._tempdir.setUp()
        cls.venv = os.path.join(cls._tempdir.path, 'venv')
        cls.bin = os.path.join(cls.venv, 'bin')
        subprocess.run([sys.executable, '-m', 'venv', cls.venv], check=True)
        done = subprocess.run(
            [os.path.join(cls.bin, 'pip'), 'install', '--quiet',
             REPOSITORY + '[cli]'],
            env=cls.clean_env(), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, timeout=1200)
        cls.install_output = done.stdout
        cls.install_status = done.returncode

    @classmethod
    def tearDownClass(cls):
        cls._tempdir.cleanUp()
        super().tearDownClass()

    @classmethod
    def clean_env(cls):
        """A new user's shell: no tox, no test settings, no OS_* cloud.

        The machine's pip settings (PIP_*: its indexes and wheels) and
        HOME (pip's cache) only.
        """
        env = {name: value for name, value in os.environ.items()
               if name.startswith('PIP_') or name in (
                   'HOME', 'LANG', 'LC_ALL', 'http_proxy', 'https_proxy',
                   'no_proxy', 'TMPDIR')}
        env['PATH'] = os.pathsep.join([cls.bin, '/usr/local/bin',
                                       '/usr/bin', '/bin'])
        return env

    def setUp(self):
        super().setUp()
        self.assertEqual(0, self.install_status, self.install_output)

    def run_in_venv(self, *argv):
        return subprocess.run(
            [os.path.join(self.bin, argv[0])] + list(argv[1:]),
            env=self.clean_env(), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, timeout=120,
            cwd=self._tempdir.path)

    def test_setup_cfg_is_read(self):
        # The lists below come from setup.cfg: an empty list would make
        # the other tests pass having run nothing.
        self.assertIn('flavor-exporter-api', console_scripts())
        self.assertIn('flavor-exporter-report', console_scripts())
        self.assertIn(['capacity', 'check'], capacity_commands())

    def test_console_scripts_help_quiet(self):
        for name in console_scripts():
            done = self.run_in_venv(name, '--help')
            self.assertEqual(0, done.returncode, (name, done.stderr))
            self.assertIn('usage:', done.stdout, name)
            self.assertEqual('', done.stderr, name)

    def test_openstack_capacity_help_quiet(self):
        for command in capacity_commands():
            done = self.run_in_venv('openstack', *command, '--help')
            self.assertEqual(0, done.returncode, (command, done.stderr))
            self.assertIn('usage: openstack ' + ' '.join(command),
                          done.stdout, command)
            self.assertEqual('', done.stderr, command)

    def test_config_error_is_one_line(self):
        # A refused start says one line, and nothing a library printed
        # before it.
        missing = os.path.join(self._tempdir.path, 'missing.conf')
        for name in console_scripts():
            done = self.run_in_venv(name, '--config-file', missing)
            self.assertEqual(2, done.returncode, (name, done.stderr))
            self.assertEqual(1, len(done.stderr.splitlines()),
                             (name, done.stderr))
