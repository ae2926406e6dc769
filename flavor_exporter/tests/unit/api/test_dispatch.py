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
"""One router for every request: the route table, methods, HEAD, pages."""

from unittest import mock

import webtest

from flavor_exporter.api import app
from flavor_exporter.api import dispatch
from flavor_exporter.api import routes
from flavor_exporter.tests import base as test_base
from flavor_exporter.tests.unit.api import base


class TestRouter(test_base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.router = routes.Router()

    def handler(self, path):
        """(name of the route's function, parameters), or None."""
        found = self.router.match(path)
        if found is None:
            return None
        route, params = found
        return (route.handler if route.mounted else route.handler.__name__,
                params)

    def test_literal_paths_with_or_without_a_slash(self):
        for path in ('/gpus/flavors', '/gpus/flavors/'):
            self.assertEqual(('legacy_list', {}), self.handler(path))
        for path in ('/v3/status', '/v3/status/'):
            self.assertEqual(('show_status', {}), self.handler(path))
        self.assertEqual(('show_versions', {}), self.handler('/'))

    def test_docs_and_docs_slash_differ(self):
        self.assertEqual(('redirect_to_docs', {}), self.handler('/docs'))
        self.assertEqual(('show_docs', {}), self.handler('/docs/'))
        self.assertEqual(('show_docs', {'asset': 'swagger-ui.css'}),
                         self.handler('/docs/swagger-ui.css'))

    def test_parameters(self):
        self.assertEqual(('show_flavor', {'flavor': 'm1.large'}),
                         self.handler('/v3/flavors/m1.large'))
        self.assertEqual(('show_flavor', {'flavor': 'index'}),
                         self.handler('/v3/flavors/index/'))
        self.assertEqual(('show_flavor', {'cloud': 'west', 'flavor': 'g1'}),
                         self.handler('/v3/clouds/west/flavors/g1'))
        self.assertEqual(('list_flavors', {'cloud': 'west'}),
                         self.handler('/v3/clouds/west/flavors'))
        self.assertEqual(('show_status', {'cloud': 'west'}),
                         self.handler('/v3/clouds/west/status'))
        self.assertEqual(('show_gpu', {'cloud': 'west', 'gpu_type': 'VGPU'}),
                         self.handler('/v3/clouds/west/gpus/VGPU'))
        # The predecessor's two families under /gpus: flavors first.
        self.assertEqual(('legacy_list', {}),
                         self.handler('/gpus/flavors'))
        self.assertEqual(('legacy_list', {}), self.handler('/gpus'))
        self.assertEqual(('legacy_one', {'gpu_type': 'A100'}),
                         self.handler('/gpus/A100/'))

    def test_no_route(self):
        for path in ('/v3/flavors//', '/v3/flavors/a/b', '/v4', '/gpu',
                     '/v3/gpus/a/b', '/gpus//', '/v3/clouds/west',
                     '/metrics/x', '//'):
            self.assertIsNone(self.handler(path), path)

    def test_the_seed_list_and_the_roots(self):
        self.assertEqual(('seed_list', {}), self.handler('/v2/flavors/'))
        self.assertEqual(('seed_list', {}), self.handler('/v2/flavors'))
        self.assertEqual(('show_v2', {}), self.handler('/v2'))
        self.assertEqual(('show_v3', {}), self.handler('/v3/'))
        # The rest of the old /v2 moved to /v3.
        self.assertIsNone(self.handler('/v2/flavors/g1'))
        self.assertIsNone(self.handler('/v2/status'))

    def test_public_routes(self):
        public = {route.path for route in routes.TABLE if route.public}
        self.assertEqual({'/', '/v2/', '/v3/', '/healthcheck', '/docs',
                          '/docs/', '/docs/{asset}', '/openapi.json'},
                         public)


class TestDispatcher(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.publish()
        data = app.make_published(self.conf, self.backend)
        self.health = mock.Mock(side_effect=self.app.app)
        self.router = routes.Router()
        self._app = webtest.TestApp(dispatch.Dispatcher(
            data, {routes.HEALTHCHECK: self.health}, None, None,
            self.router))

    def test_the_route_is_matched_once(self):
        with mock.patch.object(self.router, 'match',
                               wraps=self.router.match) as match:
            self.app.get('/v3/flavors/g1')
        self.assertEqual(1, match.call_count)

    def test_methods_of_the_route(self):
        for path in ('/v3/flavors/', '/healthcheck'):
            response = self.app.post(path, status=405)
            self.assertJsonError(response, 405,
                                 'POST is not allowed here; GET or HEAD is')
            self.assertEqual('GET, HEAD', response.headers['Allow'])
        response = self.app.get('/v3/checks', status=405)
        self.assertEqual('POST', response.headers['Allow'])
        # No route: a method no route answers is refused, another is 404.
        response = self.app.put('/nowhere', status=405)
        self.assertEqual('GET, HEAD, POST', response.headers['Allow'])
        self.app.post('/nowhere', status=404)
        self.health.assert_not_called()

    def test_head_has_the_headers_not_the_body(self):
        get = self.app.get('/v3/flavors/')
        head = self.app.head('/v3/flavors/')
        self.assertEqual(b'', head.body)
        for header in ('ETag', 'Last-Modified', 'Content-Length'):
            self.assertEqual(get.headers[header], head.headers[header])

    def test_unknown_path(self):
        self.assertJsonError(self.app.get('/v4/flavors', status=404), 404,
                             'No such resource: /v4/flavors')
        self.assertJsonError(self.app.get('/v2/flavors/g1', status=404),
                             404, 'moved from /v2/ to /v3/ (GET '
                             '/v3/flavors/g1)')
        self.assertJsonError(self.app.get('/gpus/x/y', status=404), 404,
                             legacy=True)

    def test_accept_headers_do_not_matter(self):
        for path in ('/v3/status', '/v3/flavors/', '/'):
            self.app.get(path, headers={'Accept': 'text/html'})

    def test_query_strings(self):
        # Refused where a route takes none, pages included; ignored where
        # the predecessor ignored them.
        for path in ('/v3/status?x=1', '/v3/clouds/?x=1',
                     '/v3/flavors/g1?x=1'):
            self.assertJsonError(self.app.get(path, status=400), 400)
        for path in ('/gpus/flavors?_=1', '/gpus/flavors/g1?_=1',
                     '/metrics?x=1', '/?x=1'):
            self.app.get(path)

    def test_pages_get_the_path_parameters(self):
        self.app.get('/v3/clouds/default/status')
        self.assertJsonError(
            self.app.get('/v3/clouds/north/status', status=404), 404,
            'No cloud is named "north"')
