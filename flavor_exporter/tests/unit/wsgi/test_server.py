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
"""The in-process threaded server of flavor-exporter-all."""

import concurrent.futures
import datetime
import http.client
import json
import socket
import threading
import time
from unittest import mock

from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.tests.unit.api import base
from flavor_exporter.wsgi import port
from flavor_exporter.wsgi import server


def get(port, path):
    connection = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
    try:
        connection.request('GET', path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def slow_app(environ, start_response):
    time.sleep(0.2)
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [environ['PATH_INFO'].encode()]


class TestThreadedServer(base.ApiTestCase):

    def test_serves_concurrently_and_stops(self):
        # Eight requests that each wait for all eight to be in the
        # application: served one after the other, none would ever pass.
        together = threading.Barrier(8)

        def app(environ, start_response):
            try:
                together.wait(timeout=8)
            except threading.BrokenBarrierError:
                start_response('500 Internal Server Error', [])
                return [b'not concurrent']
            start_response('200 OK', [('Content-Type', 'text/plain')])
            return [environ['PATH_INFO'].encode()]

        srv = server.ThreadedServer(app, '127.0.0.1', 0, threads=8)
        srv.start()
        self.addCleanup(srv.stop)
        port = srv.port
        self.assertIsInstance(port, int)
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            results = list(pool.map(lambda i: get(port, '/%d' % i),
                                    range(8)))
        self.assertEqual([(200, b'/%d' % i) for i in range(8)], results)
        srv.stop()
        self.assertRaises(OSError, socket.create_connection,
                          ('127.0.0.1', port), 1)

    def test_bind_error_raised_by_start(self):
        taken = socket.socket()
        self.addCleanup(taken.close)
        taken.bind(('127.0.0.1', 0))
        taken.listen()
        srv = server.ThreadedServer(slow_app, '127.0.0.1',
                                    taken.getsockname()[1])
        self.assertRaises(OSError, srv.start)

    def test_serves_on_a_given_socket_and_answers_malformed_in_json(self):
        sock = port.listen('127.0.0.1', 0, 16)
        self.addCleanup(sock.close)
        srv = server.ThreadedServer(slow_app, '127.0.0.1', 1, sockets=[sock])
        srv.start()
        self.addCleanup(srv.stop)
        self.assertEqual(sock.getsockname()[1], srv.port)
        self.assertEqual((200, b'/x'), get(srv.port, '/x'))
        with socket.create_connection(('127.0.0.1', srv.port), 5) as client:
            client.sendall(b'\x00 not HTTP\r\n\r\n')
            answer = b''
            while chunk := client.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b'\r\n\r\n')
        self.assertTrue(head.startswith(b'HTTP/1.0 400 '), head)
        self.assertIn(b'Content-Type: application/json', head)
        self.assertEqual(400, json.loads(body)['error']['code'])

    def test_stop_before_start(self):
        server.ThreadedServer(slow_app, '127.0.0.1', 0).stop()


class TestApiService(base.ApiTestCase):

    def test_serves_the_shared_memory_store(self):
        self.flags(group='api', port=0, threads=4)
        # The memory backend is one per process: a prefix of this test's.
        self.flags(group='document_cache', backend='memory',
                   key_prefix=self.id())
        service = server.ApiService(self.conf)
        with mock.patch.object(server.LOG, 'info') as info:
            service.start()
        self.addCleanup(service.stop)
        # The port is a number (%d in the log line).
        self.assertIn('%d', info.call_args[0][0])
        self.assertIsInstance(info.call_args[0][2], int)
        status, body = get(service.port, '/gpus/flavors')
        self.assertEqual(503, status)
        # What the worker of flavor-exporter-all does, in the same process.
        shared = publisher.Publisher.from_conf(self.conf)
        self.assertIs(cache._MEMORY, shared._backend)
        docs, pointer = sample.documents()
        pointer = shared.publish(docs, pointer, datetime.datetime.now(
            datetime.timezone.utc))
        status, body = get(service.port, '/gpus/flavors')
        self.assertEqual(
            (200, shared.reader.document(pointer, pub.LEGACY_LIST)),
            (status, body))
        service.stop()
        service.wait()
