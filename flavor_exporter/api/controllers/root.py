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
"""The Pecan root: the PAGE routes of the route table, and /.

Pecan does not look routes up itself: dispatch.py matched the request
against the table (routes.py) and checked its policy; ``_route`` hands
Pecan the controller method the route names, with the path's parameters.
"""

import pecan

from flavor_exporter.api.controllers import docs
from flavor_exporter.api.controllers import v2
from flavor_exporter.api import dispatch
from flavor_exporter.api import metrics
from flavor_exporter.api import responses
from flavor_exporter import version


def _version():
    try:
        return version.version_string()
    except Exception:
        # pbr needs the package metadata or a git checkout.
        return 'unknown'


def version_document(base_url='', version_string=None):
    """The version document, its links under base_url (no final '/').

    Absolute links, as OpenStack version documents have them: a client
    follows them as they are, and behind a TLS-terminating proxy
    (http_proxy_to_wsgi) they name the proxy's scheme, host and prefix.
    """
    return {
        'name': 'flavor-exporter',
        'description': 'Per-flavor capacity of this OpenStack cloud: how '
                       'many instances of each flavor fit now, and in the '
                       'empty cloud.',
        'version': version_string or _version(),
        'versions': [
            {'id': 'v2', 'status': 'CURRENT',
             'links': [{'rel': 'self', 'href': base_url + '/v2/flavors/'},
                       {'rel': 'status', 'href': base_url + '/v2/status'},
                       {'rel': 'clouds', 'href': base_url + '/v2/clouds/'}]},
            {'id': 'legacy', 'status': 'SUPPORTED',
             'links': [{'rel': 'self', 'href': base_url + '/gpus/flavors/'}]},
        ],
        'links': [
            {'rel': 'describedby', 'href': base_url + '/openapi.json',
             'type': 'application/vnd.oai.openapi+json;version=3.0'},
            {'rel': 'help', 'href': base_url + '/docs/', 'type': 'text/html'},
            {'rel': 'metrics', 'href': base_url + '/metrics'},
            {'rel': 'health', 'href': base_url + '/healthcheck'},
        ],
    }


class RootController:

    def __init__(self, queries, stale_after):
        v2_pages = v2.V2Controller(queries, stale_after)
        docs_pages = docs.DocsController()
        self._metrics = metrics.Exposition(queries)
        self._openapi = docs.OpenApiDocument()
        self._version_string = _version()
        # Handler names of the route table -> controller methods.
        self._pages = {
            'version': self.version,
            'openapi': self.openapi,
            'metrics': self.metrics,
            'status': v2_pages.status,
            'clouds': v2_pages.clouds,
            'docs': docs_pages.docs,
            'docs_redirect': docs_pages.docs_redirect,
        }

    @pecan.expose()
    def _route(self, args, request):
        route, params = request.environ[dispatch.ROUTE_KEY]
        return self._pages[route.handler], list(params.values())

    @pecan.expose()
    def version(self):
        return responses.body(version_document(
            pecan.request.application_url, self._version_string))

    @pecan.expose()
    def openapi(self):
        return responses.body(self._openapi.served_at(
            pecan.request.application_url))

    @pecan.expose()
    def metrics(self):
        return responses.body(self._metrics(),
                              content_type=metrics.CONTENT_TYPE)
