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
"""HTTP/1.x requests as the API's server reads them, and answer heads.

Pure functions over bytes, no sockets: flavor_exporter.wsgi.connection
feeds them what it received. They are strict wherever leniency would let
one request mean two things to two servers (request smuggling through a
proxy in front): Content-Length and Transfer-Encoding together, differing
Content-Lengths, a transfer coding other than chunked, folded or malformed
header lines are refused with a BadRequest, which the server answers in
JSON. Header names with an underscore are dropped, as nginx and Apache do:
``X_Auth_Token`` would otherwise reach the application as the same
HTTP_X_AUTH_TOKEN as ``X-Auth-Token``.
"""

import io
import re
import sys
import time
from urllib import parse

# Request line plus headers. The API's own limits (path 4 KiB, query
# 16 KiB, headers 32 KiB, see api/middleware/request_limits.py) are lower
# and answered in the route family's JSON shape; this one bounds memory.
MAX_HEAD_BYTES = 65536
# The API reads no request body; this only bounds what is read to skip one.
MAX_BODY_BYTES = 65536
# A chunked body is parsed again from its start as it arrives: few chunks
# keep that cheap.
MAX_CHUNKS = 1024

_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
_BAD_VALUE = re.compile(rb'[\x00-\x08\x0a-\x1f\x7f]')
_DIGITS = re.compile(r'[0-9]{1,18}\Z')
_HEX = re.compile(rb'[0-9A-Fa-f]{1,8}\Z')
_ABSOLUTE = re.compile(rb'[A-Za-z][A-Za-z0-9+.-]*://[^/?]*')
_VERSIONS = (b'HTTP/1.1', b'HTTP/1.0')
# Framing and connection headers belong to the server (PEP 3333).
_HOP_BY_HOP = frozenset(['connection', 'content-length', 'keep-alive',
                         'transfer-encoding'])
_NO_BODY = ('1', '204', '304')


class BadRequest(Exception):
    """A request the server answers itself: code and a message for it."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class Request:
    """A parsed request head."""

    __slots__ = ('method', 'target', 'version', 'headers', 'path', 'query',
                 'keep_alive', 'length', 'chunked', 'expect_continue')

    def __init__(self, method, target, version, headers):
        self.method = method
        self.target = target
        self.version = version
        # [(NAME_IN_UPPER_CASE, value)], values as latin-1 strings.
        self.headers = headers
        self.path, _, self.query = target.partition('?')
        self.keep_alive = False
        self.length = 0
        self.chunked = False
        self.expect_continue = False

    @property
    def has_body(self):
        return self.chunked or self.length > 0


def head_too_large(buffer):
    """The refusal for a head over MAX_HEAD_BYTES: 414 or 431."""
    if buffer.find(b'\r\n', 0, MAX_HEAD_BYTES) < 0:
        return BadRequest(414, 'The request line is longer than %d bytes.'
                          % MAX_HEAD_BYTES)
    return BadRequest(431, 'The request line and headers are larger than '
                      '%d bytes.' % MAX_HEAD_BYTES)


def parse_head(head):
    """The Request in head (bytes up to the blank line); BadRequest."""
    lines = head.split(b'\r\n')
    parts = lines[0].split(b' ')
    if len(parts) != 3 or not _TOKEN.match(parts[0]):
        raise BadRequest(400, 'The request line is not "METHOD /path '
                              'HTTP/1.1".')
    method, target, version = parts
    if version not in _VERSIONS:
        if not version.startswith(b'HTTP/'):
            raise BadRequest(400, 'The request line is not "METHOD /path '
                                  'HTTP/1.1".')
        raise BadRequest(505, 'Only HTTP/1.0 and HTTP/1.1 are served.')
    if not target.startswith(b'/'):
        absolute = _ABSOLUTE.match(target)
        if absolute is None:
            raise BadRequest(400, 'The request target is not a path.')
        target = target[absolute.end():] or b'/'
        if not target.startswith((b'/', b'?')):
            raise BadRequest(400, 'The request target is not a path.')
    headers = []
    for line in lines[1:]:
        name, colon, value = line.partition(b':')
        # A name with spaces around it, or a line folded onto the previous
        # one, is read differently by different servers.
        if not colon or not _TOKEN.match(name):
            raise BadRequest(400, 'A header line is malformed.')
        value = value.strip(b' \t')
        if _BAD_VALUE.search(value):
            raise BadRequest(400, 'A header value holds control characters.')
        headers.append((name.decode('latin-1').upper(),
                        value.decode('latin-1')))
    request = Request(method.decode('latin-1'), target.decode('latin-1'),
                      version.decode('latin-1'), headers)
    _framing(request)
    return request


def _values(request, name):
    return [value for key, value in request.headers if key == name]


def _framing(request):
    """Body framing and keep-alive of request, or BadRequest."""
    lengths = _values(request, 'CONTENT-LENGTH')
    codings = _values(request, 'TRANSFER-ENCODING')
    if codings:
        if lengths or request.version == 'HTTP/1.0':
            raise BadRequest(400, 'Transfer-Encoding is not accepted with '
                                  'Content-Length or in HTTP/1.0.')
        if ','.join(codings).strip().lower() != 'chunked':
            raise BadRequest(501, 'Only the chunked transfer coding is '
                                  'accepted.')
        request.chunked = True
    elif lengths:
        if len(set(lengths)) != 1 or not _DIGITS.match(lengths[0]):
            raise BadRequest(400, 'Content-Length is not one number.')
        request.length = int(lengths[0])
        if request.length > MAX_BODY_BYTES:
            raise BadRequest(413, 'The request body is larger than %d '
                                  'bytes.' % MAX_BODY_BYTES)
    tokens = {token.strip().lower() for value in
              _values(request, 'CONNECTION') for token in value.split(',')}
    if request.version == 'HTTP/1.1':
        request.keep_alive = 'close' not in tokens
        request.expect_continue = any(
            value.lower() == '100-continue'
            for value in _values(request, 'EXPECT'))
    else:
        request.keep_alive = 'keep-alive' in tokens


def chunked_body(buffer, start):
    """(body, end) of a chunked body from buffer[start:], None if partial.

    end is the offset just past the body and its trailers. BadRequest for
    a malformed body or one over MAX_BODY_BYTES.
    """
    position, parts, total = start, [], 0
    while True:
        if len(parts) > MAX_CHUNKS:
            raise BadRequest(413, 'The request body has more than %d '
                                  'chunks.' % MAX_CHUNKS)
        eol = buffer.find(b'\r\n', position)
        if eol < 0:
            if len(buffer) - position > 1024:
                raise BadRequest(400, 'A chunk size line is malformed.')
            return None
        size = bytes(buffer[position:eol]).split(b';', 1)[0].strip()
        if not _HEX.match(size):
            raise BadRequest(400, 'A chunk size line is malformed.')
        size = int(size, 16)
        total += size
        if total > MAX_BODY_BYTES:
            raise BadRequest(413, 'The request body is larger than %d '
                                  'bytes.' % MAX_BODY_BYTES)
        position = eol + 2
        if size == 0:
            return _trailers(buffer, position, parts)
        if len(buffer) < position + size + 2:
            return None
        parts.append(bytes(buffer[position:position + size]))
        if buffer[position + size:position + size + 2] != b'\r\n':
            raise BadRequest(400, 'A chunk is longer than its size.')
        position += size + 2


def _trailers(buffer, position, parts):
    # Trailer fields are read past and dropped: nothing here uses them.
    while True:
        eol = buffer.find(b'\r\n', position)
        if eol < 0:
            if len(buffer) - position > MAX_HEAD_BYTES:
                raise BadRequest(431, 'The trailers are too large.')
            return None
        if eol == position:
            return b''.join(parts), eol + 2
        position = eol + 2


def environ(request, body, server, remote):
    """The WSGI environ of request (PEP 3333).

    server and remote: (host, port) of the listening socket and of the
    client.
    """
    path = request.path
    if '%' in path:
        path = parse.unquote_to_bytes(path).decode('latin-1')
    env = {
        'REQUEST_METHOD': request.method,
        'SCRIPT_NAME': '',
        'PATH_INFO': path,
        'QUERY_STRING': request.query,
        'REQUEST_URI': request.target,
        'SERVER_NAME': server[0],
        'SERVER_PORT': str(server[1]),
        'SERVER_PROTOCOL': request.version,
        'REMOTE_ADDR': remote[0],
        'REMOTE_PORT': str(remote[1]),
        'wsgi.version': (1, 0),
        'wsgi.url_scheme': 'http',
        'wsgi.input': io.BytesIO(body),
        'wsgi.input_terminated': True,
        'wsgi.errors': sys.stderr,
        'wsgi.multithread': True,
        'wsgi.multiprocess': True,
        'wsgi.run_once': False,
    }
    if body:
        env['CONTENT_LENGTH'] = str(len(body))
    for name, value in request.headers:
        if '_' in name:
            continue
        key = name.replace('-', '_')
        if key in ('CONTENT_LENGTH', 'TRANSFER_ENCODING'):
            continue
        if key != 'CONTENT_TYPE':
            key = 'HTTP_' + key
        if key in env:
            env[key] += ',' + value
        else:
            env[key] = value
    return env


class _Date:
    """The Date header's value, formatted once a second."""

    def __init__(self):
        self._second = None
        self._value = None

    def __call__(self):
        now = int(time.time())
        if now != self._second:
            self._value = time.strftime('%a, %d %b %Y %H:%M:%S GMT',
                                        time.gmtime(now))
            self._second = now
        return self._value


http_date = _Date()


def response(version, status, headers, body, keep_alive, head_only=False,
             server='flavor-exporter'):
    """An answer's head and body, as bytes to send one after the other.

    Apart, so that a large body is sent without being copied after its
    head. The application's framing headers are replaced by the server's:
    Content-Length is the body's (the application's is kept for HEAD,
    whose body is not sent).
    """
    lines = ['%s %s' % (version, status)]
    length = None
    has_date = has_server = False
    for name, value in headers:
        lower = name.lower()
        if lower in _HOP_BY_HOP:
            if lower == 'content-length':
                length = value
            continue
        if lower == 'date':
            has_date = True
        elif lower == 'server':
            has_server = True
        lines.append('%s: %s' % (name, value))
    if not status.startswith(_NO_BODY):
        if not head_only or length is None:
            length = str(len(body))
        lines.append('Content-Length: ' + length)
    else:
        body = b''
    if not has_date:
        lines.append('Date: ' + http_date())
    if not has_server:
        lines.append('Server: ' + server)
    if not keep_alive:
        lines.append('Connection: close')
    elif version == 'HTTP/1.0':
        lines.append('Connection: keep-alive')
    lines.append('\r\n')
    head = '\r\n'.join(lines).encode('latin-1')
    return head, b'' if head_only else body
