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
"""The Pecan tree serves exactly the route table, and Pecan's quirks."""

import inspect

import pecan
from pecan import util as pecan_util
import webtest

from flavor_exporter.api import app
from flavor_exporter.api.controllers import base as controllers
from flavor_exporter.api import pecan_argspec
from flavor_exporter.api import routes
from flavor_exporter.tests import base as test_base
from flavor_exporter.tests.unit.api import base

#: The redirect of /docs to /docs/ is the Swagger page's method's.
SAME_METHOD = {'redirectToDocs': 'getDocs'}
# A value of each path parameter, of the published sample cloud.
SAMPLES = {'flavor_id': 'g1', 'flavor': 'gpu.a100', 'cloud': 'default',
           'gpu_type': 'a100', 'project_id': 'p1', 'asset': 'swagger-ui.css'}


class _Served(pecan.hooks.PecanHook):
    """Remembers the route of the controller method that served."""

    priority = 1

    def __init__(self):
        self.routes = []

    def before(self, state):
        self.routes.append(controllers.route_of(state.controller))


class TestTheTreeServesTheTable(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.publish()
        self.answer_checks()
        self.served = _Served()
        pecan_app = app.make_pecan_app(self.conf, self.backend)
        pecan_app.hooks.append(self.served)
        self.api = webtest.TestApp(pecan_app)

    def serving(self, method, path):
        """The route whose controller served method path."""
        del self.served.routes[:]
        if method == 'POST':
            self.api.post_json(path, {'servers': [
                {'flavor': 'gpu.a100', 'count': 1}]}, expect_errors=True)
        else:
            self.api.request(path, method=method, expect_errors=True)
        return self.served.routes[-1] if self.served.routes else None

    def test_each_route_by_its_controller(self):
        for route in routes.TABLE:
            path = route.path.format(**SAMPLES)
            operation = route.operation.replace(routes.OF_CLOUD, '')
            expected = routes.BY_OPERATION[SAME_METHOD.get(operation,
                                                           operation)]
            for method in route.methods:
                self.assertEqual(expected, self.serving(method, path),
                                 '%s %s' % (method, path))
                if path != '/' and route.path not in ('/docs', '/docs/'):
                    other = path[:-1] if path.endswith('/') else path + '/'
                    self.assertEqual(expected, self.serving(method, other),
                                     '%s %s' % (method, other))

    def test_no_controller_beside_the_table(self):
        for path in ('/nothing', '/v4', '/v3/other', '/metrics/x',
                     '/v3/flavors/a/b', '/v3/projects/p1', '/v3/projects/',
                     '/v3/clouds/default', '/gpus/a/b', '/docs/a/b',
                     '/v3/status/x', '/openapi.json/x', '/v3/_lookup',
                     '/v3/get_all'):
            self.assertIsNone(self.serving('GET', path), path)
            self.assertEqual(404, self.api.get(path, expect_errors=True)
                             .status_int, path)

    def test_every_exposed_method_names_its_route(self):
        seen = set()
        for route in routes.TABLE:
            operation = route.operation.replace(routes.OF_CLOUD, '')
            seen.add(SAME_METHOD.get(operation, operation))
        named = set()
        for module_name in ('checks', 'defrag', 'docs', 'flavors', 'gpus',
                            'health', 'metrics', 'projects', 'root',
                            'status', 'v3', 'whatif'):
            module = __import__('flavor_exporter.api.controllers.%s'
                                % module_name, fromlist=['x'])
            for _, kind in inspect.getmembers(module, inspect.isclass):
                for name, method in vars(kind).items():
                    route = controllers.route_of(method)
                    if route is not None:
                        named.add(route.operation)
        self.assertEqual(seen, named)


class TestArgspecWorkaround(test_base.BaseTestCase):

    def test_installed_answers_as_pecan_would(self):
        pecan_argspec.install()
        remembered = pecan_util.getargspec

        class Resource(pecan.rest.RestController):
            def get_one(self, flavor, extra=None):
                pass
        resource = Resource()
        self.assertEqual(tuple(pecan_argspec.stock_getargspec(
            resource.get_one)), tuple(remembered(resource.get_one)))
        # One answer per function, however often a bound method is made.
        self.assertIs(remembered(resource.get_one),
                      remembered(Resource().get_one))
        self.assertFalse(pecan_argspec.install())

    def test_still_needed(self):
        # When this fails, Pecan remembers signatures itself: remove
        # api/pecan_argspec.py and its install() in api/app.py.
        def controller(self, flavor):
            pass
        first = pecan_argspec.stock_getargspec(controller)
        self.assertIsNot(type(first),
                         type(pecan_argspec.stock_getargspec(controller)))
