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
"""Pecan hooks: what holds for every route of this read-only API."""

from oslo_log import log
from pecan import hooks
import webob.exc

from flavor_exporter.api import access
from flavor_exporter.api import generations
from flavor_exporter.api import responses

LOG = log.getLogger(__name__)

ALLOWED_METHODS = ('GET', 'HEAD')


class ReadOnlyHook(hooks.PecanHook):
    """GET and HEAD only, one representation per route.

    Pecan negotiates on Accept and answers 404 or 406 when a controller
    does not list the type a client sent; clients send Accept headers by
    habit (browsers, Prometheus, curl -H), and every route here has a
    single representation, so Accept is taken out of the routing.
    """

    def on_route(self, state):
        if state.request.method not in ALLOWED_METHODS:
            raise webob.exc.HTTPMethodNotAllowed(
                detail='%s is not allowed: this API is read-only.'
                % state.request.method,
                headers=[('Allow', ', '.join(ALLOWED_METHODS))])
        state.request.environ.pop('HTTP_ACCEPT', None)


class AccessHook(hooks.PecanHook):
    """Decides what the caller may read (flavor_exporter.api.access)."""

    def __init__(self, enforcer):
        self._enforcer = enforcer

    def on_route(self, state):
        environ = state.request.environ
        environ[access.ENVIRON_KEY] = access.Access(self._enforcer, environ)


class JsonErrorHook(hooks.PecanHook):
    """Every error as JSON, in the shape of its route family.

    Pecan would otherwise answer unknown routes and exceptions with WebOb's
    HTML pages. A cache failure while reading a document is a 503 with
    Retry-After, like a cold cache.
    """

    def __init__(self, retry_after):
        self._retry_after = retry_after

    def on_error(self, state, exc):
        path = state.request.path_info
        if isinstance(exc, (generations.NoData, generations.Unavailable)):
            exc = responses.no_data(exc, self._retry_after)
        if isinstance(exc, webob.exc.HTTPException):
            if exc.code < 400:
                return None
            message = exc.detail
            if not message:
                message = ('No such resource: %s' % path
                           if exc.code == 404 else exc.title)
            headers = [(k, v) for k, v in exc.headerlist
                       if k.lower() not in ('content-type',
                                            'content-length')]
            return responses.error(path, exc.code, message, headers)
        LOG.error('Unexpected error answering %s %s',
                  state.request.method, path, exc_info=exc)
        return responses.error(path, 500, 'Internal error; the API log '
                               'has the details.')
