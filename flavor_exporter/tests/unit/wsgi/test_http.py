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
"""Requests as the API's server parses them: strict where it matters."""

import json

from flavor_exporter.tests import base
from flavor_exporter.wsgi import http
from flavor_exporter.wsgi import protocol_errors


def head(*lines):
    return b'\r\n'.join(lines)


class TestParseHead(base.BaseTestCase):

    def refused(self, data):
        error = self.assertRaises(http.BadRequest, http.parse_head, data)
        return error.code

    def test_a_plain_get(self):
        request = http.parse_head(head(
            b'GET /v3/flavors/?gpu=true HTTP/1.1', b'Host: api',
            b'X-Auth-Token:  abc '))
        self.assertEqual(('GET', '/v3/flavors/', 'gpu=true', 'HTTP/1.1'),
                         (request.method, request.path, request.query,
                          request.version))
        self.assertEqual([('HOST', 'api'), ('X-AUTH-TOKEN', 'abc')],
                         request.headers)
        self.assertTrue(request.keep_alive)
        self.assertFalse(request.has_body)

    def test_keep_alive(self):
        self.assertFalse(http.parse_head(head(
            b'GET / HTTP/1.1', b'Connection: close')).keep_alive)
        self.assertFalse(http.parse_head(b'GET / HTTP/1.0').keep_alive)
        self.assertTrue(http.parse_head(head(
            b'GET / HTTP/1.0', b'Connection: Keep-Alive')).keep_alive)

    def test_absolute_form_is_its_path(self):
        request = http.parse_head(b'GET http://api:8780/v3/status?x HTTP/1.1')
        self.assertEqual(('/v3/status', 'x'), (request.path, request.query))
        self.assertEqual('/', http.parse_head(
            b'GET http://api HTTP/1.1').path)

    def test_malformed_request_lines(self):
        for line in (b'\x00\x01 not HTTP at all', b'GET /v3/flavors/',
                     b'GET  / HTTP/1.1', b'G(T / HTTP/1.1',
                     b'GET / FTP/1.0', b'GET v2/flavors HTTP/1.1',
                     b'GET * HTTP/1.1'):
            self.assertEqual(400, self.refused(line), line)
        self.assertEqual(505, self.refused(b'GET / HTTP/2.0'))

    def test_malformed_headers(self):
        for line in (b'No colon', b'Space : before', b' folded: line',
                     b'\tfolded: line', b'X-Nul: a\x00b', b': no name'):
            self.assertEqual(400, self.refused(head(b'GET / HTTP/1.1', line)),
                             line)

    def test_framing_that_could_smuggle_a_request_is_refused(self):
        self.assertEqual(400, self.refused(head(
            b'POST / HTTP/1.1', b'Content-Length: 3',
            b'Transfer-Encoding: chunked')))
        self.assertEqual(400, self.refused(head(
            b'POST / HTTP/1.1', b'Content-Length: 3', b'Content-Length: 4')))
        for value in (b'-1', b'+3', b'0x3', b'3 4', b'\xb2'):
            self.assertEqual(400, self.refused(head(
                b'POST / HTTP/1.1', b'Content-Length: ' + value)), value)
        self.assertEqual(501, self.refused(head(
            b'POST / HTTP/1.1', b'Transfer-Encoding: gzip, chunked')))
        self.assertEqual(400, self.refused(head(
            b'POST / HTTP/1.0', b'Transfer-Encoding: chunked')))
        self.assertEqual(413, self.refused(head(
            b'POST / HTTP/1.1', b'Content-Length: %d'
            % (http.MAX_BODY_BYTES + 1))))

    def test_body_framing(self):
        request = http.parse_head(head(
            b'POST / HTTP/1.1', b'Content-Length: 3', b'Content-Length: 3',
            b'Expect: 100-continue'))
        self.assertEqual((3, False, True), (request.length, request.chunked,
                                            request.expect_continue))
        request = http.parse_head(head(
            b'POST / HTTP/1.1', b'Transfer-Encoding: Chunked'))
        self.assertTrue(request.chunked)
        self.assertTrue(request.has_body)

    def test_head_too_large(self):
        self.assertEqual(414, http.head_too_large(
            b'GET /' + b'a' * http.MAX_HEAD_BYTES).code)
        self.assertEqual(431, http.head_too_large(
            b'GET / HTTP/1.1\r\nX: ' + b'a' * http.MAX_HEAD_BYTES).code)


class TestChunkedBody(base.BaseTestCase):

    def test_whole_and_partial(self):
        data = (b'xx4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\n'
                b'Trailer: t\r\n\r\nNEXT')
        self.assertEqual((b'Wikipedia', len(data) - 4),
                         http.chunked_body(data, 2))
        for cut in range(2, len(data) - 4):
            self.assertIsNone(http.chunked_body(data[:cut], 2), cut)

    def test_malformed(self):
        for data in (b'z\r\n', b'4\r\nWikipedia\r\n', b'1' * 2000):
            error = self.assertRaises(http.BadRequest, http.chunked_body,
                                      data, 0)
            self.assertEqual(400, error.code, data[:20])

    def test_too_large(self):
        error = self.assertRaises(http.BadRequest, http.chunked_body,
                                  b'%x\r\n' % (http.MAX_BODY_BYTES + 1), 0)
        self.assertEqual(413, error.code)
        error = self.assertRaises(http.BadRequest, http.chunked_body,
                                  b'1\r\na\r\n' * (http.MAX_CHUNKS + 2), 0)
        self.assertEqual(413, error.code)


class TestEnviron(base.BaseTestCase):

    def test_pep_3333(self):
        request = http.parse_head(head(
            b'POST /v3/fl%C3%A9vors/%2F?a=%20b HTTP/1.1', b'Host: api:8780',
            b'Content-Type: text/plain', b'Content-Length: 2',
            b'X-Auth-Token: t', b'X_Auth_Token: spoofed', b'Accept: a',
            b'Accept: b'))
        env = http.environ(request, b'hi', ('127.0.0.1', 8780),
                           ('10.0.0.1', 4242))
        self.assertEqual('/v3/fl\xc3\xa9vors//', env['PATH_INFO'])
        self.assertEqual('a=%20b', env['QUERY_STRING'])
        self.assertEqual('/v3/fl%C3%A9vors/%2F?a=%20b', env['REQUEST_URI'])
        self.assertEqual(('text/plain', '2'), (env['CONTENT_TYPE'],
                                               env['CONTENT_LENGTH']))
        # The underscore spelling cannot pass for the real header.
        self.assertEqual('t', env['HTTP_X_AUTH_TOKEN'])
        self.assertEqual('a,b', env['HTTP_ACCEPT'])
        self.assertNotIn('HTTP_CONTENT_TYPE', env)
        self.assertEqual(b'hi', env['wsgi.input'].read())
        self.assertEqual(('8780', '10.0.0.1', '4242'), (
            env['SERVER_PORT'], env['REMOTE_ADDR'], env['REMOTE_PORT']))


class TestResponse(base.BaseTestCase):

    def split(self, data):
        if isinstance(data, tuple):
            data = b''.join(data)
        head, _, body = data.partition(b'\r\n\r\n')
        lines = head.decode().split('\r\n')
        return lines[0], dict(line.split(': ', 1) for line in lines[1:]), body

    def test_framing_is_the_servers(self):
        status, headers, body = self.split(http.response(
            'HTTP/1.1', '200 OK',
            [('Content-Type', 'application/json'), ('Content-Length', '99'),
             ('Connection', 'upgrade'), ('Transfer-Encoding', 'chunked')],
            b'{}', keep_alive=True))
        self.assertEqual('HTTP/1.1 200 OK', status)
        self.assertEqual('2', headers['Content-Length'])
        self.assertNotIn('Connection', headers)
        self.assertNotIn('Transfer-Encoding', headers)
        self.assertIn('Date', headers)
        self.assertEqual(b'{}', body)

    def test_head_keeps_the_applications_length_and_sends_no_body(self):
        data = http.response('HTTP/1.0', '200 OK', [('Content-Length', '41')],
                             b'', keep_alive=True, head_only=True)
        status, headers, body = self.split(data)
        self.assertEqual(('41', 'keep-alive', b''), (
            headers['Content-Length'], headers['Connection'], body))

    def test_no_body_statuses(self):
        status, headers, body = self.split(http.response(
            'HTTP/1.1', '304 Not Modified', [('ETag', '"x"')], b'ignored',
            keep_alive=False))
        self.assertNotIn('Content-Length', headers)
        self.assertEqual(('close', b''), (headers['Connection'], body))

    def test_json_errors(self):
        status, headers, body = self.split(protocol_errors.answer(
            431, 'Too large.', 'HTTP/1.1'))
        self.assertEqual('HTTP/1.1 431 Request Header Fields Too Large',
                         status)
        self.assertEqual(('application/json', 'close'), (
            headers['Content-Type'], headers['Connection']))
        self.assertEqual({'error': {'code': 431, 'message': 'Too large.'}},
                         json.loads(body))
        self.assertTrue(protocol_errors.answer(400, 'x', 'HTTP/9').startswith(
            b'HTTP/1.0 400 Bad Request\r\n'))
