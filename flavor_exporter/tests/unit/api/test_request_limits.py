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
"""What the API answers to requests no route can serve well."""

from unittest import mock

from flavor_exporter.api.middleware import request_limits
from flavor_exporter.tests.unit.api import base


class TestRequestLimits(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.publish()

    def test_long_query_string(self):
        # Once the server dropped it, every flavor answered name=zzz.
        response = self.app.get('/v3/flavors/?name=zzz&pad=' + 'a' * 40000,
                                status=414)
        self.assertJsonError(response, 414, 'query string')

    def test_many_unknown_parameters_still_refused(self):
        query = '&'.join('p%d=1' % i for i in range(2000))
        self.assertLess(len(query), request_limits.QUERY_LIMIT)
        self.app.get('/v3/flavors/?' + query, status=400)

    def test_query_string_the_server_cut(self):
        # uWSGI keeps the whole query in REQUEST_URI only.
        response = self.app.get(
            '/gpus/flavors/', status=414,
            extra_environ={'REQUEST_URI': '/gpus/flavors/?name=' + 'z' * 40,
                           'QUERY_STRING': ''})
        self.assertJsonError(response, 414, legacy=True)

    def test_query_string_as_received(self):
        self.app.get('/v3/flavors/', params={'name': 'g1'},
                     extra_environ={'REQUEST_URI': '/v3/flavors/?name=g1'})

    def test_long_path(self):
        response = self.app.get('/gpus/flavors/' + 'a' * 5000, status=414)
        self.assertJsonError(response, 414, 'path', legacy=True)

    def test_large_headers(self):
        response = self.app.get('/v3/flavors/', status=431,
                                headers={'X-Big': 'a' * 40000})
        self.assertJsonError(response, 431, 'headers')

    def test_path_not_utf8_one_log_line(self):
        with mock.patch.object(request_limits, 'LOG') as log:
            for path in ('/v3/flavors/\xff', '/docs/\xff'):
                response = self.app.get(
                    '/', status=400, extra_environ={'PATH_INFO': path})
                self.assertJsonError(response, 400, 'UTF-8')
        self.assertEqual(2, log.info.call_count)

    def test_legacy_path_not_utf8(self):
        response = self.app.get('/', status=400, extra_environ={
            'PATH_INFO': '/gpus/flavors/\xff'})
        self.assertJsonError(response, 400, 'UTF-8', legacy=True)

    def test_utf8_path_passes(self):
        # "é" as a server hands it over: its UTF-8 bytes as latin-1.
        response = self.app.get('/', status=404, extra_environ={
            'PATH_INFO': '/v3/flavors/\xc3\xa9'})
        self.assertJsonError(response, 404)

    def test_query_not_utf8(self):
        response = self.app.get('/v3/flavors/?name=%ff', status=400)
        self.assertJsonError(response, 400, 'query string')


class TestEmptySegments(base.ApiTestCase):

    def test_double_slash_is_not_found(self):
        self.publish()
        for path in ('/gpus/flavors//', '/v3/flavors//',
                     '/gpus/flavors//x', '/v3/flavors//x'):
            self.assertJsonError(self.app.get(path, status=404), 404,
                                 legacy=path.startswith('/gpus'))


class TestReadOnly(base.ApiTestCase):

    def test_healthcheck_refuses_other_methods(self):
        self.publish()
        for method in ('POST', 'DELETE', 'TRACE', 'PUT', 'OPTIONS'):
            response = self.app.request('/healthcheck', method=method,
                                        status=405)
            self.assertJsonError(response, 405, method)
            self.assertEqual('GET, HEAD', response.headers['Allow'])
        self.assertLess(self.app.head('/healthcheck').status_int, 300)
