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

For each request: refuse methods other than GET and HEAD (a read-only
API, on every path), find the route (routes.py) or answer 404, check the
route's policy for the caller, then answer it:

- a DOCUMENT route by asking queries.Queries, and serving the
  Representation it returns with its validators (200, or 304 when the
  client has it); portals poll these many times a minute, so they are
  served here, without a framework's per-request routing, which costs
  several times what serving the held bytes does
  (doc/source/performance.rst);
- a PAGE route by the Pecan application (controllers/root.py), which
  finds its controller method from the route matched here;
- a MOUNTED route by its own WSGI application.

Every error is JSON in the shape of its route family (responses.py).
"""

from oslo_log import log
import webob

from flavor_exporter.api import access
from flavor_exporter.api import filters
from flavor_exporter.api import responses
from flavor_exporter.api import routes

LOG = log.getLogger(__name__)

ALLOWED_METHODS = ('GET', 'HEAD')
#: The environ key under which a PAGE route and its parameters travel.
ROUTE_KEY = 'flavor_exporter.route'
# Query kinds of routes.py with filters: (parser, the query of none).
_PARSERS = {routes.FILTERS: (filters.ListQuery, filters.NO_FILTERS),
            routes.GPU_FILTERS: (filters.GpuQuery, filters.NO_GPU_FILTERS)}


class Dispatcher:

    def __init__(self, queries, pages, mounted, enforcer, retry_after,
                 router=None):
        """pages: the Pecan application; mounted: {handler: WSGI app}.

        enforcer: the oslo.policy Enforcer, None when nobody is
        authenticated (noauth: every caller reads everything).
        """
        self._queries = queries
        self._pages = pages
        self._mounted = mounted
        self._enforcer = enforcer
        self._retry_after = retry_after
        self._router = router or routes.Router()

    def __call__(self, environ, start_response):
        method = environ.get('REQUEST_METHOD', 'GET')
        path = environ.get('PATH_INFO') or '/'
        if method not in ALLOWED_METHODS:
            return self._error(
                environ, start_response, path, 405,
                '%s is not allowed: this API is read-only.' % method[:32],
                [('Allow', ', '.join(ALLOWED_METHODS))])
        found = self._router.match(path)
        if found is None:
            return self._error(environ, start_response, path, 404,
                               'No such resource: %s' % path)
        route, params = found
        if route.kind == routes.MOUNTED:
            return self._mounted[route.handler](environ, start_response)
        try:
            caller = (access.Access(self._enforcer, environ)
                      if self._enforcer else access.UNRESTRICTED)
            if route.policy:
                caller.require(route.policy)
            query = self._query(route, environ)
            if route.kind == routes.PAGE:
                return self._page(route, params, caller, environ,
                                  start_response)
            cloud = params.pop('cloud', None)  # None: the default cloud
            answer = getattr(self._queries, route.handler)(
                cloud, caller=caller, **query, **params)
        except Exception as exc:
            known = responses.for_exception(exc, self._retry_after)
            if known is None:
                LOG.error('Unexpected error answering %s %s: %s', method,
                          path, exc)
                LOG.debug('The unexpected error', exc_info=True)
                known = 500, responses.INTERNAL_ERROR, []
            return self._error(environ, start_response, path, *known)
        if_none_match = None
        if 'HTTP_IF_NONE_MATCH' in environ:
            if_none_match = webob.Request(environ).if_none_match
        status, headers, body = responses.representation(
            answer.representation, answer.view, if_none_match)
        start_response(status, headers)
        return [b'' if method == 'HEAD' else body]

    @staticmethod
    def _query(route, environ):
        """The route's arguments from the query string; BadQuery if bad."""
        query = environ.get('QUERY_STRING')
        parser = _PARSERS.get(route.query)
        if parser is not None:
            kind, none = parser
            return {'query': kind.from_params(webob.Request(environ).GET)
                    if query else none}
        if route.query == routes.NONE and query:
            filters.refuse_any(webob.Request(environ).GET)
        return {}

    def _page(self, route, params, caller, environ, start_response):
        environ[ROUTE_KEY] = (route, params)
        environ[access.ENVIRON_KEY] = caller
        # Every route has one representation: Pecan would answer 404 or
        # 406 to the Accept headers clients send by habit. No page takes
        # query parameters, and Pecan would bind them to its arguments.
        environ.pop('HTTP_ACCEPT', None)
        environ['QUERY_STRING'] = ''
        return self._pages(environ, start_response)

    @staticmethod
    def _error(environ, start_response, path, code, message, headers=()):
        return responses.error(path, code, message, headers)(
            environ, start_response)
