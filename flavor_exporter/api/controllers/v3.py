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
"""/v3/: the service's own API, for the default cloud and by cloud name.

/v3/clouds/{cloud}/ serves every resource of /v3/ (but the version
document and the cloud list) for the cloud the path names; the
resources read which from the request (controllers/base.py).
"""

import pecan

from flavor_exporter.api.controllers import base
from flavor_exporter.api.controllers import checks
from flavor_exporter.api.controllers import defrag
from flavor_exporter.api.controllers import flavors
from flavor_exporter.api.controllers import gpus
from flavor_exporter.api.controllers import projects
from flavor_exporter.api.controllers import status
from flavor_exporter.api.controllers import versions
from flavor_exporter.api.controllers import whatif
from flavor_exporter.api import responses


class CloudController(object):
    """The resources of one cloud's data."""

    flavors = flavors.FlavorsController()
    gpus = gpus.GpusController()
    status = status.StatusController()
    projects = projects.ProjectsController()
    checks = checks.ChecksController()
    whatif = whatif.WhatifController()
    defrag = defrag.DefragController()


class CloudsController(base.Resource):
    """/v3/clouds/: the clouds served, and each by name."""

    _cloud = CloudController()

    @base.expose('listClouds')
    def get_all(self):
        return status.clouds_page(base.request())

    @pecan.expose()
    def _lookup(self, cloud, *remainder):
        # An unknown name is the resource's 404 (published.Published).
        base.request().cloud = cloud
        return self._cloud, remainder


class V3Controller(CloudController):
    """/v3/: the default cloud's resources, and the others'."""

    clouds = CloudsController()

    @base.expose('getVersionV3')
    def index(self):
        return responses.page({'version': versions.versions(
            base.request().application_url)['v3']})
