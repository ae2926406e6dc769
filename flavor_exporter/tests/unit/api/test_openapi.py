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
"""openapi.json and the policies describe exactly the route table."""

import json

import openapi_spec_validator

from flavor_exporter.api.controllers import docs
from flavor_exporter.api import routes
from flavor_exporter.policies import capacity as policies
from flavor_exporter.tests.unit.api import base

# Sample values for path parameters, all of published flavors and GPUs.
SAMPLES = {'flavor_id': 'g1', 'flavor': 'gpu.a100', 'cloud': 'default',
           'gpu_type': 'a100'}


def documented_routes():
    """{path: Route} of the table as OpenAPI lists paths."""
    paths = {}
    for route in routes.TABLE:
        if route.operation is None:
            continue
        paths[route.path] = route
        if route.collection:
            paths[route.path.rstrip('/')] = route
    return paths


class TestOpenApi(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.document = json.loads(docs.openapi_document())

    def test_valid_openapi_3(self):
        openapi_spec_validator.validate(self.document)

    def test_every_route_documented_and_no_other(self):
        self.assertEqual(sorted(documented_routes()),
                         sorted(self.document['paths']))

    def test_operations_are_the_tables(self):
        for path, route in documented_routes().items():
            operation = self.document['paths'][path]['get']['operationId']
            self.assertIn(operation, (route.operation,
                                      route.operation + 'Slash',
                                      route.operation.replace(
                                          'OfCloud', 'SlashOfCloud')))

    def test_policies_document_the_tables_operations(self):
        guarded = {}
        for route in routes.TABLE:
            if route.policy and route.operation:
                guarded.setdefault(route.policy, set()).add(
                    route.path.rstrip('/') if route.collection
                    else route.path)
        documented = {
            rule.name: {op['path'] for op in rule.operations}
            for rule in policies.list_rules()}
        for rule, paths in guarded.items():
            self.assertEqual(paths, documented[rule], rule)
        # The rules that shape answers name only routes of the table.
        tabled = {route.path.rstrip('/') if route.collection else route.path
                  for route in routes.TABLE}
        for rule in (policies.ALL_FLAVORS, policies.HOSTS):
            self.assertLessEqual(documented[rule], tabled, rule)

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
        self.assertEqual({path for path, route in documented_routes().items()
                          if route.public}, public)
