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
"""/: the version document, and the routes that hang from the root.

/healthcheck is not here: oslo.middleware answers it before Pecan (see
flavor_exporter.api.app).
"""

import pecan

from flavor_exporter.api import access
from flavor_exporter.api.controllers import docs
from flavor_exporter.api.controllers import legacy
from flavor_exporter.api.controllers import v2
from flavor_exporter.api import metrics
from flavor_exporter.api import responses
from flavor_exporter.policies import capacity as policies
from flavor_exporter import version


def _version():
    try:
        return version.version_string()
    except Exception:
        # pbr needs the package metadata or a git checkout.
        return 'unknown'


def version_document():
    return {
        'name': 'flavor-exporter',
        'description': 'Per-flavor capacity of this OpenStack cloud: how '
                       'many instances of each flavor fit now, and in the '
                       'empty cloud.',
        'version': _version(),
        'versions': [
            {'id': 'v2', 'status': 'CURRENT',
             'links': [{'rel': 'self', 'href': '/v2/flavors/'},
                       {'rel': 'status', 'href': '/v2/status'},
                       {'rel': 'clouds', 'href': '/v2/clouds/'}]},
            {'id': 'legacy', 'status': 'SUPPORTED',
             'links': [{'rel': 'self', 'href': '/gpus/flavors/'}]},
        ],
        'links': [
            {'rel': 'describedby', 'href': '/openapi.json',
             'type': 'application/vnd.oai.openapi+json;version=3.0'},
            {'rel': 'help', 'href': '/docs/', 'type': 'text/html'},
            {'rel': 'metrics', 'href': '/metrics'},
            {'rel': 'health', 'href': '/healthcheck'},
        ],
    }


class RootController:

    def __init__(self, readers, retry_after, stale_after):
        """readers: the reader.CloudReaders of this process."""
        self._metrics = metrics.Exposition(readers)
        self._version = responses.body(version_document()).body
        self._openapi = docs.openapi_document()
        self.gpus = legacy.GpusController(readers.default, retry_after)
        self.v2 = v2.V2Controller(readers, retry_after, stale_after)
        self.docs = docs.DocsController()

    @pecan.expose()
    def index(self):
        return responses.body(self._version)

    @pecan.expose(route='openapi.json')
    def openapi(self):
        return responses.body(self._openapi)

    @pecan.expose(route='metrics')
    def metrics_(self):
        access.of(pecan.request).require(policies.METRICS)
        return responses.body(self._metrics(),
                              content_type=metrics.CONTENT_TYPE)
