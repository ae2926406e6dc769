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
