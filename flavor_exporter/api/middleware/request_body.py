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
"""Request bodies, read whole before Pecan sees the request.

Pecan and WebOb read a body as soon as anything asks for the request's
parameters (Pecan does for every JSON or form body while it routes), all
of it, whatever its size; and a body sent in chunks (Transfer-Encoding:
chunked, no Content-Length) reads as empty through Content-Length. So
this layer, between authentication and the application, reads every
body once: at most BODY_LIMIT bytes, by Content-Length or to the end of
a chunked one, and hands the application that many bytes with their
Content-Length. A body it refuses (too large, a Content-Length that is
no number, JSON that is not UTF-8) is replaced by none and its refusal
kept in the environ: the route that reads bodies answers it (413, 400)
where it checks the body, after the content type, as it always has;
routes that take no body ignore it, as they always have. Pecan, which
parses a JSON body while it routes, never meets one it would fail on;
WebOb, which parses an HTML form's whenever the request's parameters are
read (Pecan's REST routing does), never meets a form: the routes take
JSON only, and a form's type is kept apart (content_type()) for the
route that refuses it.

A body is read without holding the threads other clients need, within
``[api] body_timeout`` where the server lets a read end (body_reader.py):
one that does not arrive in time is answered 408 here, one no thread may
read now 503 with Retry-After, both with ``Connection: close``.

A JSON body (or one of no type, which the route reads as JSON) that
nests arrays and objects deeper than checks.MAX_DEPTH is refused (400)
before anything decodes it: Python's json module recurses, and Pecan
decodes JSON bodies while it routes.
"""

import io
import re

from flavor_exporter.api import body_reader
from flavor_exporter.api import errors
from flavor_exporter.publication import checks as check_docs

#: The largest body read: a set check of 50 servers takes a few KiB.
BODY_LIMIT = 65536
#: Where a refused body's errors.ApiError waits for the route.
REFUSED = 'flavor_exporter.body_refused'
#: Where the type of a form body is kept, hidden from WebOb.
FORM_TYPE = 'flavor_exporter.form_content_type'
# The types WebOb parses as HTML forms.
_FORMS = ('application/x-www-form-urlencoded', 'multipart/form-data')
# The types whose bodies are decoded as JSON (none: the route's default).
_JSON = ('', 'application/json')
# A backslash and what it escapes inside a JSON string; then the strings
# themselves, once no escaped quote is left in them. Two passes, each
# linear: one pattern for both backtracks quadratically on a body of
# unterminated strings.
_ESCAPED = re.compile(rb'\\.', re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKET = re.compile(rb'[^\[\]{}]+')
_OPENING = frozenset(b'[{')


def content_type(environ):
    """The media type the client sent its body as, lower case."""
    kind = environ.get(FORM_TYPE, environ.get('CONTENT_TYPE', ''))
    return kind.split(';')[0].strip().lower()


def refusal(environ):
    """The errors.ApiError of the request's refused body, or None."""
    return environ.get(REFUSED)


class RequestBody:
    """Reads each request's body, bounded, before the application.

    timeout: [api] body_timeout; threads: [api] threads.
    """

    def __init__(self, app, timeout=10.0, threads=2):
        self._app = app
        self._reader = body_reader.BodyReader(timeout, threads)

    def __call__(self, environ, start_response):
        length = environ.get('CONTENT_LENGTH')
        chunked = 'chunked' in environ.get('HTTP_TRANSFER_ENCODING',
                                           '').lower()
        if length or chunked:
            try:
                _take(environ, length, chunked, self._reader.read)
            except body_reader.TimedOut:
                return errors.answer(
                    environ, start_response, 408,
                    'The request body did not arrive within %g seconds.'
                    % self._reader.timeout, [('Connection', 'close')])
            except body_reader.Busy as busy:
                return errors.answer(
                    environ, start_response, 503,
                    'Other clients\' bodies are arriving slowly; retry in '
                    '%d seconds.'
                    % busy.retry_after,
                    [('Retry-After', str(busy.retry_after)),
                     ('Connection', 'close')])
        if content_type(environ) in _FORMS:
            environ[FORM_TYPE] = environ.pop('CONTENT_TYPE')
        return self._app(environ, start_response)


def _take(environ, length, chunked, read):
    """Replace the request's body by its bytes, or by none if refused.

    read(environ, size): the body's bytes (body_reader.BodyReader.read).
    """
    body = b''
    if length:
        try:
            size = int(length)
        except ValueError:
            environ[REFUSED] = errors.BadRequest(
                'Content-Length is not a number.')
        else:
            if size > BODY_LIMIT:
                environ[REFUSED] = _too_large()
            elif size > 0:
                body = read(environ, size)
    else:
        # Chunked: the server ends the stream where the body ends.
        body = read(environ, BODY_LIMIT + 1)
        if len(body) > BODY_LIMIT:
            environ[REFUSED] = _too_large()
            body = b''
    kind = content_type(environ)
    if body and kind == 'application/json' and not _utf8(body):
        environ[REFUSED] = errors.BadRequest(check_docs.NOT_JSON)
        body = b''
    if body and kind in _JSON and too_deep(body, check_docs.MAX_DEPTH):
        environ[REFUSED] = errors.BadRequest(check_docs.TOO_DEEP)
        body = b''
    environ['wsgi.input'] = io.BytesIO(body)
    environ['CONTENT_LENGTH'] = str(len(body))
    environ.pop('HTTP_TRANSFER_ENCODING', None)


def too_deep(body, limit):
    """Whether JSON bytes nest arrays and objects deeper than limit.

    Brackets inside strings do not count; invalid JSON may be judged
    either way (it is refused when decoded).
    """
    if body.count(b'[') + body.count(b'{') <= limit:
        return False
    brackets = _NOT_BRACKET.sub(b'', _STRING.sub(b'', _ESCAPED.sub(
        b'', body)))
    depth = 0
    for byte in brackets:
        depth += 1 if byte in _OPENING else -1
        if depth > limit:
            return True
    return False


def _utf8(body):
    try:
        body.decode('utf-8')
    except UnicodeError:
        return False
    return True


def _too_large():
    return errors.PayloadTooLarge('A check body is at most %d bytes.'
                                  % BODY_LIMIT)
