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
"""Raw requests to both serving commands: every one gets an answer.

flavor-exporter-api and flavor-exporter-all receive, over plain sockets,
what clients and scanners send: oversized request lines, queries and
headers, bytes that are not UTF-8, HTTP/0.9, empty path segments, other
methods, slow senders, and the classic parser cases of request smuggling.
Each request gets a well-formed HTTP response: JSON where the API
answers, granian's own 400 (no body, connection closed) for what is not
HTTP/1.1 it can parse. A taken port stops each command with one line
before anything else starts.
"""

import json
import resource
import socket
import subprocess
import time

from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests.functional import test_commands
from flavor_exporter.tests import sample_cloud
from testcloud import loopback


def raw_bytes(port, data, timeout=30):
    """All the server sends back for the bytes data, until it closes."""
    answer = b''
    with socket.create_connection(('127.0.0.1', port), timeout) as sock:
        try:
            sock.sendall(data)
        except BrokenPipeError:
            # The server answered and closed before reading all of it.
            pass
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:
            # Closed with unread request bytes: TCP resets the connection
            # after the answer.
            pass
    return answer


def raw(port, data, timeout=30):
    """The server's whole answer to the bytes data: (status, headers, body).

    status is None when the server closed the connection without a
    status line; header names are lower case.
    """
    answer = raw_bytes(port, data, timeout)
    head, _, body = answer.partition(b'\r\n\r\n')
    lines = head.decode('latin-1').split('\r\n')
    if not lines[0].startswith('HTTP/1.'):
        return None, {}, answer
    headers = dict(line.split(': ', 1) for line in lines[1:] if ': ' in line)
    return int(lines[0].split()[1]), {k.lower(): v for k, v in
                                      headers.items()}, body


def get(target, headers=b''):
    return b'GET %s HTTP/1.1\r\nHost: test\r\nConnection: close\r\n%s\r\n' % (
        target, headers)


#: (what is sent, status expected), each answered in JSON.
REQUESTS = [
    (get(b'/v3/flavors/?name=zzz&pad=' + b'a' * 40000), 414),
    (get(b'/v3/flavors/?' + b'&'.join(b'p%d=1' % i for i in range(5000))),
     414),
    (get(b'/v3/flavors/?' + b'&'.join(b'p%d=1' % i for i in range(500))),
     400),
    (get(b'/v3/flavors/' + b'a' * 60000), 414),
    (get(b'/v3/flavors/', b'X-Big: ' + b'a' * 70000 + b'\r\n'), 431),
    (get(b'/v3/flavors/', b'X-Huge: ' + b'a' * 300000 + b'\r\n'), 431),
    (get(b'/v3/flavors/%ff'), 400),
    (get(b'/docs/%ff'), 400),
    (get(b'/gpus/flavors/%C3%28'), 400),
    (get(b'/gpus/flavors//'), 404),
    (get(b'/v3/flavors//'), 404),
    (b'POST /healthcheck HTTP/1.0\r\nContent-Length: 0\r\n\r\n', 405),
    (b'DELETE /healthcheck HTTP/1.0\r\n\r\n', 405),
    (b'TRACE /healthcheck HTTP/1.0\r\n\r\n', 405),
]

#: What granian refuses itself, before the application: 400, no body, the
#: connection closed.
UNPARSABLE = [
    b'\x00\x01 not HTTP at all\r\n\r\n',
    # HTTP/0.9: no version.
    b'GET /v3/flavors/\r\n\r\n',
    # obs-fold: a header continued on the next line (RFC 9112 5.2).
    b'GET /v3/flavors/ HTTP/1.1\r\nHost: t\r\nX-A: a\r\n  b\r\n\r\n',
    # Whitespace between a field name and the colon (RFC 9112 5.1).
    b'GET /v3/flavors/ HTTP/1.1\r\nHost : t\r\n\r\n',
    # Two lengths that disagree (RFC 9112 6.3).
    b'POST /v3/flavors/ HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\n'
    b'Content-Length: 2\r\n\r\nab',
    b'GET /v3/flavors/ HTTP/2.5\r\nHost: t\r\n\r\n',
]

# The slow clients the issue that chose the server measured with.
CROWD = 3000


def closed(sock):
    """Whether the server closed sock (nothing to read means open)."""
    # Not blocking: a socket with a timeout waits for data before it
    # peeks.
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) == b''
    except BlockingIOError:
        return False
    except OSError:
        return True


def allow_files(count):
    """This process's open-file limit raised to count (for its clients)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(count, hard), hard))


class FrontEndMixin:
    """The checks; subclasses start one command on self.port."""

    # Configuration lines a test adds before start_serving().
    server_lines = ()

    def test_every_request_answered(self):
        self.start_serving()
        for request, expected in REQUESTS:
            status, headers, body = raw(self.port, request)
            what = request[:60]
            self.assertEqual(expected, status, what)
            self.assertEqual('application/json', headers['content-type'],
                             what)
            json.loads(body)
        for request in UNPARSABLE:
            status, headers, body = raw(self.port, request)
            self.assertEqual(400, status, request[:60])
            self.assertEqual('close', headers['connection'])
        # The API still answers after all of that.
        self.assertEqual(200, raw(self.port, get(b'/v3/flavors/'))[0])

    def test_the_classic_parser_cases(self):
        self.start_serving()
        # Content-Length with chunked: the chunked body wins, the answer
        # is the request's, and the connection is closed, so what follows
        # the chunked body is never read as a request of its own.
        smuggled = (b'GET /v3/flavors/ HTTP/1.1\r\nHost: t\r\n'
                    b'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n'
                    b'\r\n0\r\n\r\nGET /v3/ HTTP/1.1\r\nHost: t\r\n\r\n')
        answer = raw_bytes(self.port, smuggled)
        self.assertEqual(1, answer.count(b'HTTP/1.1 '), answer[:300])
        self.assertTrue(answer.startswith(b'HTTP/1.1 200 '))
        # Bare LF line endings (RFC 9112 2.2 lets a server accept them).
        status, _, body = raw(self.port, b'GET /v3/flavors/ HTTP/1.1\nHost: '
                                         b't\nConnection: close\n\n')
        self.assertEqual(200, status)
        self.assertTrue(json.loads(body)['flavors'])
        # A 70 KB header and a 20 KB request line: the API's JSON refusals.
        self.assertEqual(431, raw(self.port, get(
            b'/v3/flavors/', b'X-Big: ' + b'a' * 70000 + b'\r\n'))[0])
        self.assertEqual(414, raw(self.port, get(
            b'/v3/flavors/?pad=' + b'a' * 20000))[0])
        # HTTP/1.0 without Host: answered.
        status, _, body = raw(self.port, b'GET /v3/flavors/ HTTP/1.0\r\n\r\n')
        self.assertEqual(200, status)
        self.assertTrue(json.loads(body)['flavors'])
        # Pipelined requests: answered in order on the one connection.
        answer = raw_bytes(self.port, b'GET /v3/ HTTP/1.1\r\nHost: t\r\n\r\n'
                                      + get(b'/v3/flavors/?gpu=true'))
        first, second = answer.split(b'HTTP/1.1 ')[1:]
        self.assertTrue(first.startswith(b'200 '))
        self.assertIn(b'"version"', first)
        self.assertTrue(second.startswith(b'200 '))
        self.assertIn(b'"flavors"', second)

    def test_slow_clients_hold_nothing(self):
        self.start_serving()
        # More slow connections than the command has threads in all, each
        # sending half a request and then nothing.
        slow = []
        try:
            for _ in range(50):
                sock = socket.create_connection(('127.0.0.1', self.port), 30)
                sock.sendall(b'GET /v3/flavors/ HTTP/1.1\r\nHost: t')
                slow.append(sock)
            status, _, body = raw(self.port, get(b'/v3/flavors/?gpu=true'))
            self.assertEqual(200, status)
            self.assertTrue(json.loads(body)['flavors'])
        finally:
            for sock in slow:
                sock.close()

    def test_a_crowd_of_slow_clients_blocks_nobody(self):
        # More connections trickling their headers than waitress, which
        # the commands ran before, allowed per process (1,024): 2,200 of
        # them blocked it. They wait in epoll, not in threads.
        allow_files(CROWD + 256)
        self.server_lines = ['[api]', 'request_timeout = 60']
        self.start_serving()
        slow = []
        try:
            for _ in range(CROWD):
                sock = socket.create_connection(('127.0.0.1', self.port), 30)
                sock.sendall(b'GET /v3/flavors/ HTTP/1.1\r\nHost: t')
                slow.append(sock)
            status, _, body = raw(self.port, get(b'/v3/flavors/?gpu=true'))
            self.assertEqual(200, status)
            self.assertTrue(json.loads(body)['flavors'])
            # None of the crowd was dropped to make room.
            self.assertEqual([], [sock for sock in slow if closed(sock)])
        finally:
            for sock in slow:
                sock.close()

    def test_a_request_not_whole_in_time_is_closed(self):
        self.server_lines = ['[api]', 'request_timeout = 1']
        self.start_serving()
        started = time.monotonic()
        self.assertEqual(b'', raw_bytes(self.port, b'GET /v3/flavors/ '
                                                   b'HTTP/1.1\r\nHost: t'))
        self.assertLess(time.monotonic() - started, 20)
        self.assertEqual(200, raw(self.port, get(b'/v3/flavors/'))[0])

    def test_port_taken(self):
        taken = socket.socket()
        self.addCleanup(taken.close)
        taken.bind(('127.0.0.1', self.port))
        taken.listen()
        done = subprocess.run(
            fe_fixtures.console_script(self.command) +
            ['--config-file', self.config_file()], env=self.env(),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=120)
        self.assertEqual(1, done.returncode)
        self.assertEqual(['%s: cannot listen on 127.0.0.1:%d (Address already '
                          'in use); stop what uses the port or set [api] '
                          'port to another one.'
                          % (self.command, self.port)],
                         done.stderr.splitlines())
        # Before any refresh: nothing was published.
        self.assertIsNone(self.store.reader.current())


class TestApiCommand(FrontEndMixin, test_commands.CommandsTestCase):

    command = 'flavor-exporter-api'

    def config_file(self):
        return self.write_config(lines=self.server_lines)

    def start_serving(self):
        sample_cloud.publish(self.store, sample_cloud.many_flavors(20),
                             host_list=sample_cloud.many_hosts(4))
        self.start(self.command, self.config_file())
        loopback.wait_for_port(self.port, timeout=60)
        self.wait_for('/v3/flavors/')


class TestAllCommand(FrontEndMixin, test_commands.CommandsTestCase):

    command = 'flavor-exporter-all'

    def config_file(self):
        return self.write_config(lines=self.server_lines)

    def start_serving(self):
        self.start(self.command, self.config_file())
        loopback.wait_for_port(self.port, timeout=60)
        self.wait_for('/v3/flavors/', timeout=120)
