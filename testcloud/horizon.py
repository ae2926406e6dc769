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

"""Serve Horizon 27 (2026.2) with the capacity plugin against a Keystone.

Horizon's published package runs from its own interpreter,
``$FLAVOR_EXPORTER_HORIZON_PYTHON`` or ``<repo>/.tox/horizon-venv``, which
``make_horizon_venv.sh`` creates the first time it is needed (under a
lock). Django's development server serves it on a loopback port with
DEBUG on, so that it serves Horizon's static files itself; Horizon's
own settings module is used with the few settings a deployment's
local_settings.py changes.
"""

import fcntl
import os
import secrets
import subprocess
import time

import fixtures
import requests

from testcloud import keystone_catalog
from testcloud import loopback
from testcloud import process

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(HERE)
DEFAULT_VENV = os.path.join(REPO_ROOT, '.tox', 'horizon-venv')
ENV_PYTHON = 'FLAVOR_EXPORTER_HORIZON_PYTHON'
MAKE_VENV = os.path.join(HERE, 'make_horizon_venv.sh')
#: Horizon compiles its SCSS at the first page: slow on 2 busy cores.
START_TIMEOUT = 300

SETTINGS = '''\
# Horizon's settings, then what a deployment's local_settings.py sets.
from openstack_dashboard.settings import *  # noqa

DEBUG = True
ALLOWED_HOSTS = ['*']
SECRET_KEY = %(secret)r
OPENSTACK_KEYSTONE_URL = %(keystone)r
OPENSTACK_KEYSTONE_DEFAULT_DOMAIN = 'Default'
OPENSTACK_ENDPOINT_TYPE = 'publicURL'
# Seconds between the capacity panels' refreshes of their figures.
CAPACITY_REFRESH_SECONDS = %(refresh)d
# Sessions in the cache, as Horizon's default; a memcached as deployed, or
# the process's memory (one runserver process).
CACHES = {'default': %(cache)r}
'''


def horizon_python():
    """The interpreter that has Horizon and the plugin, made if needed."""
    configured = os.environ.get(ENV_PYTHON)
    if configured:
        return configured
    os.makedirs(os.path.dirname(DEFAULT_VENV), exist_ok=True)
    # Parallel test workers must not build the same venv at once.
    with open(DEFAULT_VENV + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(['bash', MAKE_VENV, DEFAULT_VENV], check=True,
                       stdout=subprocess.DEVNULL, env=process.environ())
    return os.path.join(DEFAULT_VENV, 'bin', 'python')


class HorizonServer(fixtures.Fixture):
    """Horizon on 127.0.0.1:port (ephemeral by default) for keystone_url.

    memcached: host:port of the sessions' cache, else in memory.

    After setUp: ``url`` (ends with /), ``log`` (the server's output).
    """

    def __init__(self, keystone_url, workdir, port=None, refresh=30,
                 memcached=None, timeout=START_TIMEOUT):
        super().__init__()
        self.memcached = memcached
        self.keystone_url = keystone_url
        self.workdir = workdir
        self.port = port
        self.refresh = refresh
        self.timeout = timeout

    def _setUp(self):
        python = horizon_python()
        self.port = self.port or loopback.free_port()
        self.url = 'http://127.0.0.1:%d/' % self.port
        with open(os.path.join(self.workdir, 'horizon_settings.py'),
                  'w') as out:
            out.write(SETTINGS % {'secret': secrets.token_urlsafe(32),
                                  'keystone': self.keystone_url + '/v3',
                                  'refresh': self.refresh,
                                  'cache': self._cache()})
        env = process.environ()
        env.update(PYTHONPATH=self.workdir,
                   DJANGO_SETTINGS_MODULE='horizon_settings',
                   PYTHONDONTWRITEBYTECODE='1')
        for name in [n for n in env if n.startswith('OS_')]:
            del env[name]
        self.log = os.path.join(self.workdir, 'horizon.log')
        output = open(self.log, 'wb')
        self.addCleanup(output.close)
        popen = subprocess.Popen(
            [python, '-m', 'django', 'runserver', '--noreload',
             '127.0.0.1:%d' % self.port],
            cwd=self.workdir, env=env, stdout=output,
            stderr=subprocess.STDOUT, start_new_session=True)
        self.addCleanup(_stop, popen)
        try:
            loopback.wait_for_port(self.port, timeout=self.timeout,
                                   process=popen)
            self._warm_up(popen)
        except Exception as exc:
            raise process.StartError('Horizon did not start (%s):\n%s' % (
                exc, process.tail(self.log))) from None

    def _cache(self):
        if self.memcached:
            return {'BACKEND': 'django.core.cache.backends.memcached.'
                    'PyMemcacheCache', 'LOCATION': self.memcached}
        # Many entries: django-compressor keeps one per static file in
        # the cache, and at 300 (the default) the sessions are culled.
        return {'BACKEND': 'django.core.cache.backends.locmem.LocMemCache',
                'OPTIONS': {'MAX_ENTRIES': 100000}}

    def _warm_up(self, popen):
        """The login page once: Horizon compiles its styles on first use."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                response = requests.get(self.url + 'auth/login/',
                                        timeout=self.timeout)
                if response.status_code == 200:
                    return
                raise RuntimeError('login page: HTTP %d'
                                   % response.status_code)
            except requests.ConnectionError:
                if popen.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.5)


def _stop(popen):
    if popen.poll() is None:
        os.killpg(popen.pid, 15)
        try:
            popen.wait(process.STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(popen.pid, 9)
            popen.wait()


def authtoken_lines(keystone):
    """[keystone_authtoken] lines of an API behind keystone's Keystone.

    keystonemiddleware's service user is the admin, as in the tests.
    """
    return ['auth_type = password',
            'auth_url = %s/v3' % keystone['url'],
            'username = %s' % keystone['admin_user'],
            'password = %s' % keystone['admin_password'],
            'project_name = %s' % keystone['admin_project'],
            'user_domain_id = default', 'project_domain_id = default',
            'www_authenticate_uri = %s' % keystone['url']]


def register_capacity(keystone, url, region='RegionOne'):
    """The "capacity" service and its public endpoint url in the catalog.

    As the devstack plugin registers it: where Horizon's panels (and
    openstack capacity) find the API.
    """
    headers = {'X-Auth-Token': keystone_catalog.admin_token(keystone)}
    base = keystone['url'] + '/v3'
    resp = requests.post(base + '/services', headers=headers,
                         timeout=keystone_catalog.TIMEOUT,
                         json={'service': {'type': 'capacity',
                                           'name': 'flavor-exporter'}})
    resp.raise_for_status()
    resp = requests.post(base + '/endpoints', headers=headers,
                         timeout=keystone_catalog.TIMEOUT,
                         json={'endpoint': {
                             'service_id': resp.json()['service']['id'],
                             'interface': 'public', 'url': url,
                             'region_id': region}})
    resp.raise_for_status()
