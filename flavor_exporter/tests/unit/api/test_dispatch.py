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
        found = self.router.match(path)
        return None if found is None else (found[0].handler, found[1])

    def test_literal_paths_with_or_without_a_slash(self):
        for path in ('/gpus/flavors', '/gpus/flavors/'):
            self.assertEqual(('legacy_flavors', {}), self.handler(path))
        for path in ('/v2/status', '/v2/status/'):
            self.assertEqual(('status', {}), self.handler(path))
        self.assertEqual(('version', {}), self.handler('/'))

    def test_docs_and_docs_slash_differ(self):
        self.assertEqual(('docs_redirect', {}), self.handler('/docs'))
        self.assertEqual(('docs', {}), self.handler('/docs/'))
        self.assertEqual(('docs', {'asset': 'swagger-ui.css'}),
                         self.handler('/docs/swagger-ui.css'))

    def test_parameters(self):
        self.assertEqual(('flavor', {'flavor': 'm1.large'}),
                         self.handler('/v2/flavors/m1.large'))
        self.assertEqual(('flavor', {'flavor': 'index'}),
                         self.handler('/v2/flavors/index/'))
        self.assertEqual(('flavor', {'cloud': 'west', 'flavor': 'g1'}),
                         self.handler('/v2/clouds/west/flavors/g1'))
        self.assertEqual(('flavors', {'cloud': 'west'}),
                         self.handler('/v2/clouds/west/flavors'))
        self.assertEqual(('status', {'cloud': 'west'}),
                         self.handler('/v2/clouds/west/status'))
        self.assertEqual(('gpu', {'cloud': 'west', 'gpu_type': 'VGPU'}),
                         self.handler('/v2/clouds/west/gpus/VGPU'))
        # The predecessor's two families under /gpus: flavors first.
        self.assertEqual(('legacy_flavors', {}),
                         self.handler('/gpus/flavors'))
        self.assertEqual(('legacy_gpus', {}), self.handler('/gpus'))
        self.assertEqual(('legacy_gpu', {'gpu_type': 'A100'}),
                         self.handler('/gpus/A100/'))

    def test_no_route(self):
        for path in ('/v2/flavors//', '/v2/flavors/a/b', '/v2', '/gpu',
                     '/v2/gpus/a/b', '/gpus//', '/v2/clouds/west',
                     '/metrics/x', '//'):
            self.assertIsNone(self.handler(path), path)

    def test_public_routes(self):
        self.assertTrue(self.router.public('/healthcheck'))
        self.assertTrue(self.router.public('/docs/swagger-ui.css'))
        self.assertFalse(self.router.public('/v2/flavors/'))
        self.assertFalse(self.router.public('/nowhere'))


class Counting:
    """The Pecan application of the pages: counts what reaches it."""

    def __init__(self, pages):
        self.pages = pages
        self.calls = 0

    def __call__(self, environ, start_response):
        self.calls += 1
        return self.pages(environ, start_response)


class TestDispatcher(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.publish()
        queries = app.make_queries(self.conf, self.backend)
        self.pages = Counting(app.make_pages(queries, self.conf))
        self.health = mock.Mock(side_effect=self.app.app)
        self._app = webtest.TestApp(dispatch.Dispatcher(
            queries, self.pages, {'healthcheck': self.health}, None, 30))

    def test_documents_never_reach_pecan(self):
        for path in ('/gpus/flavors', '/gpus/flavors/g1', '/v2/flavors/',
                     '/v2/flavors/?gpu=true&name=a', '/v2/flavors/g1',
                     '/v2/clouds/default/flavors/g1', '/v2/flavors/nope'):
            self.app.get(path, expect_errors=True)
        self.assertEqual(0, self.pages.calls)
        self.app.get('/v2/status')
        self.assertEqual(1, self.pages.calls)

    def test_read_only_on_every_path(self):
        for path in ('/v2/flavors/', '/healthcheck', '/nowhere'):
            response = self.app.post(path, status=405)
            self.assertJsonError(response, 405, 'read-only')
            self.assertEqual('GET, HEAD', response.headers['Allow'])
        self.health.assert_not_called()

    def test_head_has_the_headers_not_the_body(self):
        get = self.app.get('/v2/flavors/')
        head = self.app.head('/v2/flavors/')
        self.assertEqual(b'', head.body)
        for header in ('ETag', 'Last-Modified', 'Content-Length'):
            self.assertEqual(get.headers[header], head.headers[header])

    def test_unknown_path(self):
        self.assertJsonError(self.app.get('/v3/flavors', status=404), 404,
                             'No such resource: /v3/flavors')
        self.assertJsonError(self.app.get('/gpus/x/y', status=404), 404,
                             legacy=True)

    def test_accept_headers_do_not_matter(self):
        for path in ('/v2/status', '/v2/flavors/', '/'):
            self.app.get(path, headers={'Accept': 'text/html'})

    def test_query_strings(self):
        # Refused where a route takes none, pages included; ignored where
        # the predecessor ignored them.
        for path in ('/v2/status?x=1', '/v2/clouds/?x=1',
                     '/v2/flavors/g1?x=1'):
            self.assertJsonError(self.app.get(path, status=400), 400)
        for path in ('/gpus/flavors?_=1', '/gpus/flavors/g1?_=1',
                     '/metrics?x=1', '/?x=1'):
            self.app.get(path)

    def test_pages_get_the_path_parameters(self):
        self.app.get('/v2/clouds/default/status')
        self.assertJsonError(
            self.app.get('/v2/clouds/north/status', status=404), 404,
            'No cloud is named "north"')
