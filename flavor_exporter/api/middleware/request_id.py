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
"""Every request gets an id: in its answer, and in each of its log lines.

oslo.middleware's RequestId, as every OpenStack API runs it: a new
``req-<UUID>`` per request, answered in ``X-OpenStack-Request-ID`` and
kept in the environ for what runs inside; a well-formed
``X-OpenStack-Request-ID`` the client sent (python-openstackclient,
keystoneauth's global_request_id, another service) becomes the request's
global id, logged beside the local one. An oslo.context RequestContext is
made for the request, so that oslo.log puts both ids on every line logged
while the request is served.

Without WebOb: oslo.middleware's own __call__ makes a WebOb request and
response per request, which costs more than serving a published document
does (doc/source/performance.rst); placement's RequestLog overrides it the
same way.

The request's own log line is the request log hook's (hooks.py). An
exception no layer inside answered is logged with the id and answered
500 here, so that this answer carries the id too.
"""

import itertools
import os
import re
import sys

from oslo_context import context
from oslo_log import log
from oslo_middleware import request_id

from flavor_exporter.api import errors
from flavor_exporter.api import request_log

LOG = log.getLogger(__name__)

HEADER = 'X-OpenStack-Request-ID'
_INBOUND = 'HTTP_' + HEADER.upper().replace('-', '_')
_WELL_FORMED = re.compile(request_id.ID_FORMAT)


class _Ids:
    """Request ids in oslo.context's format, req-<a UUID 4>, made cheaply.

    A random UUID per process (again in each forked child), its last 48
    bits counting up: as unique as uuid4() per request, which with its
    str() costs a microsecond more, an eighth of serving a document.
    Request ids are names, not secrets.
    """

    def __init__(self):
        self.reseed()
        os.register_at_fork(after_in_child=self.reseed)

    def reseed(self):
        h = os.urandom(16).hex()
        self._prefix = 'req-%s-%s-4%s-%s%s-' % (
            h[:8], h[8:12], h[13:16], '89ab'[int(h[16], 16) & 3], h[17:20])
        # next() of a count is atomic: no lock between request threads.
        self._count = itertools.count(int(h[20:], 16))

    def __call__(self):
        return '%s%012x' % (self._prefix, next(self._count) & 0xffffffffffff)


new_id = _Ids()


def _forget_context():
    # oslo.context has no public way to end a request's context: without
    # this, the next line a server thread logs outside a request (a
    # protocol error, say) would name the last request it served.
    context._request_store.__dict__.pop('context', None)


class RequestId(request_id.RequestId):
    """Ids on answers and log lines; the outermost layer of the API."""

    def __call__(self, environ, start_response):
        inbound = environ.get(_INBOUND)
        global_id = None
        if inbound and _WELL_FORMED.match(inbound):
            global_id = environ[request_id.GLOBAL_REQ_ID] = inbound
        # Not RequestContext.from_environ: before authentication the
        # identity headers are the client's own, not keystonemiddleware's.
        # access.Access makes the authenticated caller's context, with
        # these ids, from the environ.
        request = context.RequestContext(request_id=new_id(),
                                         global_request_id=global_id)
        environ[request_id.ENV_REQUEST_ID] = request.request_id

        def start(status, headers, exc_info=None):
            return start_response(
                status, [*headers, (HEADER, request.request_id)], exc_info)

        try:
            return self.application(environ, start)
        except Exception as exc:
            return self._failed(environ, start, exc)
        finally:
            _forget_context()

    @staticmethod
    def _failed(environ, start, exc):
        """The 500 of an exception no layer inside answered."""
        LOG.error('Unexpected error answering %s %s: %s',
                  request_log.loggable(environ.get('REQUEST_METHOD', '')),
                  request_log.uri(environ)[:200], exc)
        LOG.debug('The unexpected error', exc_info=True)
        # WSGI: an answer that replaces one already started carries the
        # exception; the server refuses it once the first was sent.
        exc_info = sys.exc_info()
        return errors.answer(
            environ, lambda status, headers, _=None: start(
                status, headers, exc_info), 500, errors.INTERNAL_ERROR)
