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

import gzip
import http.server
import socket
import threading
from unittest import mock

import fixtures
from keystoneauth1 import adapter
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session

from flavor_exporter.tests import base
from flavor_exporter.worker import direct_get
from flavor_exporter.worker import openstack

SDK_HEADERS = {'User-Agent': 'flavor-exporter openstacksdk/4', 'Accept':
               '*/*', 'X-Auth-Token': 'old', 'Connection': 'keep-alive',
               'OpenStack-API-Version': 'compute 2.53',
               'X-OpenStack-Nova-API-Version': '2.53'}


def _sdk_response(status=200):
    return mock.Mock(status_code=status, request=mock.Mock(
        headers=SDK_HEADERS))


def _session(token='tok'):
    session = mock.Mock(spec=ks_session.Session)
    session.session = mock.Mock(proxies={})
    session.get_auth_headers.return_value = {'X-Auth-Token': token}
    return session


class TestDirectLane(base.TestCase):

    def setUp(self):
        super().setUp()
        for name in ('http_proxy', 'https_proxy', 'all_proxy', 'no_proxy',
                     'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY'):
            self.useFixture(fixtures.EnvironmentVariable(name))
        self.pools = mock.Mock()
        self.pools.request.return_value = mock.Mock(status=200,
                                                    data=b'{"a": 1}')
        self.session = _session()

    def lane(self, url='https://nova.example.org/v2.1/', service='compute'):
        # keystoneauth's Adapter.get_endpoint answers endpoint_override.
        proxy = mock.Mock(endpoint_override=url)
        return direct_get.DirectLane.after(service, proxy,
                                           _sdk_response(), self.session,
                                           self.pools)

    def test_identity_whose_get_endpoint_is_an_api_call(self):
        # openstacksdk's identity proxy: get_endpoint(endpoint) shows an
        # endpoint of the catalog; the lane asks the adapter's own.
        class IdentityProxy(adapter.Adapter):
            def get_endpoint(self, endpoint):
                raise AssertionError('an API call')
        proxy = IdentityProxy(mock.Mock(), endpoint_override=(
            'https://keystone.example.org/v3'))
        lane = direct_get.DirectLane.after('identity', proxy,
                                           _sdk_response(), self.session,
                                           self.pools)
        lane.get('/limits', None, {'project_id': 'p'})
        self.assertEqual('https://keystone.example.org/v3/limits'
                         '?project_id=p',
                         self.pools.request.call_args[0][1])

    def test_sends_what_the_sdk_sent_with_the_current_token(self):
        answer = self.lane().get('/os-hypervisors/detail', '2.53',
                                 {'limit': 1000, 'marker': 'a b'})
        self.assertEqual({'a': 1}, answer.json())
        self.pools.request.assert_called_once_with(
            'GET', 'https://nova.example.org/v2.1/os-hypervisors/detail'
                   '?limit=1000&marker=a+b',
            headers={'User-Agent': 'flavor-exporter openstacksdk/4',
                     'Accept': '*/*', 'X-Auth-Token': 'tok',
                     'OpenStack-API-Version': 'compute 2.53',
                     'X-OpenStack-Nova-API-Version': '2.53'},
            redirect=False)

    def test_no_lane_behind_a_proxy(self):
        self.useFixture(fixtures.EnvironmentVariable(
            'https_proxy', 'http://proxy.example.org:3128'))
        self.assertIsNone(self.lane())
        self.assertIsNotNone(self.lane('http://nova.example.org/v2.1'))
        self.session.session.proxies = {'http': 'http://mine:8080'}
        self.assertIsNone(self.lane('http://nova.example.org/v2.1'))

    def test_401_and_redirects_go_the_usual_way(self):
        lane = self.lane()
        for status in (401, 301, 307):
            self.pools.request.return_value = mock.Mock(status=status,
                                                        data=b'')
            self.assertIsNone(lane.get('/flavors/detail'))
        self.pools.request.return_value = mock.Mock(status=500,
                                                    data=b'oops')
        self.assertEqual((500, 'oops'), (lambda a: (a.status_code, a.text))(
            lane.get('/flavors/detail')))

    def test_transport_errors_as_keystoneauth_raises_them(self):
        with socket.socket() as sock:
            sock.bind(('127.0.0.1', 0))
            port = sock.getsockname()[1]
        session = ks_session.Session(timeout=5)
        lane = direct_get.DirectLane(
            'placement', 'http://127.0.0.1:%d/placement' % port, {},
            _session(), direct_get.pool_manager(session, 2))
        self.assertRaises(ks_exc.ConnectFailure, lane.get, '/x')


class _Handler(http.server.BaseHTTPRequestHandler):
    """Answers GET /<body> with body, gzipped when the path says so."""

    protocol_version = 'HTTP/1.1'  # keeps connections alive

    def do_GET(self):
        self.server.peers.add(self.client_address)
        body = self.path.lstrip('/').encode()
        headers = {}
        if self.path.startswith('/gzip'):
            body, headers = gzip.compress(body), {'Content-Encoding': 'gzip'}
        self.send_response(200)
        for name, value in dict(headers, **{
                'Content-Length': str(len(body))}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class TestConnections(base.TestCase):
    """Connections against a real HTTP/1.1 server on loopback."""

    def setUp(self):
        super().setUp()
        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      _Handler)
        self.server.peers = set()
        thread = threading.Thread(target=self.server.serve_forever,
                                  args=(0.05,))
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(self.server.shutdown)
        self.addCleanup(self.server.server_close)
        self.url = 'http://127.0.0.1:%d' % self.server.server_port
        self.connections = direct_get.Connections(5, 2, {})

    def get(self, path):
        answer = self.connections.request('GET', self.url + path)
        return answer.status, answer.data

    def test_kept_alive(self):
        for path in ('/a', '/b?c=d', '/e'):
            self.assertEqual((200, path[1:].encode()), self.get(path))
        # One client port: one connection for the three calls.
        self.assertEqual(1, len(self.server.peers))

    def test_gzip_answers_decoded(self):
        self.assertEqual((200, b'gzip-x'), self.get('/gzip-x'))

    def test_a_connection_the_server_closed_is_replaced(self):
        self.get('/a')
        # The kept connection is cut, as when the server closes it at its
        # keep-alive timeout: the next call goes over a new one.
        for connection in self.connections._idle.values():
            connection[0].sock.shutdown(socket.SHUT_RDWR)
        self.assertEqual((200, b'b'), self.get('/b'))
        self.assertEqual(2, len(self.server.peers))

    def test_refused_is_a_connect_failure(self):
        self.server.shutdown()
        self.server.server_close()
        lane = direct_get.DirectLane('placement', self.url + '/placement',
                                     {}, _session(), self.connections)
        self.assertRaises(ks_exc.ConnectFailure, lane.get, '/x')


class TestMicroversionHeaders(base.BaseTestCase):

    def test_headers(self):
        self.assertEqual({}, direct_get.microversion_headers('compute', None))
        self.assertEqual({'OpenStack-API-Version': 'placement 1.29'},
                         direct_get.microversion_headers('placement', '1.29'))


class TestCloudClientLanes(base.TestCase):

    def setUp(self):
        super().setUp()
        self.connection = mock.Mock()
        self.connection.session = _session()
        self.connection.session.timeout = 60
        self.connection.session.verify = True
        self.connection.session.cert = None
        self.proxy = self.connection.placement
        self.proxy.endpoint_override = 'http://placement.test/'
        self.proxy.get.return_value = mock.Mock(
            status_code=200, json=lambda: {'via': 'sdk'},
            request=mock.Mock(headers={}))
        self.client = openstack.CloudClient(self.connection)
        self.answers = []
        self.useFixture(fixtures.MockPatchObject(
            direct_get.DirectLane, 'get', side_effect=self.lane_get))

    def lane_get(self, path, microversion=None, params=None):
        return self.answers.pop(0)

    def test_first_call_through_the_sdk_then_direct(self):
        self.answers = [direct_get.Answer(200, b'{"via": "lane"}'), None]
        self.assertEqual({'via': 'sdk'}, self.client.get('placement', '/a'))
        self.assertEqual({'via': 'lane'}, self.client.get('placement', '/b'))
        # A 401 on the lane: the SDK renews the token.
        self.assertEqual({'via': 'sdk'}, self.client.get('placement', '/c'))
        self.assertEqual(['/a', '/c'], [c.args[0] for c in
                                        self.proxy.get.call_args_list])
        self.assertEqual(3, self.client.call_count)

    def test_lane_errors_are_cloud_errors(self):
        self.client.get('placement', '/a')
        self.answers = [direct_get.Answer(500, b'broken')]
        error = self.assertRaises(openstack.CloudError, self.client.get,
                                  'placement', '/b')
        self.assertEqual(500, error.status)
        self.assertIn('answered 500: broken', str(error))
