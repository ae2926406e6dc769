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
"""auth_strategy: keystonemiddleware or HTTP Basic, public routes beside.

No Keystone runs here: a request without a token is refused by
keystonemiddleware before it would contact one, which is enough to test
the wiring. Tokens are tested against a real Keystone functionally. HTTP
Basic is tested against real htpasswd files (bcrypt).
"""

import base64
import json
import os
from unittest import mock

import bcrypt
import fixtures
from keystonemiddleware import auth_token
from keystonemiddleware import opts as ks_opts

from flavor_exporter.api import auth
from flavor_exporter.api.middleware import auth_errors
from flavor_exporter.api.middleware import basic_auth
from flavor_exporter.common import exceptions
from flavor_exporter.tests.unit.api import base
from flavor_exporter.tests.unit.api import test_policy


def basic(user, password):
    return {'Authorization': 'Basic ' + base64.b64encode(
        ('%s:%s' % (user, password)).encode()).decode()}


def write_htpasswd(path, users, rounds=4):
    """An htpasswd file of {user: password}, bcrypt as htpasswd -B."""
    with open(path, 'w') as f:
        for user, password in users.items():
            f.write('%s:%s\n' % (user, bcrypt.hashpw(
                password.encode(), bcrypt.gensalt(rounds)).decode()))


class TestKeystoneStrategy(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.flags(auth_strategy='keystone')
        for group, options in ks_opts.list_auth_token_opts():
            self.conf.register_opts(options, group=group)
        # Only put in the WWW-Authenticate header: nothing connects to it.
        self.flags(group='keystone_authtoken',
                   www_authenticate_uri='http://127.0.0.1:5000/identity')
        self.publish()

    def test_data_routes_need_a_token(self):
        for path in ('/v2/flavors/', '/v3/flavors/', '/v3/flavors/g1',
                     '/gpus/flavors', '/gpus/flavors/g1', '/v3/status',
                     '/metrics', '/unknown'):
            response = self.app.get(path, status=401)
            self.assertEqual('Keystone uri="http://127.0.0.1:5000/identity"',
                             response.headers['WWW-Authenticate'])
            self.assertEqual('application/json', response.content_type)
            self.assertEqual(401, response.json['error']['code'])

    def test_public_routes(self):
        self.assertEqual(200, self.app.get('/').status_int)
        self.assertEqual(200, self.app.get('/healthcheck').status_int)
        self.assertEqual(200, self.app.get('/openapi.json').status_int)
        self.assertEqual(200, self.app.get('/docs/').status_int)
        self.assertEqual(200, self.app.get(
            '/docs/swagger-ui.css').status_int)
        self.assertEqual(301, self.app.get('/docs').status_int)

    def test_public_prefix_does_not_reach_data(self):
        # Only the table's public routes skip authentication.
        self.app.get('/docs/../v3/flavors/', status=401)
        self.app.get('/healthcheck/../v3/flavors/', status=401)

    def test_noauth_has_no_middleware(self):
        self.flags(auth_strategy='noauth')
        self._app = None
        self.assertEqual(200, self.app.get('/v3/flavors/').status_int)


class TestWiring(base.ApiTestCase):

    def test_noauth_is_the_application_itself(self):
        application = object()
        self.assertIs(application,
                      auth.authenticating(application, self.conf))

    def test_keystone(self):
        self.flags(auth_strategy='keystone')
        wrapped = auth.authenticated(object(), self.conf)
        self.assertIsInstance(wrapped, auth_errors.AuthErrors)
        self.assertIsInstance(wrapped._app, auth_token.AuthProtocol)


class HttpBasicTestCase(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.user_file = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'htpasswd')
        write_htpasswd(self.user_file, {'portal': 'secret',
                                        'prometheus': 'scrape'})
        self.flags(auth_strategy='http_basic',
                   http_basic_auth_user_file=self.user_file)
        self.docs = self.publish(test_policy.flavors())


class TestHttpBasic(HttpBasicTestCase):

    def test_no_credentials(self):
        for path in ('/v2/flavors/', '/v3/flavors/', '/gpus/flavors',
                     '/metrics', '/nowhere'):
            response = self.app.get(path, status=401)
            self.assertIn('Basic realm="flavor-exporter"',
                          response.headers['WWW-Authenticate'])
            self.assertEqual('application/json', response.content_type)
        # In keystonemiddleware's shape on every route, as openapi.json
        # documents the 401.
        self.assertEqual(
            {'error': {'code': 401, 'message':
                       'This API needs HTTP Basic credentials.'}},
            self.app.get('/gpus/flavors', status=401).json)

    def test_wrong_password_and_unknown_user(self):
        for headers in (basic('portal', 'nope'), basic('nobody', 'secret')):
            response = self.app.get('/v2/flavors/', headers=headers,
                                    status=401)
            self.assertJsonError(response, 401, 'user name or password')

    def test_malformed_header(self):
        for value in ('Basic !!!', 'Basic', 'Bearer abc',
                      'Basic ' + base64.b64encode(b'nocolon').decode()):
            response = self.app.get('/v2/flavors/', status=401, headers={
                'Authorization': value})
            self.assertEqual(401, response.json['error']['code'])

    def test_right_password(self):
        response = self.app.get('/v2/flavors/',
                                headers=basic('portal', 'secret'))
        self.assertEqual(200, response.status_int)
        self.assertIsInstance(response.json, list)

    def test_public_routes_need_nothing(self):
        for path in ('/', '/v2/', '/v3/', '/healthcheck', '/openapi.json'):
            self.assertEqual(200, self.app.get(path).status_int)

    def test_a_basic_user_has_no_roles(self):
        # Public flavors only, no hosts, no status, no metrics, and the
        # identity headers a client adds are dropped.
        forged = dict(basic('portal', 'secret'), **{
            'X-Roles': 'admin', 'X-Project-Id': 'p1',
            'OpenStack-System-Scope': 'all'})
        ids = [item['id'] for item in self.app.get(
            '/v2/flavors/', headers=forged).json]
        self.assertEqual([], [i for i in ids if i.startswith('p')])
        self.assertIn('g1', ids)
        # They are published, and only hidden from this caller.
        self.assertIn('p1', [item['id'] for item in json.loads(
            self.docs['v2/flavors'])])
        self.assertNotIn('hosts',
                         self.app.get('/v3/flavors/g1',
                                      headers=forged).json['flavor'])
        self.app.get('/v3/status', headers=forged, status=403)
        self.app.get('/metrics', headers=forged, status=403)

    def test_policy_names_a_basic_user(self):
        policy_file = os.path.join(os.path.dirname(self.user_file),
                                   'policy.yaml')
        with open(policy_file, 'w') as f:
            f.write('"capacity:metrics:get": "rule:admin_or_system_reader '
                    'or user_id:prometheus"\n')
        self.flags(group='oslo_policy', policy_file=policy_file)
        self.app.get('/metrics', headers=basic('portal', 'secret'),
                     status=403)
        response = self.app.get('/metrics',
                                headers=basic('prometheus', 'scrape'))
        self.assertIn(b'flavor_exporter_flavor_available', response.body)

    def test_bcrypt_once_while_the_file_is_unchanged(self):
        with mock.patch.object(basic_auth.bcrypt, 'checkpw',
                               wraps=basic_auth.bcrypt.checkpw) as checked:
            for _ in range(5):
                self.app.get('/v2/flavors/',
                             headers=basic('portal', 'secret'))
            self.assertEqual(1, checked.call_count)
            # A wrong password is checked every time.
            for _ in range(2):
                self.app.get('/v2/flavors/',
                             headers=basic('portal', 'wrong'), status=401)
            self.assertEqual(3, checked.call_count)
            # A new file: the user's password changed.
            write_htpasswd(self.user_file, {'portal': 'new'})
            os.utime(self.user_file, ns=(1, 1))
            self.app.get('/v2/flavors/', headers=basic('portal', 'secret'),
                         status=401)
            self.app.get('/v2/flavors/', headers=basic('portal', 'new'))

    def test_a_file_gone_is_a_503_and_one_log_line(self):
        self.app.get('/v2/flavors/', headers=basic('portal', 'secret'))
        os.unlink(self.user_file)
        with mock.patch.object(basic_auth.LOG, 'error') as error:
            response = self.app.get('/v2/flavors/',
                                    headers=basic('portal', 'secret'),
                                    status=503)
        self.assertJsonError(response, 503, 'cannot check credentials')
        error.assert_called_once()


class TestCheck(HttpBasicTestCase):

    def test_a_good_file(self):
        auth.check(self.conf)

    def test_http_basic_needs_a_file(self):
        self.flags(http_basic_auth_user_file=None)
        error = self.assertRaises(exceptions.InvalidOption, auth.check,
                                  self.conf)
        self.assertIn('needs [DEFAULT] http_basic_auth_user_file',
                      str(error))

    def test_missing_and_not_bcrypt(self):
        self.flags(http_basic_auth_user_file=self.user_file + '.nope')
        error = self.assertRaises(exceptions.InvalidOption, auth.check,
                                  self.conf)
        self.assertIn('htpasswd -B -c', str(error))
        with open(self.user_file, 'w') as f:
            f.write('portal:$apr1$abc$def\n')
        self.flags(http_basic_auth_user_file=self.user_file)
        error = self.assertRaises(exceptions.InvalidOption, auth.check,
                                  self.conf)
        self.assertIn('line 1 (user portal): only bcrypt entries', str(error))


class TestKeystoneAndBasic(HttpBasicTestCase):
    """Keystone, and the user file for those without tokens."""

    def setUp(self):
        super().setUp()
        self.flags(auth_strategy='keystone')
        for group, options in ks_opts.list_auth_token_opts():
            self.conf.register_opts(options, group=group)
        self.flags(group='keystone_authtoken',
                   www_authenticate_uri='http://127.0.0.1:5000/identity')

    def test_basic_credentials_are_checked_against_the_file(self):
        self.assertEqual(200, self.app.get(
            '/v2/flavors/', headers=basic('portal', 'secret')).status_int)
        self.app.get('/v2/flavors/', headers=basic('portal', 'x'),
                     status=401)

    def test_anything_else_goes_to_keystone(self):
        response = self.app.get('/v2/flavors/', status=401)
        self.assertEqual('Keystone uri="http://127.0.0.1:5000/identity"',
                         response.headers['WWW-Authenticate'])


class TestExposure(base.ApiTestCase):
    """noauth only on loopback, unless the operator says so."""

    def refused(self, host):
        self.flags(group='api', host_ip=host)
        try:
            auth.check_exposure(self.conf)
        except exceptions.InvalidOption as exc:
            return str(exc)
        return None

    def test_keystone_is_the_default(self):
        self.conf.clear_default('auth_strategy')
        self.assertEqual('keystone', self.conf.auth_strategy)

    def test_loopback(self):
        for host in ('127.0.0.1', '127.0.0.2', '::1', 'localhost'):
            self.assertIsNone(self.refused(host), host)

    def test_beyond_loopback(self):
        for host in ('0.0.0.0', '::', '192.0.2.10'):
            self.assertEqual(
                '[DEFAULT] auth_strategy = noauth on [api] host_ip = %s '
                'would let anyone who reaches the port read the capacity '
                'data; set auth_strategy = keystone or http_basic, bind to '
                'loopback, or set [api] noauth_beyond_loopback = true (a '
                'port published on loopback only, a proxy that '
                'authenticates)' % host, self.refused(host))

    def test_unresolvable_name(self):
        with mock.patch('socket.getaddrinfo', side_effect=OSError):
            self.assertIsNotNone(self.refused('api.example.org'))

    def test_allowed_beyond_loopback_with_a_warning(self):
        self.flags(group='api', noauth_beyond_loopback=True)
        with mock.patch.object(auth.LOG, 'warning') as warning:
            self.assertIsNone(self.refused('0.0.0.0'))
        warning.assert_called_once()

    def test_authenticated_anywhere(self):
        for strategy in ('keystone', 'http_basic'):
            self.flags(auth_strategy=strategy)
            self.assertIsNone(self.refused('0.0.0.0'), strategy)

    def test_keystone_needs_its_section(self):
        # No [keystone_authtoken] option set, as in the sample.
        self.flags(auth_strategy='keystone')
        error = self.assertRaises(exceptions.InvalidOption, auth.check,
                                  self.conf)
        self.assertIn('[DEFAULT] auth_strategy = keystone (the default) '
                      'needs a [keystone_authtoken] section', str(error))
