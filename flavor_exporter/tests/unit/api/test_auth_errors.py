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
"""keystonemiddleware's own error pages become the API's JSON errors."""

import json

import webob
import webob.exc

from flavor_exporter.api.middleware import auth_errors
from flavor_exporter.tests import base


def answering(response):
    def app(environ, start_response):
        return response(environ, start_response)
    return app


class TestAuthErrors(base.BaseTestCase):

    def call(self, response, path='/v3/flavors/', accept='text/html'):
        request = webob.Request.blank(path, headers={'Accept': accept})
        return request.get_response(
            auth_errors.AuthErrors(answering(response)))

    def test_keystone_unreachable_is_a_json_503(self):
        # What keystonemiddleware raises when it cannot reach Keystone.
        for accept in ('text/html', '*/*', 'text/plain'):
            answer = self.call(webob.exc.HTTPServiceUnavailable(),
                               accept=accept)
            self.assertEqual(503, answer.status_int)
            self.assertEqual('application/json', answer.content_type)
            error = json.loads(answer.body)['error']
            self.assertEqual(503, error['code'])
            self.assertIn('Keystone', error['message'])

    def test_legacy_routes_get_their_shape_and_headers_are_kept(self):
        answer = self.call(webob.exc.HTTPUnauthorized(headers={
            'WWW-Authenticate': 'Keystone uri="k"', 'X-Other': 'x'}),
            path='/gpus/flavors/')
        self.assertEqual(401, answer.status_int)
        self.assertEqual({'message': 'Unauthorized'}, json.loads(answer.body))
        self.assertEqual('Keystone uri="k"',
                         answer.headers['WWW-Authenticate'])
        self.assertNotIn('X-Other', answer.headers)

    def test_json_and_successful_answers_pass_as_they_are(self):
        for response in (
                webob.Response(status=401, json_body={'error': 'theirs'}),
                webob.Response(body=b'<html>ok</html>',
                               content_type='text/html')):
            answer = self.call(response)
            self.assertEqual((response.status_int, response.body),
                             (answer.status_int, answer.body))
