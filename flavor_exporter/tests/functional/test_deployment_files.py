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
"""The shipped uWSGI and Apache mod_wsgi files serve the API as written.

etc/uwsgi/flavor-exporter-api.ini runs under uWSGI from its wheels, and
etc/apache2/flavor-exporter-api.conf under Debian's Apache with
libapache2-mod-wsgi-py3, changed only where a test must (its port, its
paths, its user): both serve what the worker published, the seed's
/v2/flavors/ list and the v3 list alike.
"""

import importlib.util
import json
import os
import stat
import subprocess
import sys
import sysconfig
import urllib.request

import testtools.content

from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests.functional import test_commands
from flavor_exporter.tests import sample_cloud
from flavor_exporter.wsgi import environment as wsgi_env
from testcloud import loopback

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
UWSGI_INI = os.path.join(REPOSITORY, 'etc', 'uwsgi', 'flavor-exporter-api.ini')
APACHE_SITE = os.path.join(REPOSITORY, 'etc', 'apache2',
                           'flavor-exporter-api.conf')
APACHE_MODULES = '/usr/lib/apache2/modules'
FLAVORS = 20


def replaced(text, *pairs):
    """text with each (old, new) replaced; AssertionError if old is absent.

    The shipped file must still say what the test replaces.
    """
    for old, new in pairs:
        if old not in text:
            raise AssertionError('%r is no longer in the shipped file' % old)
        text = text.replace(old, new)
    return text


class DeploymentFilesTestCase(test_commands.CommandsTestCase):

    def setUp(self):
        super().setUp()
        sample_cloud.publish(self.store, sample_cloud.many_flavors(FLAVORS),
                             host_list=sample_cloud.many_hosts(4))
        self.config = self.write_config(
            lines=['[DEFAULT]', 'auth_strategy = noauth'])

    def get(self, path):
        url = 'http://127.0.0.1:%d%s' % (self.port, path)
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, json.load(answer)

    def assertServes(self, process=None):
        loopback.wait_for_port(self.port, timeout=60, process=process)
        status, listed = self.get('/v3/flavors/')
        self.assertEqual(200, status)
        self.assertEqual(FLAVORS, len(listed['flavors']))
        status, seed = self.get('/v2/flavors/')
        self.assertEqual(200, status)
        self.assertEqual(sorted(f['name'] for f in listed['flavors']),
                         sorted(f['name'] for f in seed))


class TestUwsgi(DeploymentFilesTestCase):

    def test_the_shipped_ini_serves(self):
        with open(UWSGI_INI) as f:
            ini = replaced(f.read(), ('http11-socket = 127.0.0.1:8780',
                                      'http11-socket = 127.0.0.1:%d'
                                      % self.port))
        path = os.path.join(self.workdir, 'uwsgi.ini')
        with open(path, 'w') as f:
            f.write(ini)
        uwsgi = os.path.join(os.path.dirname(sys.executable), 'uwsgi')
        env = dict(os.environ, **wsgi_env.environment([self.config]))
        log = open(os.path.join(self.workdir, 'uwsgi.log'), 'w')
        self.addCleanup(log.close)
        process = subprocess.Popen([uwsgi, '--ini', path], env=env,
                                   stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        self.addCleanup(fe_fixtures.stop_process_group, process)
        self.assertServes(process)


class TestApacheModWsgi(DeploymentFilesTestCase):

    def test_the_shipped_site_serves(self):
        # mod_wsgi runs the Python it was built for (Debian's python3);
        # python-home is a virtualenv of that Python, which finds this
        # test environment's packages through a .pth file, as an
        # operator's virtualenv holds them.
        venv = os.path.join(self.workdir, 'venv')
        subprocess.run(['/usr/bin/python3', '-m', 'venv', '--without-pip',
                        venv], check=True)
        purelib = subprocess.run(
            [os.path.join(venv, 'bin', 'python'), '-c',
             'import sysconfig; print(sysconfig.get_path("purelib"))'],
            check=True, capture_output=True, text=True).stdout.strip()
        with open(os.path.join(purelib, 'test-environment.pth'), 'w') as f:
            f.write('import site; site.addsitedir(%r)\n'
                    % sysconfig.get_path('purelib'))
        script = importlib.util.find_spec('flavor_exporter.wsgi.api').origin
        with open(APACHE_SITE) as f:
            site = replaced(
                f.read(),
                ('Listen 8780', 'Listen 127.0.0.1:%d' % self.port),
                ('<VirtualHost *:8780>', '<VirtualHost *:%d>' % self.port),
                ('python-home=/opt/flavor-exporter', 'python-home=' + venv),
                ('user=flavor-exporter group=flavor-exporter',
                 self.daemon_user()),
                ('/opt/flavor-exporter/lib/python3.11/site-packages/'
                 'flavor_exporter/wsgi/api.py', script),
                ('/opt/flavor-exporter/lib/python3.11/site-packages/'
                 'flavor_exporter/wsgi', os.path.dirname(script)),
                ('/var/log/apache2/', self.workdir + '/'))
        with open(os.path.join(self.workdir, 'site.conf'), 'w') as f:
            f.write(site)
        httpd = os.path.join(self.workdir, 'httpd.conf')
        with open(httpd, 'w') as f:
            f.write('ServerRoot /etc/apache2\nServerName localhost\n'
                    'PidFile {d}/httpd.pid\nErrorLog {d}/error.log\n'
                    'DefaultRuntimeDir {d}\nMutex file:{d}\n'
                    'User nobody\nGroup nogroup\n'
                    'WSGISocketPrefix {d}/wsgi\n'.format(d=self.workdir))
            for module in ('mpm_event', 'authz_core', 'wsgi'):
                f.write('LoadModule %s_module %s/mod_%s.so\n'
                        % (module, APACHE_MODULES, module))
            f.write('Include %s/site.conf\n' % self.workdir)
        self.readable_by_all(venv, self.workdir, self.config,
                             sysconfig.get_path('purelib'), script)
        env = dict(os.environ, **wsgi_env.environment([self.config]))
        log = open(os.path.join(self.workdir, 'apache.log'), 'w')
        self.addCleanup(log.close)
        process = subprocess.Popen(['apache2', '-f', httpd, '-DFOREGROUND'],
                                   env=env, stdout=log,
                                   stderr=subprocess.STDOUT,
                                   start_new_session=True)
        self.addCleanup(fe_fixtures.stop_process_group, process)
        for name in ('apache.log', 'error.log'):
            self.addOnException(lambda _, name=name: self.addDetail(
                name, _file_content(os.path.join(self.workdir, name))))
        self.assertServes(process)

    @staticmethod
    def daemon_user():
        """The WSGIDaemonProcess user: mod_wsgi refuses to run as root."""
        if os.geteuid() != 0:
            return ''
        return 'user=nobody group=nogroup'

    def readable_by_all(self, *paths):
        """Let Apache's user reach paths: o+x on directories that lack it.

        As root, mod_wsgi runs the application as nobody; tox makes its
        .tox directory 0700. Each mode is restored after the test.
        """
        if os.geteuid() != 0:
            return
        for path in paths:
            os.chmod(path, os.stat(path).st_mode | stat.S_IROTH | (
                stat.S_IXOTH if os.path.isdir(path) else 0))
            parent = os.path.dirname(path)
            while parent != '/':
                mode = os.stat(parent).st_mode
                if not mode & stat.S_IXOTH:
                    os.chmod(parent, mode | stat.S_IXOTH)
                    self.addCleanup(os.chmod, parent, mode)
                parent = os.path.dirname(parent)


def _file_content(path):
    if not os.path.exists(path):
        return testtools.content.text_content('(none)')
    with open(path, errors='replace') as f:
        return testtools.content.text_content(f.read()[-20000:])
