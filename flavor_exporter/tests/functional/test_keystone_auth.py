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

"""The worker and the API against a real Keystone, as deployed.

The predecessor's example cloud behind real Keystone 30: Nova and
Placement validate tokens with keystonemiddleware and are found through
Keystone's catalog only. The worker logs in the three ways an operator
configures it ([openstack] keystoneauth options, clouds.yaml, an openrc's
OS_* variables), each in an environment stripped of the test runner's
OS_* variables; flavor-exporter-api serves behind keystonemiddleware.

Binding the API beyond loopback without authentication (the warning) is
covered by the unit tests: tests/unit/api/test_auth.py (TestWarnIfOpen)
and test_deploy.py (flavor-exporter-api's main with host_ip = 0.0.0.0).
"""

import json
import os
import socket
import subprocess
import time

import fixtures
from keystoneauth1.identity import v3
from keystoneauth1 import session as ks_session
import requests

from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests import sample_cloud
from testcloud import keystone_fixture
from testcloud import loopback
from testcloud import scenario as scenario_mod

SCENARIO = 'predecessor'
GPU_MEDIUM = 'de.NBI GPU V100 medium'
SHARED = 'private.shared-with-demo'
NOT_SHARED = 'private.not-shared'
TIMEOUT = 30


def shared_cloud():
    """The predecessor cloud with Keystone, one for every class here."""
    return fe_fixtures.Cloud(SCENARIO, keystone=True, shared=True)


def clean_env(home, **variables):
    """This process's environment without any OS_*, plus variables.

    HOME is a directory of the test's, so that no ~/.config/openstack
    of the machine's user is read either.
    """
    env = {name: value for name, value in os.environ.items()
           if not name.startswith('OS_')}
    env.pop('XDG_CONFIG_HOME', None)
    env['HOME'] = home
    env.update(variables)
    return env


def pci_lines():
    return ['alias = %s' % json.dumps(alias)
            for alias in scenario_mod.load(SCENARIO).pci_aliases]


def write_config(path, sections):
    """An ini file from {section: [lines]}."""
    with open(path, 'w') as conf:
        for section, lines in sections.items():
            conf.write('[%s]\n' % section)
            for line in lines:
                conf.write(line + '\n')
    return path


def password_lines(url, user, password, project, domain='name',
                   region=None):
    """[openstack] (or [keystone_authtoken]) keystoneauth options."""
    if domain == 'name':
        domains = ['user_domain_name = Default',
                   'project_domain_name = Default']
    else:
        domains = ['user_domain_id = default', 'project_domain_id = default']
    lines = ['auth_type = password', 'auth_url = %s' % url,
             'username = %s' % user, 'password = %s' % password,
             'project_name = %s' % project] + domains
    if region:
        lines.append('region_name = %s' % region)
    return lines


def token_of(keystone, who):
    """A token that Keystone issues to the admin, member or reader.

    The admin's and the member's are scoped to their project, the system
    reader's to the system. Returns the token and its AccessInfo.
    """
    if who == 'reader':
        scope = {'system_scope': 'all'}
    else:
        scope = {'project_name': keystone[who + '_project'],
                 'project_domain_id': 'default'}
    auth = v3.Password(auth_url=keystone['url'] + '/v3',
                       username=keystone[who + '_user'],
                       password=keystone[who + '_password'],
                       user_domain_id='default', **scope)
    session = ks_session.Session(auth=auth, timeout=TIMEOUT)
    access = auth.get_access(session)
    return access.auth_token, access


def numbers(document):
    """{flavor name: (total, available)} of a /v3/flavors/ document."""
    return {f['name']: (f['total'], f['available'])
            for f in document['flavors']}


class WorkerCredentialsBase(base.TestCase):
    """The worker's console scripts with the credentials of a deployment."""

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(shared_cloud()).cloud
        self.keystone = self.cloud.keystone
        self.memcached = self.useFixture(loopback.MemcachedFixture())
        self.workdir = self.useFixture(fixtures.TempDir()).path
        self.flags(group='document_cache',
                   memcache_servers=self.memcached.servers)
        self.store = publisher.Publisher.from_conf(self.conf)
        self.addCleanup(self.store.close)

    def config(self, openstack_lines):
        return write_config(
            os.path.join(self.workdir, 'flavor-exporter.conf'), {
                'document_cache': ['memcache_servers = %s'
                                   % self.memcached.servers[0]],
                'openstack': openstack_lines,
                'pci': pci_lines()})

    def admin_lines(self, **kwargs):
        return password_lines(
            self.keystone['url'] + '/v3', self.keystone['admin_user'],
            self.keystone['admin_password'],
            self.keystone['admin_project'], **kwargs)

    def run_command(self, name, config, *args, env=None, timeout=180):
        return subprocess.run(
            fe_fixtures.console_script(name) + ['--config-file', config]
            + list(args), env=env or clean_env(self.workdir),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=timeout)

    def run_once(self, config, env=None):
        done = self.run_command('flavor-exporter-worker', config,
                                '--run-once', env=env)
        self.assertEqual(0, done.returncode, done.stderr)
        return done

    def report(self, config, env=None):
        done = self.run_command('flavor-exporter-report', config,
                                '--format', 'json', env=env)
        self.assertEqual(0, done.returncode, done.stderr)
        return json.loads(done.stdout)

    def assertPublishedFromCatalog(self, done):
        """The worker published what it read from the catalog's services."""
        pointer = self.store.reader.current()
        self.assertIsNotNone(pointer, done.stderr)
        # Only Keystone's URL was given: Placement (the source `auto`
        # picks when the catalog has it) and Nova came from the catalog.
        self.assertEqual('placement', pointer['source'])
        # oslo.log writes to stdout here (no log_file, no use_stderr).
        self.assertIn('Capacity source: placement', done.stdout)
        document = json.loads(self.store.reader.document(pointer,
                                                         pub.V3_LIST))
        self.assertCloudNumbers(document)
        self.assertIsNone(self.store.reader.status()['last_error'])

    def assertCloudNumbers(self, document):
        found = numbers(document)
        self.assertEqual(7, len(found), found)
        # As on the cloud without Keystone (test_commands): 4 in total,
        # 3 free with one medium GPU server running.
        self.assertEqual((4, 3), found[GPU_MEDIUM])


class TestKeystoneauthOptions(WorkerCredentialsBase):
    """[openstack] auth_type = password, as README's Configuration shows."""

    def test_run_once_publishes(self):
        config = self.config(self.admin_lines(region='RegionOne'))
        done = self.run_once(config)
        self.assertPublishedFromCatalog(done)

    def test_report_with_domain_ids(self):
        config = self.config(self.admin_lines(domain='id'))
        self.assertCloudNumbers(self.report(config))

    def test_wrong_password_fails_clearly_and_publishes_nothing(self):
        lines = password_lines(
            self.keystone['url'] + '/v3', self.keystone['admin_user'],
            'not-the-password', self.keystone['admin_project'])
        done = self.run_command('flavor-exporter-worker',
                                self.config(lines), '--run-once')
        self.assertEqual(1, done.returncode, done.stderr)
        # A refused login is not a cloud without Placement: `auto` must
        # not settle on the hypervisors source. Said once, on stderr.
        self.assertNotIn('Capacity refresh failed', done.stdout)
        self.assertNotIn('Capacity source', done.stdout)
        message = done.stderr.strip().splitlines()[-1]
        self.assertIn('flavor-exporter-worker: the refresh failed', message)
        self.assertIn('requires authentication', message)
        self.assertIn('HTTP 401', message)
        self.assertIn('Keystone refused the credentials', message)
        self.assertNotIn('not-the-password', done.stdout + done.stderr)
        self.assertIsNone(self.store.reader.current())
        self.assertIn('HTTP 401',
                      self.store.reader.status()['last_error']['message'])

    def test_unresponsive_keystone_times_out(self):
        # Accepts connections (the kernel does) and never answers.
        silent = socket.socket()
        self.addCleanup(silent.close)
        silent.bind(('127.0.0.1', 0))
        silent.listen(16)
        url = 'http://127.0.0.1:%d/v3' % silent.getsockname()[1]
        lines = password_lines(url, 'admin', 'secret', 'admin')
        config = self.config(lines + ['api_timeout = 2'])
        started = time.monotonic()
        done = self.run_command('flavor-exporter-worker', config,
                                '--run-once', timeout=120)
        elapsed = time.monotonic() - started
        self.assertEqual(1, done.returncode, done.stderr)
        self.assertIn('timed out', done.stderr.strip().splitlines()[-1])
        # Two requests of 2 s (version discovery, then the token) plus
        # the start of the process, which is slow on a busy machine.
        self.assertLess(elapsed, 90)
        self.assertIsNone(self.store.reader.current())


class TestOpenstackClientConfig(WorkerCredentialsBase):
    """No keystoneauth options: openstacksdk's clouds.yaml and OS_*."""

    def test_clouds_yaml_entry(self):
        config = self.config(['cloud = %s' % self.cloud.cloud_name])
        env = clean_env(self.workdir,
                        OS_CLIENT_CONFIG_FILE=self.cloud.clouds_yaml)
        done = self.run_once(config, env=env)
        self.assertPublishedFromCatalog(done)

    def test_openrc_variables(self):
        config = self.config([])
        env = clean_env(
            self.workdir,
            OS_AUTH_URL=self.keystone['url'] + '/v3',
            OS_USERNAME=self.keystone['admin_user'],
            OS_PASSWORD=self.keystone['admin_password'],
            OS_PROJECT_NAME=self.keystone['admin_project'],
            OS_USER_DOMAIN_NAME='Default',
            OS_PROJECT_DOMAIN_NAME='Default')
        done = self.run_once(config, env=env)
        self.assertPublishedFromCatalog(done)


class ApiBehindKeystone(base.TestCase):
    """flavor-exporter-api with [DEFAULT] auth_strategy = keystone.

    The worker publishes into a memcached once for the class; the API
    serves it behind keystonemiddleware, whose service user is the admin.
    Keystone's token cache is keystonemiddleware's in-process one:
    [keystone_authtoken] memcached_servers needs python-memcached, which
    is not among the requirements.
    """

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # What the tests share, cleaned up as one.
        cls.resources = fixtures.Fixture()
        cls.resources.setUp()
        try:
            cls._start(cls.resources)
        except BaseException:
            cls.resources.cleanUp()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.resources.cleanUp()
        super().tearDownClass()

    @classmethod
    def _start(cls, resources):
        cls.cloud = resources.useFixture(shared_cloud()).cloud
        cls.keystone = keystone = cls.cloud.keystone
        cls._private_flavors(resources)
        memcached = resources.useFixture(loopback.MemcachedFixture())
        cls.workdir = workdir = resources.useFixture(
            fixtures.TempDir()).path
        cls.port = loopback.free_port()
        cls.api_log = os.path.join(workdir, 'api.log')
        admin = ('admin_user', 'admin_password', 'admin_project')
        cls.config = write_config(os.path.join(workdir, 'api.conf'), {
            'DEFAULT': ['auth_strategy = keystone',
                        'log_file = %s' % cls.api_log],
            'api': ['host_ip = 127.0.0.1', 'port = %d' % cls.port,
                    'workers = 1'],
            'document_cache': ['memcache_servers = %s'
                               % memcached.servers[0]],
            'openstack': password_lines(
                keystone['url'] + '/v3', *(keystone[k] for k in admin)),
            'pci': pci_lines(),
            'keystone_authtoken': password_lines(
                keystone['url'] + '/v3', *(keystone[k] for k in admin)) + [
                'www_authenticate_uri = %s' % keystone['url']],
        })
        env = clean_env(workdir)
        done = subprocess.run(
            fe_fixtures.console_script('flavor-exporter-worker')
            + ['--config-file', cls.config, '--run-once'], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=180)
        if done.returncode:
            raise RuntimeError('the worker failed:\n%s' % done.stderr)
        output = open(os.path.join(workdir, 'api.out'), 'w')
        resources.addCleanup(output.close)
        process = subprocess.Popen(
            fe_fixtures.console_script('flavor-exporter-api')
            + ['--config-file', cls.config], env=env, stdout=output,
            stderr=subprocess.STDOUT, start_new_session=True)
        resources.addCleanup(fe_fixtures.stop_process_group, process)
        loopback.wait_for_port(cls.port, timeout=60, process=process)

    @classmethod
    def _private_flavors(cls, resources):
        """One private flavor shared with the member's project, one not."""
        _token, member = token_of(cls.keystone, 'member')
        compute = cls.cloud.connection().compute
        cls.private = {}
        for name, projects in ((SHARED, [member.project_id]),
                               (NOT_SHARED, [])):
            flavor = compute.create_flavor(name=name, ram=1024, vcpus=1,
                                           disk=1, is_public=False)
            resources.addCleanup(compute.delete_flavor, flavor)
            for project in projects:
                compute.flavor_add_tenant_access(flavor, project)
            cls.private[name] = flavor.id

    def get(self, path, token=None, **headers):
        if token:
            headers['X-Auth-Token'] = token
        return requests.get('http://127.0.0.1:%d%s' % (self.port, path),
                            headers=headers, timeout=TIMEOUT)


class TestApiBehindKeystone(ApiBehindKeystone):
    """Who gets the data: tokens missing, made up, revoked, a member's."""

    def assertRefused(self, response):
        self.assertEqual(401, response.status_code, response.text)
        self.assertEqual('application/json',
                         response.headers['Content-Type'])
        self.assertEqual(401, response.json()['error']['code'])
        # Where a client gets a token: the Keystone URL configured.
        self.assertEqual('Keystone uri="%s"' % self.keystone['url'],
                         response.headers['WWW-Authenticate'])
        self.assertNotIn('flavors', response.text)

    def test_no_token(self):
        for path in ('/v3/flavors/', '/gpus/flavors/', '/gpus/flavors',
                     '/v3/flavors/%s' % GPU_MEDIUM, '/v3/status',
                     '/metrics'):
            self.assertRefused(self.get(path))

    def test_bad_tokens(self):
        member, _access = token_of(self.keystone, 'member')
        # Made-up tokens, one a tampered copy of a real one.
        tampered = member[:-4] + ('AAAA' if member[-4:] != 'AAAA'
                                  else 'BBBB')
        for token in ('not-a-token', 'admin:admin', tampered):
            for path in ('/v3/flavors/', '/gpus/flavors/'):
                self.assertRefused(self.get(path, token))
        # Identity headers a client sets are not believed without a token.
        self.assertRefused(self.get(
            '/v3/flavors/', **{'X-Identity-Status': 'Confirmed',
                               'X-Roles': 'admin', 'X-User-Id': 'admin',
                               'X-Project-Id': 'admin'}))

    def test_revoked_token(self):
        token, _access = token_of(self.keystone, 'member')
        admin, _access = token_of(self.keystone, 'admin')
        response = requests.delete(
            self.keystone['url'] + '/v3/auth/tokens', timeout=TIMEOUT,
            headers={'X-Auth-Token': admin, 'X-Subject-Token': token})
        self.assertEqual(204, response.status_code, response.text)
        self.assertRefused(self.get('/v3/flavors/', token))

    def test_member_token_reads_the_data(self):
        token, access = token_of(self.keystone, 'member')
        # An ordinary user of a project, not an administrator.
        self.assertEqual(self.keystone['member_project'],
                         access.project_name)
        self.assertNotIn('admin', access.role_names)

        response = self.get('/v3/flavors/', token)
        self.assertEqual(200, response.status_code, response.text)
        document = response.json()
        self.assertEqual('placement', document['source'])
        self.assertEqual((4, 3), numbers(document)[GPU_MEDIUM])

        response = self.get('/gpus/flavors/', token)
        self.assertEqual(200, response.status_code, response.text)
        legacy = {f['flavor_name']: (f['total'], f['available'])
                  for f in response.json()['flavors']}
        self.assertEqual((4, 3), legacy[GPU_MEDIUM])

        response = self.get('/v3/flavors/%s' % GPU_MEDIUM, token)
        self.assertEqual(200, response.status_code, response.text)
        self.assertEqual(GPU_MEDIUM, response.json()['flavor']['name'])

    def test_public_routes_need_no_token(self):
        response = self.get('/')
        self.assertEqual(200, response.status_code, response.text)
        response = self.get('/healthcheck')
        self.assertEqual(200, response.status_code, response.text)
        response = self.get('/openapi.json')
        self.assertEqual(200, response.status_code, response.text)
        # A bad token on a public route is ignored, not refused.
        self.assertEqual(200, self.get('/', 'not-a-token').status_code)

    def test_member_sees_only_what_its_project_may_use(self):
        token, _access = token_of(self.keystone, 'member')
        names = numbers(self.get('/v3/flavors/', token).json())
        self.assertIn(SHARED, names)
        self.assertNotIn(NOT_SHARED, names)
        self.assertIn(GPU_MEDIUM, names)
        for key in (NOT_SHARED, self.private[NOT_SHARED]):
            response = self.get('/v3/flavors/' + key, token)
            self.assertEqual(404, response.status_code, response.text)
        flavor = self.get('/v3/flavors/' + SHARED, token).json()['flavor']
        self.assertNotIn('hosts', flavor)
        for path in ('/v3/status', '/metrics'):
            response = self.get(path, token)
            self.assertEqual(403, response.status_code, response.text)
            self.assertEqual(403, response.json()['error']['code'])

    def test_admin_and_system_reader_see_everything(self):
        for who in ('admin', 'reader'):
            token, _access = token_of(self.keystone, who)
            names = numbers(self.get('/v3/flavors/', token).json())
            self.assertIn(NOT_SHARED, names, who)
            self.assertIn(SHARED, names, who)
            flavor = self.get('/v3/flavors/' + GPU_MEDIUM,
                              token).json()['flavor']
            self.assertIn('hosts', flavor, who)
            for path in ('/v3/status', '/metrics'):
                response = self.get(path, token)
                self.assertEqual(200, response.status_code, who)


class TestKeystoneStopped(base.TestCase):
    """The API when Keystone stops: a JSON 503, not keystonemiddleware's page.

    A Keystone of its own (the shared one serves other tests), stopped
    after the API has validated a first token: a second token, issued
    before, can no longer be validated.
    """

    def setUp(self):
        super().setUp()
        workdir = self.useFixture(fixtures.TempDir()).path
        self.keystone_server = self.useFixture(
            keystone_fixture.KeystoneServer(os.path.join(workdir, 'ks')))
        keystone = self.keystone = self.keystone_server.info
        memcached = self.useFixture(loopback.MemcachedFixture())
        self.flags(group='document_cache',
                   memcache_servers=memcached.servers)
        published = publisher.Publisher.from_conf(self.conf)
        self.addCleanup(published.close)
        sample_cloud.publish(published)
        self.port = loopback.free_port()
        admin = ('admin_user', 'admin_password', 'admin_project')
        config = write_config(os.path.join(workdir, 'api.conf'), {
            'DEFAULT': ['auth_strategy = keystone'],
            'api': ['host_ip = 127.0.0.1', 'port = %d' % self.port,
                    'workers = 1'],
            'document_cache': ['memcache_servers = %s'
                               % memcached.servers[0]],
            'keystone_authtoken': password_lines(
                keystone['url'] + '/v3', *(keystone[k] for k in admin)) + [
                'www_authenticate_uri = %s' % keystone['url']],
        })
        process = subprocess.Popen(
            fe_fixtures.console_script('flavor-exporter-api')
            + ['--config-file', config], env=clean_env(workdir),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        self.addCleanup(fe_fixtures.stop_process_group, process)
        loopback.wait_for_port(self.port, timeout=60, process=process)

    def get(self, path, token):
        return requests.get('http://127.0.0.1:%d%s' % (self.port, path),
                            headers={'X-Auth-Token': token,
                                     'Accept': 'text/html,*/*'},
                            timeout=TIMEOUT)

    def test_a_json_503_when_keystone_is_stopped(self):
        first, _access = token_of(self.keystone, 'member')
        second, _access = token_of(self.keystone, 'member')
        answer = self.get('/gpus/flavors/', first)
        self.assertEqual(200, answer.status_code, answer.text)
        self.keystone_server.process.stop()
        for path in ('/v3/flavors/', '/gpus/flavors/'):
            answer = self.get(path, second)
            self.assertEqual(503, answer.status_code, answer.text)
            self.assertEqual('application/json',
                             answer.headers['Content-Type'])
            body = answer.json()
            message = (body['message'] if path.startswith('/gpus')
                       else body['error']['message'])
            self.assertIn('Keystone', message)
        # The public routes do not need Keystone.
        self.assertEqual(200, self.get('/', second).status_code)
