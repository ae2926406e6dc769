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
"""/healthcheck: oslo.middleware's healthcheck, as a route of the tree.

Its application (api/healthcheck.py: the data's freshness before the
backends an operator lists) answers; being a route, it is public, logged
and refused other methods as every route is.
"""

from flavor_exporter.api.controllers import base


class HealthController(base.Resource):

    def __init__(self, app):
        """app: the healthcheck's WSGI application (healthcheck.py)."""
        self._app = app

    @base.expose('getHealth')
    def get_all(self):
        return base.request().webob.get_response(self._app)
