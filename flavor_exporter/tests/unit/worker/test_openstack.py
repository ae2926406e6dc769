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

import functools
import http.server
import json
import threading
from unittest import mock

import fixtures
import requests

from flavor_exporter.tests import base
from flavor_exporter.worker import lean_session
from flavor_exporter.worker import openstack

ENVIRONMENT = ('http_proxy', 'https_proxy', 'all_proxy', 'no_proxy',
               'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY',
               'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE')


class TestLeanSessionEnvironment(base.TestCase):

    def setUp(self):
        super().setUp()
        for name in ENVIRONMENT:
            self.useFixture(fixtures.EnvironmentVariable(name))

    def env(self, **values):
        for name, value in values.items():
            self.useFixture(fixtures.EnvironmentVariable(name, value))

    def settings(self, session, url, verify=True):
        return session.merge_environment_settings(url, {}, None, verify,
                                                  None)

    def test_proxies_as_requests_decides_them(self):
        self.env(https_proxy='http://proxy.example.org:3128',
                 no_proxy='placement.internal,.local.example.org')
        session = lean_session.LeanSession()
        self.assertFalse(session.trust_env)
        plain = requests.Session()
        for url, proxied in (('https://nova.example.org/v2.1', True),
                             ('https://placement.internal/x', False),
                             ('https://a.local.example.org/', False),
                             ('http://nova.example.org/v2.1', False)):
            settings = self.settings(session, url)
            self.assertEqual(self.settings(plain, url), settings)
            chosen = requests.utils.select_proxy(url, settings['proxies'])
            self.assertEqual(proxied, chosen is not None, url)

    def test_environment_read_once_per_endpoint(self):
        self.env(http_proxy='http://proxy.example.org:3128')
        session = lean_session.LeanSession()
        real = requests.utils.get_environ_proxies
        with mock.patch.object(requests.utils, 'get_environ_proxies',
                               side_effect=real) as lookup:
            for path in ('/a', '/b', '/c'):
                self.settings(session, 'http://nova.example.org' + path)
            self.settings(session, 'http://placement.example.org/a')
            self.settings(session, 'http://placement.example.org/b')
        self.assertEqual(2, lookup.call_count)

    def test_explicit_proxies_win(self):
        self.env(http_proxy='http://proxy.example.org:3128')
        session = lean_session.LeanSession()
        settings = session.merge_environment_settings(
            'http://nova.example.org/', {'http': 'http://mine:8080'}, None,
            True, None)
        self.assertEqual({'http': 'http://mine:8080'}, settings['proxies'])

    def test_ca_bundle_read_at_creation(self):
        self.env(REQUESTS_CA_BUNDLE='/etc/ssl/cloud-ca.pem')
        session = lean_session.LeanSession()
        self.env(REQUESTS_CA_BUNDLE='/elsewhere.pem')
        url = 'https://nova.example.org/'
        self.assertEqual('/etc/ssl/cloud-ca.pem',
                         self.settings(session, url)['verify'])
        # An explicit verify setting is kept, as requests keeps it.
        self.assertFalse(self.settings(session, url, verify=False)['verify'])
        self.assertEqual('/my.pem',
                         self.settings(session, url, '/my.pem')['verify'])

    def test_no_netrc_lookup(self):
        session = lean_session.LeanSession()
        with mock.patch.object(requests.sessions, 'get_netrc_auth') as netrc:
            session.prepare_request(requests.Request(
                'GET', 'https://nova.example.org/'))
        netrc.assert_not_called()


class TestSettleEnvironment(base.TestCase):

    def test_keystoneauth_session_keeps_its_state(self):
        from keystoneauth1 import session as ks_session

        keystone = ks_session.Session(verify='/ca.pem')
        original = keystone.session
        original.headers['X-Test'] = 'kept'
        connection = mock.Mock(session=keystone)
        self.assertIs(connection, openstack.settle_environment(connection))
        settled = keystone.session
        self.assertIsInstance(settled, lean_session.LeanSession)
        self.assertFalse(settled.trust_env)
        # keystoneauth's TCP keep-alive adapters and headers move over.
        self.assertIs(original.adapters, settled.adapters)
        self.assertEqual('kept', settled.headers['X-Test'])
        openstack.settle_environment(connection)
        self.assertIs(settled, keystone.session)

    def test_connect_settles_the_environment(self):
        self.flags(group='openstack', cloud=None, auth_type='admin_token')
        with mock.patch.object(openstack.ks_loading,
                               'load_auth_from_conf_options'):
            connection = openstack.connect(self.conf)
        self.assertIsInstance(connection.session.session,
                              lean_session.LeanSession)


class _Echo(http.server.BaseHTTPRequestHandler):
    """Answers every GET with the headers it got, as JSON."""

    protocol_version = 'HTTP/1.1'

    def do_GET(self):
        body = json.dumps({'path': self.path,
                           'headers': dict(self.headers)}).encode()
        self.send_response(200)
        if self.path.startswith('/cookie'):
            self.send_header('Set-Cookie', 'lb=1; Path=/')
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class TestLeanGet(base.TestCase):
    """keystoneauth's plain GETs skip Session.request, nothing else."""

    def setUp(self):
        super().setUp()
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Echo)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.url = 'http://127.0.0.1:%d' % server.server_address[1]
        self.session = lean_session.LeanSession()
        self.session.headers['User-Agent'] = 'flavor-exporter test'
        self.full = self.useFixture(fixtures.MockPatchObject(
            requests.Session, 'request', wraps=functools.partial(
                requests.Session.request, self.session))).mock

    def get(self, path, **kwargs):
        kwargs.setdefault('allow_redirects', False)
        return self.session.request('GET', self.url + path, **kwargs)

    def test_plain_get_is_lean_and_sends_the_same(self):
        answer = self.get('/a b', params={'limit': 2, 'marker': 'x:y'},
                          headers={'X-Auth-Token': 't', 'Accept': None})
        self.full.assert_not_called()
        seen = answer.json()
        self.assertEqual('/a%20b?limit=2&marker=x%3Ay', seen['path'])
        self.assertEqual('t', seen['headers']['X-Auth-Token'])
        self.assertEqual('flavor-exporter test',
                         seen['headers']['User-Agent'])
        self.assertNotIn('Accept', seen['headers'])
        self.assertEqual(200, answer.status_code)
        self.assertIsNotNone(answer.elapsed)

    def test_other_requests_and_cookies_take_requests_path(self):
        self.get('/x', allow_redirects=True)
        self.assertEqual(1, self.full.call_count)
        # A server that sets a cookie gets it back, the usual way.
        self.get('/cookie')
        self.assertEqual(1, self.full.call_count)
        seen = self.get('/after').json()
        self.assertEqual(2, self.full.call_count)
        self.assertEqual('lb=1', seen['headers']['Cookie'])
