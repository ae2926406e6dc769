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
"""The API's one router: every request goes through the route table.

For each request: match the route once (routes.py), or answer 404;
refuse a method the route does not answer (405: every route reads with
GET and HEAD, but for POST /v3/checks); authenticate the caller unless
the route is public (auth.py); check the route's policy for the caller;
parse its query; call the route's function (resources/) and serve what
it returns: a published document with its validators (200, or 304 when
the client has it), or a page. /healthcheck is oslo.middleware's
application, mounted.

No framework routes here: portals poll the documents many times a
minute, and a framework's per-request routing costs several times what
serving held bytes does (doc/source/contributor/architecture.rst).
Every error is JSON in the shape of its route family (errors.py).
"""

from oslo_log import log
import webob

from flavor_exporter.api import access
from flavor_exporter.api import errors
from flavor_exporter.api import filters
from flavor_exporter.api.middleware import request_log
from flavor_exporter.api import published
from flavor_exporter.api import responses
from flavor_exporter.api import routes

LOG = log.getLogger(__name__)

#: Methods some route answers; others are refused on every path.
ALLOWED_METHODS = routes.READ + routes.POST
#: Where the route matched travels in the environ, through authentication.
ROUTE_KEY = 'flavor_exporter.route'
# Query kinds of routes.py with filters: (parser, the query of none).
_PARSERS = {routes.FILTERS: (filters.ListQuery, filters.NO_FILTERS),
            routes.GPU_FILTERS: (filters.GpuQuery, filters.NO_GPU_FILTERS)}
_MOVED = ('The service\'s own API moved from /v2/ to /v3/ (%s); /v2/ serves '
          'only the seed\'s list, /v2/flavors/.')


class Request:
    """What a route's function is given."""

    __slots__ = ('published', 'environ', 'params', 'cloud', 'caller',
                 'query')

    def __init__(self, data, environ, params, caller, query):
        self.published = data
        self.environ = environ
        #: The path's parameters, the cloud's apart.
        self.params = params
        #: The cloud the path names, None for the default cloud.
        self.cloud = params.pop('cloud', None)
        self.caller = caller
        #: The parsed filters of the route's query kind, else None.
        self.query = query

    @property
    def path(self):
        return self.environ.get('PATH_INFO') or '/'

    @property
    def client(self):
        """Who asks: the authenticated user, else the client's address."""
        return self.caller.user_id or self.environ.get('REMOTE_ADDR', '-')

    @property
    def application_url(self):
        """Where the API is served, as the client reached it (no '/')."""
        return webob.Request(self.environ).application_url


def _target(params):
    """The policy target of a route: the project it names, if any."""
    if 'project_id' in params:
        return {'project_id': params['project_id']}
    return None


def _not_found(path):
    if path.startswith('/v2/'):
        return errors.NotFound(_MOVED % ('GET /v3/' + path[4:]))
    return errors.NotFound('No such resource: %s' % path)


class Dispatcher:

    def __init__(self, data, mounted, authenticate, enforcer, router=None):
        """data: the published.Published of the process.

        mounted: {handler name: WSGI app}; authenticate(app): app behind
        authentication, None under noauth; enforcer: the oslo.policy
        Enforcer, None when nobody is authenticated (every caller reads
        everything).
        """
        self._data = data
        self._mounted = mounted
        self._enforcer = enforcer
        self._router = router or routes.Router()
        self._authenticated = (authenticate(self._serve)
                               if authenticate else None)

    def __call__(self, environ, start_response):
        method = environ.get('REQUEST_METHOD', 'GET')
        found = environ[ROUTE_KEY] = self._router.match(
            environ.get('PATH_INFO') or '/')
        allowed = found[0].methods if found is not None else ALLOWED_METHODS
        if method not in allowed:
            return errors.answer_exception(
                environ, start_response,
                errors.MethodNotAllowed(method, allowed))
        if found is not None:
            route = found[0]
            if route.mounted:
                return self._mounted[route.handler](environ, start_response)
            if route.public:
                return self._serve(environ, start_response)
        # An unknown path is answered 404 once authenticated, as the
        # routes behind authentication are.
        if self._authenticated is None:
            return self._serve(environ, start_response)
        return self._authenticated(environ, start_response)

    def _serve(self, environ, start_response):
        """Answer the route matched, for the caller authentication found."""
        found = environ[ROUTE_KEY]
        if found is None:
            return errors.answer_exception(
                environ, start_response,
                _not_found(environ.get('PATH_INFO') or '/'))
        route, params = found
        try:
            caller = (access.Access(self._enforcer, environ)
                      if self._enforcer else access.UNRESTRICTED)
            if route.policy:
                caller.require(route.policy, _target(params))
            request = Request(self._data, environ, dict(params), caller,
                              _query(route, environ))
            answer = route.handler(request)
        except errors.ApiError as exc:
            return errors.answer_exception(environ, start_response, exc)
        except Exception as exc:
            LOG.error('Unexpected error answering %s %s: %s',
                      environ.get('REQUEST_METHOD'),
                      request_log.loggable(environ.get('PATH_INFO', '')), exc)
            LOG.debug('The unexpected error', exc_info=True)
            return errors.answer(environ, start_response, 500,
                                 errors.INTERNAL_ERROR)
        if isinstance(answer, published.Answer):
            if_none_match = None
            if 'HTTP_IF_NONE_MATCH' in environ:
                if_none_match = webob.Request(environ).if_none_match
            status, headers, body = responses.representation(
                answer.representation, answer.view, if_none_match)
        else:
            status, headers, body = responses.page_answer(answer)
        start_response(status, headers)
        return [b'' if environ.get('REQUEST_METHOD') == 'HEAD' else body]


def _query(route, environ):
    """The route's parsed filters from the query string; BadRequest."""
    query = environ.get('QUERY_STRING')
    parser = _PARSERS.get(route.query)
    if parser is not None:
        kind, none = parser
        return (kind.from_params(webob.Request(environ).GET)
                if query else none)
    if route.query == routes.NONE and query:
        filters.refuse_any(webob.Request(environ).GET)
    return None
