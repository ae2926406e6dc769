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
"""Pecan hooks: what every request of the API goes through.

In the order Pecan runs them (by priority):

- RequestLogHook: one line per request ([api] log_requests), with the
  request's id (request_log.py);
- RoutingHook: what Pecan would route otherwise: an empty path segment
  (404); and no content negotiation, every answer has its one type
  (methods a route does not answer were refused before authentication,
  middleware/request_limits.py);
- ContextHook: what the controllers read beside the request: the
  process's published data, the caller's rights (access.py), the cloud
  (the default until /v3/clouds/{cloud}/ names one) and the query;
- PolicyHook: the policy of the route the controller serves
  (routes.py), for the project the path names;
- QueryHook: the route's query string, parsed or refused;
- JsonErrorHook: every error as JSON in the shape of its route family
  (errors.py), Pecan's own 404 and 405 included, which it answers as
  HTML or plain text, and which name the methods the route answers.
"""

import time

from oslo_log import log
import pecan
import webob.exc

from flavor_exporter.api import access
from flavor_exporter.api.controllers import base
from flavor_exporter.api import errors
from flavor_exporter.api import filters
from flavor_exporter.api import request_log
from flavor_exporter.api import responses
from flavor_exporter.api import routes

LOG = log.getLogger(__name__)

# Query kinds of routes.py with filters: (parser, the query of none).
_PARSERS = {routes.FILTERS: (filters.ListQuery, filters.NO_FILTERS),
            routes.GPU_FILTERS: (filters.GpuQuery, filters.NO_GPU_FILTERS)}
_MOVED = ('The service\'s own API moved from /v2/ to /v3/ (%s); /v2/ serves '
          'only the seed\'s list, /v2/flavors/.')
#: Where RequestLogHook keeps when the request came (and that it did).
STARTED = 'flavor_exporter.started'


class RequestLogHook(pecan.hooks.PecanHook):
    """Logs each answer: status, bytes, time (request_log.py)."""

    priority = 10

    def __init__(self, every_request):
        self._log = request_log.RequestLog(every_request)

    def on_route(self, state):
        state.request.environ[STARTED] = time.monotonic()

    def after(self, state):
        environ = state.request.environ
        answer = state.response
        self._log.answered(environ, answer.status,
                           answer.headers.get('Content-Length', '-'),
                           time.monotonic() - environ[STARTED])


class RoutingHook(pecan.hooks.PecanHook):
    """Requests refused before Pecan routes them."""

    priority = 15

    def on_route(self, state):
        request = state.request
        if '//' in request.path_info:
            # An empty segment is no parameter: Pecan would call the
            # resource without it.
            raise webob.exc.HTTPNotFound()
        request.pecan['content_type'] = responses.JSON


class ContextHook(pecan.hooks.PecanHook):
    """The published data and the caller, on the request."""

    priority = 20

    def __init__(self, data, enforcer):
        """The hook of the process's published.Published data.

        enforcer: the oslo.policy Enforcer, None when nobody is
        authenticated (every caller reads everything).
        """
        self._data = data
        self._enforcer = enforcer

    def on_route(self, state):
        request = state.request
        caller = (access.Access(self._enforcer, request.environ)
                  if self._enforcer else access.UNRESTRICTED)
        setattr(request, base.SERVED,
                base.Served(request, self._data, caller))


class PolicyHook(pecan.hooks.PecanHook):
    """The route's policy, for the project its path names (if any)."""

    priority = 30

    def before(self, state):
        route = base.route_of(state.controller)
        if route is None or route.policy is None:
            return
        target = None
        if '{project_id}' in route.path:
            # The first argument of the project resources' methods.
            target = {'project_id': state.arguments.args[0]}
        getattr(state.request, base.SERVED).caller.require(route.policy,
                                                           target)


class QueryHook(pecan.hooks.PecanHook):
    """The route's filters parsed, or a query it takes none of refused."""

    priority = 40

    def before(self, state):
        route = base.route_of(state.controller)
        if route is None:
            return
        request = state.request
        query = request.environ.get('QUERY_STRING')
        parser = _PARSERS.get(route.query)
        if parser is not None:
            kind, none = parser
            getattr(request, base.SERVED).query = (
                kind.from_params(request.GET) if query else none)
        elif route.query == routes.NONE and query:
            filters.refuse_any(request.GET)


class JsonErrorHook(pecan.hooks.PecanHook):
    """Every error as JSON, in the shape of its route family."""

    priority = 50

    def on_error(self, state, exc):
        request = state.request
        path = request.path_info
        if isinstance(exc, (webob.exc.HTTPNotFound,
                            webob.exc.HTTPMethodNotAllowed)):
            # Pecan could not route it: the table says why.
            exc = _unrouted(request.method, path)
        if isinstance(exc, errors.ApiError):
            return errors.response(path, exc.code, str(exc), exc.headers)
        if isinstance(exc, webob.exc.HTTPException):
            return errors.response(path, exc.code, exc.title)
        if isinstance(exc, UnicodeDecodeError):
            # What WebOb could not decode (a form body, say): the request's
            # fault, as Pecan's own request class would answer it.
            return errors.response(path, 400, 'The request is not UTF-8.')
        LOG.error('Unexpected error answering %s %s: %s',
                  request_log.loggable(request.method),
                  request_log.loggable(request.environ.get('PATH_INFO', '')),
                  exc)
        LOG.debug('The unexpected error', exc_info=exc)
        return errors.response(path, 500, errors.INTERNAL_ERROR)


def _unrouted(method, path):
    """The errors.ApiError of a request no controller serves."""
    allowed = routes.methods_of(path) or routes.ALLOWED_METHODS
    if method not in allowed:
        return errors.MethodNotAllowed(method, allowed)
    if path.startswith('/v2/'):
        return errors.NotFound(_MOVED % ('GET /v3/' + path[4:]))
    return errors.NotFound('No such resource: %s' % path)


def make(conf, data, enforcer):
    """The API's hooks, for conf and the process's published data."""
    return [RequestLogHook(conf.api.log_requests), RoutingHook(),
            ContextHook(data, enforcer), PolicyHook(), QueryHook(),
            JsonErrorHook()]
