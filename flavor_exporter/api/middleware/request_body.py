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
"""

import io

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


def content_type(environ):
    """The media type the client sent its body as, lower case."""
    kind = environ.get(FORM_TYPE, environ.get('CONTENT_TYPE', ''))
    return kind.split(';')[0].strip().lower()


def refusal(environ):
    """The errors.ApiError of the request's refused body, or None."""
    return environ.get(REFUSED)


class RequestBody:
    """Reads each request's body, bounded, before the application."""

    def __init__(self, app):
        self._app = app

    def __call__(self, environ, start_response):
        length = environ.get('CONTENT_LENGTH')
        chunked = 'chunked' in environ.get('HTTP_TRANSFER_ENCODING',
                                           '').lower()
        if length or chunked:
            _take(environ, length, chunked)
        if content_type(environ) in _FORMS:
            environ[FORM_TYPE] = environ.pop('CONTENT_TYPE')
        return self._app(environ, start_response)


def _take(environ, length, chunked):
    """Replace the request's body by its bytes, or by none if refused."""
    source = environ['wsgi.input']
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
                body = source.read(size)
    else:
        # Chunked: the server ends the stream where the body ends.
        body = source.read(BODY_LIMIT + 1)
        if len(body) > BODY_LIMIT:
            environ[REFUSED] = _too_large()
            body = b''
    if body and content_type(environ) == 'application/json' and \
            not _utf8(body):
        environ[REFUSED] = errors.BadRequest(check_docs.NOT_JSON)
        body = b''
    environ['wsgi.input'] = io.BytesIO(body)
    environ['CONTENT_LENGTH'] = str(len(body))
    environ.pop('HTTP_TRANSFER_ENCODING', None)


def _utf8(body):
    try:
        body.decode('utf-8')
    except UnicodeError:
        return False
    return True


def _too_large():
    return errors.PayloadTooLarge('A check body is at most %d bytes.'
                                  % BODY_LIMIT)
