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
"""openapi.json describes exactly the routes the app has."""

import json
import re

import openapi_spec_validator
from pecan import util as pecan_util

from flavor_exporter.api import app
from flavor_exporter.api.controllers import base as controllers_base
from flavor_exporter.api.controllers import docs
from flavor_exporter.api.controllers import root
from flavor_exporter.api.controllers import v2
from flavor_exporter.api import reader
from flavor_exporter.tests.unit.api import base

# Sample values for path parameters, all of published flavors.
SAMPLES = {'flavor_id': 'g1', 'flavor': 'gpu.a100', 'cloud': 'default'}


def _normal(path):
    return re.sub(r'\{[^}]*\}', '{}', path)


def app_routes():
    """Every path the app answers, from its controllers, {} for keys."""
    routes = {app.HEALTHCHECK_PATH}

    def walk(controller, prefix):
        if isinstance(controller, controllers_base.CollectionController):
            routes.update([prefix, prefix + '/', prefix + '/{}'])
            return
        if isinstance(controller, v2.CloudsController):
            # Its members are the clouds, each with the routes of one.
            routes.update([prefix, prefix + '/'])
            walk(next(iter(controller._clouds.values())), prefix + '/{}')
            return
        if isinstance(controller, docs.DocsController):
            # Swagger UI's page; its assets are not API routes.
            routes.add(prefix + '/')
            return
        for name in dir(controller):
            if name.startswith('__'):
                continue
            value = getattr(controller, name)
            if pecan_util.iscontroller(value):
                if name == 'index':
                    routes.add(prefix + '/')
                else:
                    segment = getattr(value, 'custom_route', None) or name
                    routes.add(prefix + '/' + segment)
            elif (not name.startswith('_') and
                  type(value).__module__.startswith(
                      'flavor_exporter.api.controllers')):
                walk(value, prefix + '/' + name)

    walk(root.RootController(reader.CloudReaders({'default': None},
                                                 'default'), 30, 300), '')
    return routes


class TestOpenApi(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.document = json.loads(docs.openapi_document())

    def test_valid_openapi_3(self):
        openapi_spec_validator.validate(self.document)

    def test_every_route_documented_and_no_other(self):
        documented = {_normal(p) for p in self.document['paths']}
        routes = app_routes()
        self.assertIn('/v2/flavors/{}', routes)  # the walk sees collections
        self.assertEqual(set(), routes - documented,
                         'routes missing from openapi.json')
        self.assertEqual(set(), documented - routes,
                         'openapi.json documents routes the app lacks')

    def test_documented_answers(self):
        self.publish()
        for path, item in self.document['paths'].items():
            url = path.format(**SAMPLES)
            operation = item['get']
            response = self.app.get(url, expect_errors=True)
            self.assertIn(str(response.status_int), operation['responses'],
                          url)
            content = operation['responses'][str(response.status_int)].get(
                'content', {})
            if response.body:
                media = [c.split(';')[0] for c in content]
                self.assertIn(response.content_type, media, url)

    def test_public_routes_documented_public(self):
        public = {p for p, item in self.document['paths'].items()
                  if item['get'].get('security') == []}
        self.assertEqual({'/', '/healthcheck', '/openapi.json', '/docs/'},
                         public)
