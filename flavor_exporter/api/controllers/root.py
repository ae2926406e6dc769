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
"""The root of the tree: /, /v2/ and the routes beside /v3/."""

import pecan

from flavor_exporter.api.controllers import base
from flavor_exporter.api.controllers import docs
from flavor_exporter.api.controllers import flavors
from flavor_exporter.api.controllers import gpus
from flavor_exporter.api.controllers import health
from flavor_exporter.api.controllers import metrics
from flavor_exporter.api.controllers import v3
from flavor_exporter.api.controllers import versions
from flavor_exporter.api import responses


class V2Controller(object):
    """/v2/: the seed's API root, and its list."""

    flavors = flavors.SeedFlavorsController()

    @base.expose('getVersionV2')
    def index(self):
        return responses.page({'version': versions.versions(
            base.request().application_url)['v2']})


class RootController(object):
    """/: every root of the API, and where its description is.

    The roots are plain objects, the resources REST controllers: Pecan
    walks a plain object's attributes, a REST controller's methods and
    children too, and a request crosses the roots on its way.
    """

    v2 = V2Controller()
    v3 = v3.V3Controller()
    gpus = gpus.LegacyGpusController()
    metrics = metrics.MetricsController()
    docs = docs.DocsController()

    def __init__(self, healthcheck):
        """healthcheck: the /healthcheck application (healthcheck.py)."""
        self.healthcheck = health.HealthController(healthcheck)

    @base.expose('getVersion')
    def index(self):
        return responses.page(versions.version_document(
            base.request().application_url))


pecan.route(RootController, 'openapi.json', docs.OpenApiController())
