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
"""Every route of the API, in one table: what the API serves.

Pecan routes each request through the controllers (controllers/); this
table says, for each route, what the controllers cannot say by their
shape: its OpenAPI operationId, the policy a caller must pass (hooks.py
enforces it), how it takes a query string (hooks.py parses it), whether
it is public (served without authentication, auth.py), and the methods
it answers. Each exposed controller method names its route's operation
(controllers/base.py), and tests prove that the controllers serve
exactly these routes, that the OpenAPI document (openapi.json) lists
exactly them, and that the policies' documented operations are theirs.

Three roots: /v3, the service's own API; /v2/flavors/, the list of the
OpenStackFlavorExporter this service replaces (its live client, the
de.NBI SimpleVM portal, reads it); /gpus, the OpenstackGPUService's.

A path matches with or without one trailing slash, except where the
table lists both (/docs and /docs/ differ: relative links in the Swagger
page need the slash). Parameters match one non-empty path segment.
"""

import collections
import re

from flavor_exporter.policies import capacity as policies

# How a route takes a query string.
FILTERS = 'filters'      # the v3 list filters (filters.ListQuery)
GPU_FILTERS = 'gpu_filters'  # the v3 GPU list filter (filters.GpuQuery)
NONE = 'none'            # refused: a misspelt filter must not go unseen
IGNORED = 'ignored'      # the predecessors ignored them; portals add some


#: The methods of a route that reads, and of the one that computes.
READ = ('GET', 'HEAD')
POST = ('POST',)
#: Methods some route answers; others are refused on every path.
ALLOWED_METHODS = READ + POST
#: The suffix of the operations of a v3 route for a cloud named in the
#: path (/v3/clouds/{cloud}/...): the same controller serves both.
OF_CLOUD = 'OfCloud'


class Route(collections.namedtuple(
        'Route', 'path operation policy query public methods')):
    """One route: path template, OpenAPI operationId, how it is served.

    operation: None for a route OpenAPI does not list (a redirect, the
    Swagger assets); policy: the rule a caller must pass (None: any
    caller, or one the controller enforces on what the body names);
    public: served without authentication; methods: those it answers.
    """

    @property
    def collection(self):
        """Whether the OpenAPI document lists it with and without '/'."""
        return self.path.endswith('/') and len(self.path) > 1 and \
            self.path != '/docs/'


def _route(path, operation, policy=None, query=NONE, public=False,
           methods=READ):
    return Route(path, operation, policy, query, public, methods)


_V3 = [
    _route('/v3/flavors/', 'listFlavors', policies.FLAVOR_LIST, FILTERS),
    _route('/v3/flavors/{flavor}', 'getFlavor', policies.FLAVOR_GET),
    _route('/v3/gpus/', 'listGpus', policies.GPU_LIST, GPU_FILTERS),
    _route('/v3/gpus/{gpu_type}', 'getGpu', policies.GPU_GET),
    _route('/v3/status', 'getStatus', policies.STATUS),
    _route('/v3/projects/{project_id}/flavors/', 'listProjectFlavors',
           policies.PROJECT_FLAVOR_LIST),
    _route('/v3/projects/{project_id}/flavors/{flavor}', 'getProjectFlavor',
           policies.PROJECT_FLAVOR_GET),
    # The policy is the controller's: the project is in the body.
    _route('/v3/checks', 'createCheck', methods=POST),
    _route('/v3/whatif', 'createWhatif', policies.WHATIF_CREATE,
           methods=POST),
    _route('/v3/defrag', 'createDefrag', policies.DEFRAG_CREATE,
           methods=POST),
]

TABLE = [
    _route('/', 'getVersion', query=IGNORED, public=True),
    _route('/v3/', 'getVersionV3', query=IGNORED, public=True),
    _route('/v2/', 'getVersionV2', query=IGNORED, public=True),
    # The seed's clients send no query; what another adds is ignored, as
    # the seed did.
    _route('/v2/flavors/', 'listSeedFlavors', policies.FLAVOR_LIST, IGNORED),
    _route('/gpus/flavors/', 'listLegacyFlavors', policies.FLAVOR_LIST,
           IGNORED),
    _route('/gpus/flavors/{flavor_id}', 'getLegacyFlavor',
           policies.FLAVOR_GET, IGNORED),
    # The predecessor's first API; /gpus/flavors is matched first, so a
    # type named "flavors" is only found under /v3/gpus/.
    _route('/gpus/', 'listLegacyGpus', policies.GPU_LIST, IGNORED),
    _route('/gpus/{gpu_type}', 'getLegacyGpu', policies.GPU_GET, IGNORED),
] + _V3 + [
    _route('/v3/clouds/', 'listClouds', policies.FLAVOR_LIST),
] + [
    # Each v3 route of the default cloud, for every cloud by name.
    route._replace(path=route.path.replace('/v3/', '/v3/clouds/{cloud}/', 1),
                   operation=route.operation + OF_CLOUD)
    for route in _V3
] + [
    _route('/metrics', 'getMetrics', policies.METRICS, IGNORED),
    _route('/openapi.json', 'getOpenAPI', query=IGNORED, public=True),
    _route('/docs', 'redirectToDocs', query=IGNORED, public=True),
    _route('/docs/', 'getDocs', query=IGNORED, public=True),
    _route('/docs/{asset}', 'getDocsAsset', query=IGNORED, public=True),
    _route('/healthcheck', 'getHealth', query=IGNORED, public=True),
]

#: The operations OpenAPI does not list: a redirect, Swagger's files.
UNDOCUMENTED = ('redirectToDocs', 'getDocsAsset')
#: {operation: Route}; a cloud's operation finds the default cloud's.
BY_OPERATION = {route.operation: route for route in TABLE}


def _pattern(path):
    """The regular expression of a path template, '/' optional at its end.

    '/' itself, and a template listed with and without the slash, match
    only as listed.
    """
    body = re.sub(r'\\{[a-z_]+\\}', '[^/]+', re.escape(path.rstrip('/')))
    if path == '/' or path in ('/docs', '/docs/'):
        return re.escape(path)
    return body + '/?'


#: (compiled path pattern, methods) of every route, in the table's order.
_MATCHERS = [(re.compile(_pattern(route.path)), route.methods)
             for route in TABLE]


def methods_of(path):
    """The methods the route of path answers, None when no route has it.

    For the answers to what Pecan could not route (hooks.py): 405 for a
    method the route does not answer, 404 for a path no route has.
    """
    for pattern, methods in _MATCHERS:
        if pattern.fullmatch(path):
            return methods
    return None


#: The routes that answer POST only (and only they answer POST).
_POST_ONLY = re.compile('|'.join('(?:%s)' % _pattern(route.path)
                                 for route in TABLE if route.methods == POST))


def refusing(method, path):
    """The methods to name when path's route does not answer method.

    None when the table does not refuse method on path (an unknown path
    is refused only methods no route answers).
    """
    if method in READ:
        return POST if _POST_ONLY.fullmatch(path) else None
    if method == 'POST':
        methods = methods_of(path)
        return None if methods is None or 'POST' in methods else methods
    return methods_of(path) or ALLOWED_METHODS


#: Paths served without authentication (auth.py).
PUBLIC = re.compile('|'.join(
    '(?:%s)' % _pattern(route.path) for route in TABLE if route.public))


def is_public(path):
    """Whether path is a public route's (its decoded PATH_INFO)."""
    return PUBLIC.fullmatch(path) is not None
