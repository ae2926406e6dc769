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

Each route names the function that answers it (resources/), or, for
/healthcheck, a WSGI application of its own (oslo.middleware's).

Three roots: /v3, the service's own API; /v2/flavors/, the list of the
OpenStackFlavorExporter this service replaces (its live client, the
de.NBI SimpleVM portal, reads it); /gpus, the OpenstackGPUService's.

A path matches with or without one trailing slash, except where the
table lists both (/docs and /docs/ differ: relative links in the Swagger
page need the slash). Parameters match one non-empty path segment.
"""

import collections

from flavor_exporter.api.resources import checks
from flavor_exporter.api.resources import docs
from flavor_exporter.api.resources import flavors
from flavor_exporter.api.resources import gpus
from flavor_exporter.api.resources import metrics
from flavor_exporter.api.resources import projects
from flavor_exporter.api.resources import root
from flavor_exporter.api.resources import status
from flavor_exporter.policies import capacity as policies

#: The handler of the one mounted application, the healthcheck.
HEALTHCHECK = 'healthcheck'

# How a route takes a query string.
FILTERS = 'filters'      # the v3 list filters (filters.ListQuery)
GPU_FILTERS = 'gpu_filters'  # the v3 GPU list filter (filters.GpuQuery)
NONE = 'none'            # refused: a misspelt filter must not go unseen
IGNORED = 'ignored'      # the predecessors ignored them; portals add some


#: The methods of a route that reads, and of the one that computes.
READ = ('GET', 'HEAD')
POST = ('POST',)


class Route(collections.namedtuple(
        'Route', 'path operation handler policy query public methods')):
    """One route: path template, OpenAPI operationId, what answers it.

    handler: the function of resources/ that answers it, or HEALTHCHECK;
    policy: the rule a caller must pass (None: any caller, or one the
    handler enforces on what the body names); public: served without
    authentication; methods: those it answers.
    """

    @property
    def mounted(self):
        return self.handler == HEALTHCHECK

    @property
    def collection(self):
        """Whether the OpenAPI document lists it with and without '/'."""
        return self.path.endswith('/') and len(self.path) > 1 and \
            self.path != '/docs/'


def _route(path, operation, handler, policy=None, query=NONE,
           public=False, methods=READ):
    return Route(path, operation, handler, policy, query, public, methods)


_V3 = [
    ('/v3/flavors/', 'listFlavors', flavors.list_flavors,
     policies.FLAVOR_LIST, FILTERS),
    ('/v3/flavors/{flavor}', 'getFlavor', flavors.show_flavor,
     policies.FLAVOR_GET),
    ('/v3/gpus/', 'listGpus', gpus.list_gpus, policies.GPU_LIST,
     GPU_FILTERS),
    ('/v3/gpus/{gpu_type}', 'getGpu', gpus.show_gpu, policies.GPU_GET),
    ('/v3/status', 'getStatus', status.show_status, policies.STATUS),
    ('/v3/projects/{project_id}/flavors/', 'listProjectFlavors',
     projects.list_project_flavors, policies.PROJECT_FLAVOR_LIST),
    ('/v3/projects/{project_id}/flavors/{flavor}', 'getProjectFlavor',
     projects.show_project_flavor, policies.PROJECT_FLAVOR_GET),
    # The policy is the handler's: the project is in the body.
    ('/v3/checks', 'createCheck', checks.create_check, None, NONE, False,
     POST),
]

TABLE = [
    _route('/', 'getVersion', root.show_versions, query=IGNORED,
           public=True),
    _route('/v3/', 'getVersionV3', root.show_v3, query=IGNORED,
           public=True),
    _route('/v2/', 'getVersionV2', root.show_v2, query=IGNORED,
           public=True),
    # The seed's clients send no query; what another adds is ignored, as
    # the seed did.
    _route('/v2/flavors/', 'listSeedFlavors', flavors.seed_list,
           policies.FLAVOR_LIST, IGNORED),
    _route('/gpus/flavors/', 'listLegacyFlavors', flavors.legacy_list,
           policies.FLAVOR_LIST, IGNORED),
    _route('/gpus/flavors/{flavor_id}', 'getLegacyFlavor',
           flavors.legacy_one, policies.FLAVOR_GET, IGNORED),
    # The predecessor's first API; /gpus/flavors is matched first, so a
    # type named "flavors" is only found under /v3/gpus/.
    _route('/gpus/', 'listLegacyGpus', gpus.legacy_list, policies.GPU_LIST,
           IGNORED),
    _route('/gpus/{gpu_type}', 'getLegacyGpu', gpus.legacy_one,
           policies.GPU_GET, IGNORED),
] + [
    _route(path, operation, handler, policy, *query)
    for path, operation, handler, policy, *query in _V3
] + [
    _route('/v3/clouds/', 'listClouds', status.list_clouds,
           policies.FLAVOR_LIST),
] + [
    # Each v3 route of the default cloud, for every cloud by name.
    _route(path.replace('/v3/', '/v3/clouds/{cloud}/', 1),
           operation + 'OfCloud', handler, policy, *query)
    for path, operation, handler, policy, *query in _V3
] + [
    _route('/metrics', 'getMetrics', metrics.show_metrics, policies.METRICS,
           IGNORED),
    _route('/openapi.json', 'getOpenAPI', docs.show_openapi, query=IGNORED,
           public=True),
    _route('/docs', None, docs.redirect_to_docs, query=IGNORED,
           public=True),
    _route('/docs/', 'getDocs', docs.show_docs, query=IGNORED, public=True),
    _route('/docs/{asset}', None, docs.show_docs, query=IGNORED,
           public=True),
    _route('/healthcheck', 'getHealth', HEALTHCHECK, query=IGNORED,
           public=True),
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
