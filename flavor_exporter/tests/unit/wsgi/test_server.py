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
"""The API's server: threads in one epoll, and the bounds on clients."""

import concurrent.futures
import datetime
import http.client
import json
import logging
import re
import resource
import socket
import threading
import time
from unittest import mock

from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.tests.unit.api import base
from flavor_exporter.tests.unit.api import test_pipeline
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


def echo_app(environ, start_response):
    body = ('%s %s' % (environ['REQUEST_METHOD'],
                       environ['PATH_INFO'])).encode()
    extra = environ['wsgi.input'].read()
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [body + (b' ' + extra if extra else b'')]


def read_all(sock):
    """Everything until the server closes (b'' if it closed at once)."""
    data = b''
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def read_answer(sock):
    """One answer with a Content-Length, on a connection kept open."""
    data = b''
    while b'\r\n\r\n' not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b'\r\n\r\n')
    length = int(head.split(b'Content-Length: ')[1].split(b'\r\n')[0])
    body = bytearray(body)
    while len(body) < length:
        body += sock.recv(1 << 20)
    return head + b'\r\n\r\n' + body


def wait_for(condition, timeout=10):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError('still not so after %ss' % timeout)
        time.sleep(0.01)


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
        # An id, as every answer of the API has, and the log line's.
        self.assertRegex(head, rb'\r\nX-OpenStack-Request-ID: req-[0-9a-f]{8}'
                               rb'-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-'
                               rb'[0-9a-f]{12}(\r\n|$)')

    def test_a_failed_application_answered_and_logged_with_an_id(self):
        def failing(environ, start_response):
            raise RuntimeError('boom')

        logs = test_pipeline.LogCapture(self.conf)
        logger = logging.getLogger('flavor_exporter.wsgi.connection')
        logger.addHandler(logs)
        self.addCleanup(logger.removeHandler, logs)
        srv = self.serve(failing)
        with socket.create_connection(('127.0.0.1', srv.port), 5) as client:
            client.sendall(b'GET /x HTTP/1.1\r\n\r\n')
            answer = b''
            while chunk := client.recv(65536):
                answer += chunk
        self.assertTrue(answer.startswith(b'HTTP/1.1 500 '), answer)
        answered = re.search(rb'X-OpenStack-Request-ID: (req-[0-9a-f-]{36})',
                             answer).group(1).decode()
        lines = [line for line in logs.lines
                 if 'The API failed to answer GET /x' in line]
        self.assertIn(' %s ' % answered, lines[0])

    def test_stop_before_start(self):
        server.ThreadedServer(slow_app, '127.0.0.1', 0).stop()

    def serve(self, application, threads=4, **limits):
        srv = server.ThreadedServer(application, '127.0.0.1', 0,
                                    threads=threads,
                                    limits=server.Limits(**limits))
        srv.start()
        self.addCleanup(srv.stop)
        return srv

    def connect(self, srv):
        sock = socket.create_connection(('127.0.0.1', srv.port), 10)
        self.addCleanup(sock.close)
        return sock

    def test_keeps_connections_alive_and_answers_pipelined_requests(self):
        srv = self.serve(echo_app)
        connection = http.client.HTTPConnection('127.0.0.1', srv.port,
                                                timeout=10)
        self.addCleanup(connection.close)
        for path in ('/a', '/b'):
            connection.request('GET', path)
            response = connection.getresponse()
            self.assertEqual(b'GET ' + path.encode(), response.read())
        self.assertEqual(1, srv.connections)
        sock = self.connect(srv)
        sock.sendall(b'GET /1 HTTP/1.1\r\n\r\nHEAD /2 HTTP/1.1\r\n\r\n'
                     b'GET /3 HTTP/1.1\r\nConnection: close\r\n\r\n')
        answers = read_all(sock).split(b'HTTP/1.1 200 OK\r\n')[1:]
        self.assertEqual(3, len(answers))
        self.assertTrue(answers[0].endswith(b'\r\n\r\nGET /1'))
        # HEAD: the length of the body it would have, and no body.
        self.assertIn(b'Content-Length: 7\r\n', answers[1])
        self.assertTrue(answers[1].endswith(b'\r\n\r\n'))
        self.assertIn(b'Connection: close', answers[2])

    def test_reads_bodies_whole_before_the_application(self):
        srv = self.serve(echo_app)
        sock = self.connect(srv)
        sock.sendall(b'POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n'
                     b'\r\n3\r\nabc\r\n')
        sock.sendall(b'2\r\nde\r\n0\r\n\r\n')
        self.assertTrue(read_answer(sock).endswith(b'POST /x abcde'))
        sock.sendall(b'POST /y HTTP/1.1\r\nContent-Length: 3\r\n'
                     b'Expect: 100-continue\r\n\r\n')
        self.assertEqual(b'HTTP/1.1 100 Continue\r\n\r\n',
                         sock.recv(25))
        sock.sendall(b'xyz')
        self.assertTrue(read_answer(sock).endswith(b'POST /y xyz'))

    def test_a_head_that_arrives_in_pieces(self):
        srv = self.serve(echo_app)
        sock = self.connect(srv)
        # The blank line that ends the head is split too.
        for piece in (b'\r\nGET /pie', b'ces HTTP/1.1\r\nHost: x\r\n\r',
                      b'\nGET /next HTTP/1.1\r', b'\n\r\n'):
            sock.sendall(piece)
            time.sleep(0.05)
        answers = b''
        while not answers.endswith(b'GET /next'):
            answers += sock.recv(65536)
        self.assertEqual(2, answers.count(b'HTTP/1.1 200 OK\r\n'))
        self.assertIn(b'\r\n\r\nGET /piecesHTTP/1.1 200 OK\r\n', answers)

    def test_an_application_error_is_a_json_500(self):
        def failing(environ, start_response):
            raise ValueError('boom')

        srv = self.serve(failing)
        status, body = get(srv.port, '/')
        self.assertEqual(500, status)
        self.assertEqual(500, json.loads(body)['error']['code'])

    def test_incomplete_requests_time_out_with_a_json_408(self):
        srv = self.serve(echo_app, request_timeout=0.2)
        slow = self.connect(srv)
        slow.sendall(b'GET / HTTP/1.1\r\nHost: x')
        silent = self.connect(srv)
        answer = read_all(slow)
        self.assertTrue(answer.startswith(b'HTTP/1.0 408 '), answer)
        self.assertEqual(408, json.loads(
            answer.partition(b'\r\n\r\n')[2])['error']['code'])
        # A connection that never sends a request is closed too.
        self.assertEqual(b'', read_all(silent))
        self.assertEqual(0, srv.connections)

    def test_idle_kept_alive_connections_are_closed(self):
        srv = self.serve(echo_app, keepalive_timeout=0.2)
        sock = self.connect(srv)
        sock.sendall(b'GET /x HTTP/1.1\r\n\r\n')
        self.assertTrue(read_answer(sock).endswith(b'GET /x'))
        self.assertEqual(b'', read_all(sock))

    def test_a_new_connection_sheds_the_idlest_then_the_slowest(self):
        srv = self.serve(echo_app, max_connections=3)
        idle = self.connect(srv)
        idle.sendall(b'GET /idle HTTP/1.1\r\n\r\n')
        read_answer(idle)
        slowest = self.connect(srv)
        slowest.sendall(b'GET /slowest HTTP/1.1\r\n')
        slow = self.connect(srv)
        slow.sendall(b'GET /slow HTTP/1.1\r\n')
        wait_for(lambda: srv.connections == 3)
        self.assertEqual((200, b'GET /new'), get(srv.port, '/new'))
        self.assertEqual(b'', read_all(idle))
        # No idle connection left, once /new's is closed.
        wait_for(lambda: srv.connections == 2)
        self.connect(srv).sendall(b'GET /slower HTTP/1.1\r\n')
        wait_for(lambda: srv.connections == 3)
        self.assertEqual((200, b'GET /newer'), get(srv.port, '/newer'))
        answer = read_all(slowest)
        self.assertTrue(answer.startswith(b'HTTP/1.0 503 '), answer)
        self.assertIn(b'application/json', answer)
        slow.sendall(b'\r\n')
        self.assertTrue(read_answer(slow).endswith(b'GET /slow'))

    def test_a_client_that_does_not_read_holds_no_thread(self):
        big = b'x' * (16 << 20)

        def app(environ, start_response):
            start_response('200 OK', [])
            return [big if environ['PATH_INFO'] == '/big' else b'small']

        srv = self.serve(app, threads=1)
        sock = self.connect(srv)
        sock.sendall(b'GET /big HTTP/1.1\r\n\r\n')
        self.assertEqual((200, b'small'), get(srv.port, '/small'))
        self.assertEqual(len(big), len(read_answer(sock).partition(
            b'\r\n\r\n')[2]))

    def test_more_idle_connections_than_waitress_allowed(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < 2500:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 2500),
                                                        hard))
            self.addCleanup(resource.setrlimit, resource.RLIMIT_NOFILE,
                            (soft, hard))
        srv = self.serve(echo_app, threads=2)
        idle = [self.connect(srv) for _ in range(1100)]
        wait_for(lambda: srv.connections == len(idle))
        self.assertEqual((200, b'GET /x'), get(srv.port, '/x'))

    def test_stop_finishes_running_requests(self):
        started = threading.Event()

        def app(environ, start_response):
            started.set()
            time.sleep(0.3)
            start_response('200 OK', [])
            return [b'finished']

        srv = self.serve(app)
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            answer = pool.submit(get, srv.port, '/')
            self.assertTrue(started.wait(10))
            srv.stop()
            self.assertEqual((200, b'finished'), answer.result())

    def test_a_lower_open_file_limit_bounds_connections(self):
        with mock.patch.object(server, '_allow_files', return_value=1280), \
                mock.patch.object(server.LOG, 'warning') as warning:
            srv = self.serve(echo_app, max_connections=5000)
        self.assertEqual(1024, srv._max_connections)
        self.assertIn('LimitNOFILE', warning.call_args[0][0])


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
