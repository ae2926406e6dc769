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
"""Every route of the API, in one table.

The table is what the API serves: dispatch.py routes every request with
it (and nothing else), authentication skips its public routes, policy is
enforced from it, and tests prove that the OpenAPI document
(openapi.json) and the policies' documented operations list exactly its
routes.

A route is answered one of three ways:

- DOCUMENT: a published document (or a variant of one) that a method of
  queries.Queries returns; dispatch.py serves it, with its validators;
- PAGE: an answer made per request (status, clouds, metrics, the version
  and API documents), by the Pecan controller method of that name
  (controllers/root.py);
- MOUNTED: a WSGI application of its own (oslo.middleware's healthcheck).

A path matches with or without one trailing slash, except where the
table lists both (/docs and /docs/ differ: relative links in the Swagger
page need the slash). Parameters match one non-empty path segment.
"""

import collections

from flavor_exporter.policies import capacity as policies

DOCUMENT = 'document'
PAGE = 'page'
MOUNTED = 'mounted'

# How a route takes a query string.
FILTERS = 'filters'      # the v2 list filters (filters.ListQuery)
GPU_FILTERS = 'gpu_filters'  # the v2 GPU list filter (filters.GpuQuery)
NONE = 'none'            # refused: a misspelt filter must not go unseen
IGNORED = 'ignored'      # the predecessor ignored them; portals add some


class Route(collections.namedtuple(
        'Route', 'path operation kind handler policy query public')):
    """One route: path template, OpenAPI operationId, how it is answered.

    handler: the name of the Queries method (DOCUMENT), controller method
    (PAGE) or mounted application (MOUNTED); policy: the rule a caller
    must pass (None: any caller); public: served without authentication.
    """

    @property
    def collection(self):
        """Whether the OpenAPI document lists it with and without '/'."""
        return self.path.endswith('/') and len(self.path) > 1 and \
            self.path != '/docs/'


def _route(path, operation, kind, handler, policy=None, query=NONE,
           public=False):
    return Route(path, operation, kind, handler, policy, query, public)


_V2 = [
    ('/v2/flavors/', 'listFlavors', DOCUMENT, 'flavors',
     policies.FLAVOR_LIST, FILTERS),
    ('/v2/flavors/{flavor}', 'getFlavor', DOCUMENT, 'flavor',
     policies.FLAVOR_GET),
    ('/v2/gpus/', 'listGpus', DOCUMENT, 'gpus', policies.GPU_LIST,
     GPU_FILTERS),
    ('/v2/gpus/{gpu_type}', 'getGpu', DOCUMENT, 'gpu', policies.GPU_GET),
    ('/v2/status', 'getStatus', PAGE, 'status', policies.STATUS),
]

TABLE = [
    _route('/', 'getVersion', PAGE, 'version', query=IGNORED, public=True),
    _route('/gpus/flavors/', 'listLegacyFlavors', DOCUMENT,
           'legacy_flavors', policies.FLAVOR_LIST, IGNORED),
    _route('/gpus/flavors/{flavor_id}', 'getLegacyFlavor', DOCUMENT,
           'legacy_flavor', policies.FLAVOR_GET, IGNORED),
    # The predecessor's first API; /gpus/flavors is matched first, so a
    # type named "flavors" is only found under /v2/gpus/.
    _route('/gpus/', 'listLegacyGpus', DOCUMENT, 'legacy_gpus',
           policies.GPU_LIST, IGNORED),
    _route('/gpus/{gpu_type}', 'getLegacyGpu', DOCUMENT, 'legacy_gpu',
           policies.GPU_GET, IGNORED),
] + [
    _route(path, operation, kind, handler, policy, *query)
    for path, operation, kind, handler, policy, *query in _V2
] + [
    _route('/v2/clouds/', 'listClouds', PAGE, 'clouds',
           policies.FLAVOR_LIST),
] + [
    # Each v2 route of the default cloud, for every cloud by name.
    _route(path.replace('/v2/', '/v2/clouds/{cloud}/', 1),
           operation + 'OfCloud', kind, handler, policy, *query)
    for path, operation, kind, handler, policy, *query in _V2
] + [
    _route('/metrics', 'getMetrics', PAGE, 'metrics', policies.METRICS,
           IGNORED),
    _route('/openapi.json', 'getOpenAPI', PAGE, 'openapi', query=IGNORED,
           public=True),
    _route('/docs', None, PAGE, 'docs_redirect', query=IGNORED,
           public=True),
    _route('/docs/', 'getDocs', PAGE, 'docs', query=IGNORED, public=True),
    _route('/docs/{asset}', None, PAGE, 'docs', query=IGNORED,
           public=True),
    _route('/healthcheck', 'getHealth', MOUNTED, 'healthcheck',
           query=IGNORED, public=True),
]


class Router:
    """Finds the route of a path: (Route, {parameter: value}) or None."""

    def __init__(self, table=None):
        table = TABLE if table is None else table
        # Literal paths: one dict lookup, the common case.
        self._literal = {}
        self._templates = []
        for route in table:
            segments = route.path.strip('/').split('/')
            if any(s.startswith('{') for s in segments):
                self._templates.append((segments, route))
            else:
                self._literal[route.path] = route
        # The other spelling of each literal path, unless listed itself.
        for path, route in list(self._literal.items()):
            if path != '/':
                other = path[:-1] if path.endswith('/') else path + '/'
                self._literal.setdefault(other, route)

    def match(self, path):
        route = self._literal.get(path)
        if route is not None:
            return route, {}
        segments = path[1:].split('/')
        if len(segments) > 1 and segments[-1] == '':
            segments.pop()
        for template, route in self._templates:
            params = _bind(template, segments)
            if params is not None:
                return route, params
        return None

    def public(self, path):
        """Whether path is served without authentication."""
        found = self.match(path)
        return found is not None and found[0].public


def _bind(template, segments):
    if len(template) != len(segments):
        return None
    params = {}
    for pattern, segment in zip(template, segments):
        if pattern.startswith('{'):
            if not segment:
                return None
            params[pattern[1:-1]] = segment
        elif pattern != segment:
            return None
    return params
