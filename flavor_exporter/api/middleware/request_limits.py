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
"""Requests no route could answer well: too large, or not UTF-8.

Servers differ in what they let through: uWSGI drops a query string of
32 KiB or more and still calls the application (every flavor answered a
filter it never saw), waitress passes any size on. This middleware, the
outermost, answers such requests with a JSON error in the shape of their
route family before anything parses them:

- a path or a query string over the limits: 414;
- a query string the server dropped or cut (REQUEST_URI, which uWSGI
  sets, holds more than the query string received): 414;
- request headers over HEADERS_LIMIT bytes in all: 431;
- a path or query string whose percent escapes are not UTF-8: 400, with
  one log line (WebOb would raise on every access to the path);
- a method the path's route does not answer (routes.refusing): 405,
  naming those it does, before authentication, as the route table is
  no secret.
"""

from urllib import parse

from oslo_log import log

from flavor_exporter.api import errors
from flavor_exporter.api import request_log
from flavor_exporter.api import routes

LOG = log.getLogger(__name__)

#: Longest path served: flavor ids and names are at most 255 characters.
PATH_LIMIT = 4096
#: Longest query string: the filters of the largest request are far
#: shorter; uWSGI drops anything from 32 KiB.
QUERY_LIMIT = 16384
#: All request headers together (names and values); Keystone tokens are a
#: few KiB.
HEADERS_LIMIT = 32768


def _not_utf8(data):
    """Whether bytes are not UTF-8."""
    try:
        data.decode('utf-8')
    except UnicodeError:
        return True
    return False


def _bytes(value):
    # PEP 3333: environ strings carry the request's bytes as latin-1.
    return value.encode('latin-1', 'replace')


def _headers_size(environ):
    return sum(len(key) + len(value) for key, value in environ.items()
               if key.startswith('HTTP_') and isinstance(value, str))


class RequestLimits:
    """Refuses requests over the size limits or not in UTF-8."""

    def __init__(self, app):
        self._app = app

    def __call__(self, environ, start_response):
        refusal = self.refusal(environ)
        if refusal is None:
            method = environ.get('REQUEST_METHOD', 'GET')
            allowed = routes.refusing(method, environ.get('PATH_INFO', ''))
            if allowed is None:
                return self._app(environ, start_response)
            return errors.answer_exception(
                environ, start_response,
                errors.MethodNotAllowed(method, allowed))
        code, message = refusal
        # One line per refusal, where the server would have logged a
        # traceback per access to the path.
        LOG.info('Refused %s %s: %s',
                 request_log.loggable(environ.get('REQUEST_METHOD', '')),
                 request_log.loggable(environ.get('PATH_INFO', '')[:200]),
                 message)
        # The path only picks the error's shape (legacy or not).
        return errors.answer(environ, start_response, code, message)

    @staticmethod
    def refusal(environ):
        """(status code, message) for a request to refuse, else None."""
        path = environ.get('PATH_INFO', '')
        query = environ.get('QUERY_STRING', '')
        if len(path) > PATH_LIMIT:
            return 414, ('The path is longer than %d bytes.' % PATH_LIMIT)
        uri = environ.get('REQUEST_URI', '')
        uri_query = uri.partition('?')[2]
        if len(query) > QUERY_LIMIT or len(uri_query) > len(query):
            return 414, ('The query string is longer than %d bytes.'
                         % QUERY_LIMIT)
        if _headers_size(environ) > HEADERS_LIMIT:
            return 431, ('The request headers are larger than %d bytes in '
                         'all.' % HEADERS_LIMIT)
        # The server has percent-decoded PATH_INFO already.
        if not path.isascii() and _not_utf8(_bytes(path)):
            return 400, 'The path is not valid UTF-8.'
        if not query.isascii() or '%' in query:
            if _not_utf8(parse.unquote_to_bytes(_bytes(query))):
                return 400, 'The query string is not valid UTF-8.'
        return None
