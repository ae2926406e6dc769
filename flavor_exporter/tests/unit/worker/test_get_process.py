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
"""get_process and CloudClient.get_many: real child processes, a real
HTTP/1.1 server on loopback."""

import http.server
import os
import signal
import threading
from unittest import mock

import fixtures

from flavor_exporter.tests import base
from flavor_exporter.worker import get_process
from flavor_exporter.worker import openstack


class _Handler(http.server.BaseHTTPRequestHandler):
    """GET /<status>/<body>: answers status with body; /hold/... waits."""

    protocol_version = 'HTTP/1.1'

    def do_GET(self):
        _, status, body = self.path.split('/', 2)
        if status == 'hold':
            self.server.held.set()
            self.server.release.wait(30)
            status = '200'
        self.server.seen.append(self.headers.get('X-Auth-Token'))
        data = body.encode()
        self.send_response(int(status))
        if status.startswith('3'):
            self.send_header('Location', '/200/moved')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class _ServerTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        for name in ('http_proxy', 'https_proxy', 'all_proxy', 'no_proxy',
                     'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY'):
            self.useFixture(fixtures.EnvironmentVariable(name))
        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      _Handler)
        self.server.daemon_threads = True
        self.server.seen = []
        self.server.held = threading.Event()
        self.server.release = threading.Event()
        thread = threading.Thread(target=self.server.serve_forever,
                                  args=(0.05,))
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(self.server.shutdown)
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.release.set)
        self.url = 'http://127.0.0.1:%d' % self.server.server_port
        self.spec = {'timeout': 10, 'tls': {'cert_reqs': 'CERT_NONE'},
                     'headers': {'X-Auth-Token': 'tok'}}


class TestShare(_ServerTestCase):

    def test_answers_in_order(self):
        paths = ['/200/{"n":%d}' % i for i in range(20)] + [
            '/500/broken', '/404/gone']
        share = get_process.Share(self.spec, [self.url + p for p in paths],
                                  3)
        self.assertNotEqual(os.getpid(), share.pid)
        answers = share.answers()
        self.assertEqual([(200, b'{"n":%d}' % i) for i in range(20)]
                         + [(500, b'broken'), (404, b'gone')], answers)
        self.assertEqual(['tok'] * 22, self.server.seen)
        self.assertGreater(share.cpu_seconds, 0)

    def test_what_the_usual_path_must_send_is_none(self):
        with socket_closed() as refused:
            share = get_process.Share(self.spec, [
                self.url + '/401/no', self.url + '/307/there',
                refused + '/200/x', self.url + '/200/ok'], 2)
            self.assertEqual([None, None, None, (200, b'ok')],
                             share.answers())

    def test_a_child_that_dies_fails_the_batch(self):
        share = get_process.Share(self.spec, [self.url + '/hold/x'], 1)
        self.assertTrue(self.server.held.wait(30))
        os.kill(share.pid, signal.SIGKILL)
        error = self.assertRaises(get_process.ProcessFailed, share.answers)
        self.assertEqual('the process sending 1 of the GETs ended without '
                         'answering (exit code -9)', str(error))


class socket_closed:
    """A loopback URL nothing listens on."""

    def __enter__(self):
        import socket
        with socket.socket() as sock:
            sock.bind(('127.0.0.1', 0))
            return 'http://127.0.0.1:%d' % sock.getsockname()[1]

    def __exit__(self, *exc):
        return False


class TestChildShare(base.BaseTestCase):

    def test_only_large_batches_with_a_second_cpu(self):
        with mock.patch.object(get_process, 'usable_cpus', return_value=2):
            self.assertEqual((0, 0), get_process.child_share(999, 8))
            self.assertEqual((500, 4), get_process.child_share(1000, 8))
            self.assertEqual((0, 0), get_process.child_share(5000, 1))
        with mock.patch.object(get_process, 'usable_cpus', return_value=1):
            self.assertEqual((0, 0), get_process.child_share(5000, 8))


class TestGetMany(_ServerTestCase):
    """CloudClient.get_many with its lane on the loopback server."""

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.MockPatchObject(get_process, 'MIN_BATCH',
                                                 4))
        self.useFixture(fixtures.MockPatchObject(
            get_process, 'usable_cpus', return_value=2))
        connection = mock.Mock()
        session = connection.session
        session.session = mock.Mock(proxies={})
        session.get_auth_headers.return_value = {'X-Auth-Token': 'tok'}
        session.timeout, session.verify, session.cert = 10, False, None
        self.sdk = connection.placement
        self.sdk.endpoint_override = self.url
        self.sdk.get.return_value = mock.Mock(
            status_code=200, json=lambda: {'via': 'sdk'},
            request=mock.Mock(headers={}))
        self.client = openstack.CloudClient(connection, max_concurrency=4)
        # The first call makes the lane, as a refresh's listing does.
        self.client.get('placement', '/first')

    def test_same_answers_as_one_by_one(self):
        # The child sends the first 6 of the 13, the 401 among them.
        paths = ['/401/renew', '/500/broken', '/200/notjson'] + [
            '/200/{"n":%d}' % i for i in range(10)]
        got = self.client.get_many('placement', paths)
        # The 401 went again the usual way (keystoneauth renews).
        self.assertEqual({'via': 'sdk'}, got[0])
        self.assertEqual('/401/renew', self.sdk.get.call_args[0][0])
        self.assertEqual(500, got[1].status)
        self.assertIn('answered 500: broken', str(got[1]))
        self.assertIn('invalid JSON', str(got[2]))
        self.assertEqual(200, got[2].status)
        self.assertEqual([{'n': i} for i in range(10)], got[3:])
        # Every GET counted, the 401 twice (child, then usual path).
        self.assertEqual(1 + 13 + 1, self.client.call_count)
        self.assertGreater(self.client.child_cpu_seconds, 0)
        # The child's share answered as the parent answers it alone.
        for path, batch in zip(paths[3:6], got[3:6]):
            self.assertEqual(batch, self.client.get('placement', path))

    def test_a_child_that_dies_fails_the_batch(self):
        started = []
        real_start = get_process.start

        def start(*args):
            share = real_start(*args)
            started.append(share)
            return share

        def kill_when_held():
            self.assertTrue(self.server.held.wait(30))
            os.kill(started[0].pid, signal.SIGKILL)

        self.useFixture(fixtures.MockPatchObject(get_process, 'start',
                                                 side_effect=start))
        killer = threading.Thread(target=kill_when_held)
        killer.start()
        self.addCleanup(killer.join)
        error = self.assertRaises(
            openstack.CloudError, self.client.get_many, 'placement',
            ['/hold/a', '/200/b', '/200/c', '/200/d'])
        self.assertIsNone(error.status)
        self.assertIn('ended without answering', str(error))

    def test_no_child_possible_the_parent_sends_all(self):
        self.addCleanup(get_process._unavailable.clear)
        self.useFixture(fixtures.MockPatchObject(
            get_process, 'Share', side_effect=OSError('no python')))
        logged = self.useFixture(fixtures.FakeLogger())
        paths = ['/200/%d' % i for i in range(6)]
        self.assertEqual(list(range(6)),
                         self.client.get_many('placement', paths))
        self.assertEqual(list(range(6)),
                         self.client.get_many('placement', paths))
        self.assertEqual(1, logged.output.count('No second process'))
        self.assertEqual(0, self.client.child_cpu_seconds)
        self.assertEqual(13, self.client.call_count)
