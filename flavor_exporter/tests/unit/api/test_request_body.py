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
"""Request bodies: a deadline, no thread others need, nesting limits.

Issue 38, items 1 and 3. The reader thread's side is tested with a
wsgi.input that blocks as granian's does when a client stops sending;
the served API with real slow clients is tests/functional/
test_slow_bodies.py.
"""

import io
import json
import threading

from flavor_exporter.api import body_reader
from flavor_exporter.api.middleware import request_body
from flavor_exporter.publication import checks as check_docs
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.api import base as api_base


class Stalled:
    """A wsgi.input whose client sent part of its body, then nothing."""

    def __init__(self, data=b''):
        self.data = data
        self.more = threading.Event()
        self.reading = threading.Event()

    def read(self, size=None):
        self.reading.set()
        self.more.wait(30)
        return self.data


class TestUnboundedReads(base.BaseTestCase):
    """granian's wsgi.input: only spare threads start a read."""

    def setUp(self):
        super().setUp()
        self.reader = body_reader.BodyReader(
            0.3, threads=2, unbounded=lambda source: True)
        self.stalled = []
        self.addCleanup(self._release)

    def _release(self):
        for source in self.stalled:
            source.more.set()

    def environ(self, source, address='192.0.2.1'):
        if isinstance(source, Stalled):
            self.stalled.append(source)
        return {'wsgi.input': source, 'REMOTE_ADDR': address}

    def stall(self, address):
        """A thread reading a stalled body of address; (thread, source)."""
        source = Stalled(b'late')
        thread = threading.Thread(target=self.reader.read, args=(
            self.environ(source, address), 10))
        thread.start()
        self.assertTrue(source.reading.wait(30))
        return thread, source

    def test_a_body_that_is_there(self):
        self.assertEqual(b'{"a": 1}', self.reader.read(
            self.environ(io.BytesIO(b'{"a": 1}')), 8))

    def test_the_last_thread_never_reads(self):
        # [api] threads = 2: one request reads a stalled body; another
        # body, of any client, is refused without being read, so that the
        # other thread stays free for everyone.
        thread, source = self.stall('192.0.2.1')
        for address in ('192.0.2.1', '192.0.2.2'):
            other = Stalled()
            busy = self.assertRaises(body_reader.Busy, self.reader.read,
                                     self.environ(other, address), 10)
            self.assertEqual(1, busy.retry_after)
            self.assertFalse(other.reading.is_set())
        # The client sends the rest: its thread, and the slot, are back.
        source.more.set()
        thread.join()
        self.assertEqual(b'x', self.reader.read(
            self.environ(io.BytesIO(b'x'), '192.0.2.2'), 1))

    def test_one_per_client(self):
        reader = body_reader.BodyReader(5, threads=4,
                                        unbounded=lambda source: True)
        self.reader = reader
        self.stall('192.0.2.1')
        self.assertRaises(body_reader.Busy, reader.read,
                          self.environ(Stalled(), '192.0.2.1'), 10)
        self.stall('192.0.2.2')

    def test_one_thread_reads_all_the_same(self):
        reader = body_reader.BodyReader(5, threads=1,
                                        unbounded=lambda source: True)
        self.assertEqual(b'x', reader.read(
            self.environ(io.BytesIO(b'x')), 1))


class TestInPlace(base.BaseTestCase):
    """uWSGI's, mod_wsgi's, webtest's wsgi.input: read a piece at a time."""

    def test_pieces_and_deadline(self):
        # uWSGI: read within [api] body_timeout or 408.
        now = [0.0]

        class Trickle(io.BytesIO):
            def read(self, size=-1):
                now[0] += 1
                return super().read(min(size, 100))

        reader = body_reader.BodyReader(5, threads=2, clock=lambda: now[0])
        self.assertEqual(b'a' * 300, reader.read(
            {'wsgi.input': Trickle(b'a' * 300)}, 300))
        self.assertRaises(body_reader.TimedOut, reader.read,
                          {'wsgi.input': Trickle(b'a' * 900)}, 900)

    def test_a_server_timeout(self):
        class Timeout:
            def read(self, size):
                raise OSError('timeout during read(8192) on wsgi.input')

        self.assertRaises(body_reader.TimedOut,
                          body_reader.BodyReader(5, 2).read,
                          {'wsgi.input': Timeout()}, 10)


class TestTheAnswers(api_base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.publish()

    def app_with(self, error):
        def fail(environ, size):
            raise error
        app = request_body.RequestBody(self.app.app, 7, 2)
        app._reader.read = fail
        return app

    def call(self, app, source=None):
        answer = {}

        def start_response(status, headers, exc_info=None):
            answer.update(status=status, headers=dict(headers))
        body = b''.join(app({'REQUEST_METHOD': 'POST',
                             'PATH_INFO': '/v3/checks',
                             'CONTENT_LENGTH': '60000',
                             'CONTENT_TYPE': 'application/json',
                             'wsgi.input': source or io.BytesIO()},
                            start_response))
        return answer, json.loads(body)

    def test_408(self):
        answer, body = self.call(self.app_with(body_reader.TimedOut()))
        self.assertEqual('408 Request Timeout', answer['status'])
        self.assertEqual('close', answer['headers']['Connection'])
        self.assertEqual({'error': {'code': 408, 'message':
                                    'The request body did not arrive '
                                    'within 7 seconds.'}}, body)

    def test_503(self):
        answer, body = self.call(self.app_with(body_reader.Busy(7)))
        self.assertEqual('503 Service Unavailable', answer['status'])
        self.assertEqual('7', answer['headers']['Retry-After'])
        self.assertEqual(503, body['error']['code'])

    def test_408_served_with_its_request_id(self):
        # Through the whole pipeline: a body the in-place reader never
        # finishes in time.
        self.flags(group='api', body_timeout=0.1)
        self._app = None

        class Slow(io.BytesIO):
            def read(self, size=-1):
                threading.Event().wait(0.05)
                return super().read(min(size, 10))

        answer, body = self.call(self.app.app, Slow(b'{"servers": [' +
                                                    b' ' * 2000 + b']}'))
        self.assertEqual('408 Request Timeout', answer['status'])
        self.assertEqual(408, body['error']['code'])
        self.assertTrue(answer['headers']['X-OpenStack-Request-ID'])


class TestNesting(api_base.ApiTestCase):
    """Issue 38, item 3: deep JSON is a 400 naming the limit, not a 500."""

    def setUp(self):
        super().setUp()
        self.flags(group='checks', wait=5)
        self.publish()

    def post_raw(self, data, status, content_type='application/json'):
        return self.app.post('/v3/checks', data, status=status,
                             content_type=content_type)

    def test_deep_bodies(self):
        deep = b'[' * 1000 + b']' * 1000
        for data in (deep, b'{"servers": ' + deep + b'}',
                     b'{"a": ' * 40 + b'1' + b'}' * 40):
            response = self.post_raw(data, 400)
            self.assertJsonError(response, 400, check_docs.TOO_DEEP)
            self.assertIn('32 levels', response.json['error']['message'])
        # No type: the route reads it as JSON all the same.
        self.assertJsonError(self.post_raw(deep, 400, content_type=''),
                             400, check_docs.TOO_DEEP)

    def test_within_the_limit(self):
        # 32 levels: decoded, then refused by the contract, not the depth.
        data = b'{"servers": [' + b'[' * 30 + b']' * 30 + b']}'
        response = self.post_raw(data, 400)
        self.assertNotIn('levels', response.json['error']['message'])
        self.assertIn('servers[0] must be an object',
                      response.json['error']['message'])

    def test_brackets_in_strings_do_not_count(self):
        name = '[' * 200 + '\\"{' * 40
        response = self.post_raw(json.dumps(
            {'servers': [{'flavor': name}]}).encode(), 400)
        self.assertIn('at most 255 characters',
                      response.json['error']['message'])


class TestTooDeep(base.BaseTestCase):

    def test_counting(self):
        too_deep = request_body.too_deep
        self.assertFalse(too_deep(b'[[[]]]', 3))
        self.assertTrue(too_deep(b'[[[[]]]]', 3))
        self.assertFalse(too_deep(b'[[], [], [], [], []]', 2))
        self.assertFalse(too_deep(b'["[[[[", "\\"[[[["]', 2))
        self.assertTrue(too_deep(b'["\\\\", [[[]]]]', 3))

    def test_unterminated_strings_are_linear(self):
        # One pattern for strings with escapes backtracks quadratically
        # on this: seconds of CPU for 64 KiB.
        body = b'["\\' * 21000
        self.assertIsInstance(request_body.too_deep(body, 32), bool)
