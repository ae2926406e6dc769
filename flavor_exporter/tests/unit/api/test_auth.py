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
"""auth_strategy: keystonemiddleware in front, public routes beside it.

No Keystone runs here: a request without a token is refused by
keystonemiddleware before it would contact one, which is enough to test
the wiring. Tokens are tested against a real Keystone functionally.
"""

from unittest import mock

from keystonemiddleware import auth_token
from keystonemiddleware import opts as ks_opts
import webob

from flavor_exporter.api import auth
from flavor_exporter.api.middleware import auth_errors
from flavor_exporter.api import routes
from flavor_exporter.tests.unit.api import base


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
        for path in ('/v2/flavors/', '/v2/flavors/g1', '/gpus/flavors',
                     '/gpus/flavors/g1', '/v2/status', '/metrics',
                     '/unknown'):
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
        self.app.get('/docs/../v2/flavors/', status=401)
        self.app.get('/healthcheck/../v2/flavors/', status=401)

    def test_noauth_has_no_middleware(self):
        self.flags(auth_strategy='noauth')
        self._app = None
        self.assertEqual(200, self.app.get('/v2/flavors/').status_int)


class TestPublicRoutes(base.ApiTestCase):

    def test_dispatch(self):
        public = mock.Mock(return_value=[b'public'])
        private = mock.Mock(return_value=[b'private'])
        app = auth.PublicRoutes(public, private, routes.Router())
        for path, wanted in (('/', b'public'), ('', b'public'),
                             ('/healthcheck', b'public'),
                             ('/healthcheckx', b'private'),
                             ('/docs/x.js', b'public'),
                             ('/docsx', b'private'),
                             ('/v2/flavors', b'private')):
            request = webob.Request.blank('/')
            request.environ['PATH_INFO'] = path
            self.assertEqual(wanted, b''.join(app(request.environ, None)),
                             path)

    def test_wrap(self):
        inner = object()
        router = routes.Router()
        self.assertIs(inner, auth.wrap(inner, self.conf, router))
        self.flags(auth_strategy='keystone')
        wrapped = auth.wrap(inner, self.conf, router)
        self.assertIsInstance(wrapped, auth.PublicRoutes)
        self.assertIsInstance(wrapped._auth_app, auth_errors.AuthErrors)
        self.assertIsInstance(wrapped._auth_app._app,
                              auth_token.AuthProtocol)


class TestWarnIfOpen(base.ApiTestCase):

    def warns(self, host):
        self.flags(group='api', host_ip=host)
        with mock.patch.object(auth.LOG, 'warning') as warning:
            result = auth.warn_if_open(self.conf)
        self.assertEqual(result, warning.called)
        return result

    def test_loopback(self):
        for host in ('127.0.0.1', '127.0.0.2', '::1', 'localhost'):
            self.assertFalse(self.warns(host), host)

    def test_beyond_loopback(self):
        for host in ('0.0.0.0', '::', '192.0.2.10'):
            self.assertTrue(self.warns(host), host)

    def test_unresolvable_name(self):
        with mock.patch('socket.getaddrinfo', side_effect=OSError):
            self.assertTrue(self.warns('api.example.org'))

    def test_keystone_never_warns(self):
        self.flags(auth_strategy='keystone')
        self.assertFalse(self.warns('0.0.0.0'))
