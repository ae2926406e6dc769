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
"""The layers every OpenStack API has: request ids, proxies, CORS."""

import logging
import re
from unittest import mock

from keystonemiddleware import opts as ks_opts
from oslo_context import context
from oslo_log import formatters
from oslo_middleware import request_id as oslo_request_id

from flavor_exporter.api import access
from flavor_exporter.api.middleware import request_id
from flavor_exporter.api.middleware import request_limits
from flavor_exporter.tests.unit.api import base

ID = re.compile(oslo_request_id.ID_FORMAT)
CLIENT_ID = 'req-0b8a0b6e-4a7c-4b3e-9a62-51f3c0d4e111'
PORTAL = 'https://portal.example.org'


class LogCapture(logging.Handler):
    """Log lines as oslo.log formats them, with the request context."""

    def __init__(self, conf):
        super().__init__(logging.DEBUG)
        self.setFormatter(formatters.ContextFormatter(config=conf))
        self.lines = []

    def emit(self, record):
        self.lines.append(self.format(record))


class PipelineTestCase(base.ApiTestCase):

    def capture_logs(self):
        handler = LogCapture(self.conf)
        root = logging.getLogger()
        root.addHandler(handler)
        self.addCleanup(root.removeHandler, handler)
        level = root.level
        root.setLevel(logging.DEBUG)
        self.addCleanup(root.setLevel, level)
        return handler

    def request_id(self, response):
        value = response.headers[request_id.HEADER]
        self.assertRegex(value, ID)
        return value


class TestRequestId(PipelineTestCase):

    def test_every_answer_has_its_own(self):
        self.publish()
        etag = self.app.get('/v3/flavors/').headers['ETag']
        answers = [
            self.app.get('/v3/flavors/'),
            self.app.get('/gpus/flavors/g1'),
            self.app.get('/v3/flavors/', headers={'If-None-Match': etag},
                         status=304),
            self.app.get('/v3/flavors/nope', status=404),
            self.app.get('/v3/flavors/?bogus=1', status=400),
            self.app.post('/v3/flavors/', status=405),
            self.app.get('/v3/' + 'a' * 5000, status=414),
            self.app.get('/', headers={'X-Big': 'a' * 40000}, status=431),
            self.app.get('/', extra_environ={'PATH_INFO': '/v3/\xff'},
                         status=400),
            self.app.get('/'),
            self.app.get('/v3/status'),
            self.app.get('/healthcheck'),
            self.app.head('/healthcheck', status=204),
            self.app.get('/docs', status=301),
        ]
        ids = [self.request_id(answer) for answer in answers]
        self.assertEqual(len(ids), len(set(ids)))

    def test_cold_cache_answer(self):
        self.request_id(self.app.get('/v3/flavors/', status=503))

    def test_unanswered_exception_is_a_json_500_with_the_id(self):
        logs = self.capture_logs()
        with mock.patch('pecan.Pecan.__call__',
                        side_effect=RuntimeError('boom')):
            response = self.app.get('/v3/flavors/', status=500)
        self.assertJsonError(response, 500, 'the API log has the details')
        error = [line for line in logs.lines if
                 'Unexpected error answering GET /v3/flavors/: boom' in line]
        self.assertEqual(1, len(error), logs.lines)
        self.assertIn(self.request_id(response), error[0])

    def test_log_lines_name_it(self):
        logs = self.capture_logs()
        response = self.app.get('/', status=400, extra_environ={
            'PATH_INFO': '/v3/flavors/\xff'})
        ours = self.request_id(response)
        lines = [line for line in logs.lines if ours in line]
        # request_limits' refusal and the request's own line.
        self.assertEqual(2, len(lines), logs.lines)
        self.assertIn('Refused GET', lines[0])
        self.assertIn('"GET /v3/flavors/%FF" status: 400', lines[1])


class TestRequestLog(PipelineTestCase):

    def test_one_info_line_per_request(self):
        self.publish()
        logs = self.capture_logs()
        ours = self.request_id(self.app.get('/v3/flavors/'))
        self.app.get('/v3/flavors/nope', status=404)
        lines = [line for line in logs.lines if 'status: ' in line]
        self.assertEqual(2, len(lines), logs.lines)
        self.assertRegex(lines[0], r' INFO .*%s.*\] - "GET '
                         r'/v3/flavors/" status: 200 len: \d+ time: '
                         r'0\.\d{6}$' % ours)
        self.assertIn(' INFO ', lines[1])
        self.assertIn('"GET /v3/flavors/nope" status: 404', lines[1])

    def test_errors_only(self):
        self.flags(group='api', log_requests=False)
        self.publish()
        logs = self.capture_logs()
        self.app.get('/v3/flavors/')
        self.app.get('/v3/flavors/nope', status=404)
        lines = [line for line in logs.lines if 'status: ' in line]
        self.assertEqual(1, len(lines), logs.lines)
        self.assertIn('status: 404', lines[0])

    def test_a_url_cannot_forge_a_line(self):
        logs = self.capture_logs()
        forged = ('/gpus/flavors/x\n2026-12-03 12:00:00.000 1 INFO '
                  'flavor_exporter.api [-] "GET /admin" status: 200')
        self.app.get('/', status=404, extra_environ={
            'PATH_INFO': forged, 'REMOTE_ADDR': '10.0.0.1'})
        self.app.get('/', status=404, extra_environ={
            'PATH_INFO': '/x\x1b[31m"\\'})
        lines = [line for line in '\n'.join(logs.lines).splitlines()
                 if 'status: ' in line]
        self.assertEqual(2, len(lines), logs.lines)
        self.assertIn('"GET /gpus/flavors/x%0A2026-12-03%2012:00:00.000%20'
                      '1%20INFO%20flavor_exporter.api%20[-]%20%22GET%20'
                      '/admin%22%20status:%20200" status: 404', lines[0])
        self.assertIn('"GET /x%1B[31m%22%5C" status: 404', lines[1])

    def test_client_id_is_the_global_id(self):
        logs = self.capture_logs()
        response = self.app.get('/v3/flavors/nope', status=503, headers={
            request_id.HEADER: CLIENT_ID})
        ours = self.request_id(response)
        # Its own id answered, as oslo.middleware does; the client's is
        # logged beside it.
        self.assertNotEqual(CLIENT_ID, ours)
        line = [line for line in logs.lines if ours in line][-1]
        self.assertIn('[%s %s ' % (CLIENT_ID, ours), line)

    def test_malformed_client_id_ignored(self):
        logs = self.capture_logs()
        response = self.app.get('/v3/flavors/nope', status=503, headers={
            request_id.HEADER: 'req-not-an-id; rm -rf'})
        line = [line for line in logs.lines
                if self.request_id(response) in line][-1]
        self.assertNotIn('rm -rf', line)
        self.assertIn('[None %s ' % self.request_id(response), line)

    def test_context_ends_with_the_request(self):
        seen = []

        def inner(environ, start_response):
            seen.append((context.get_current().request_id,
                         environ[oslo_request_id.ENV_REQUEST_ID]))
            start_response('204 No Content', [])
            return []
        answers = []
        layer = request_id.RequestId(inner, self.conf)
        layer({'REQUEST_METHOD': 'GET', 'PATH_INFO': '/'},
              lambda status, headers, exc_info=None: answers.append(headers))
        self.assertIsNone(context.get_current())
        self.assertEqual(seen[0][0], seen[0][1])
        self.assertEqual([(request_id.HEADER, seen[0][0])], answers[0])

    def test_authenticated_context_keeps_the_ids(self):
        environ = {oslo_request_id.ENV_REQUEST_ID: 'req-1',
                   oslo_request_id.GLOBAL_REQ_ID: CLIENT_ID,
                   'HTTP_X_PROJECT_ID': 'p1', 'HTTP_X_USER_ID': 'u1'}
        access.Access(mock.Mock(), environ)
        current = context.get_current()
        self.assertEqual(('req-1', CLIENT_ID, 'u1'),
                         (current.request_id, current.global_request_id,
                          current.user_id))

    def test_ids(self):
        made = {request_id.new_id() for _ in range(1000)}
        self.assertEqual(1000, len(made))
        for value in made:
            self.assertRegex(value, ID)
            self.assertEqual('4', value[4 + 14])
            self.assertIn(value[4 + 19], '89ab')
        before = request_id.new_id()
        # What a forked child does first.
        request_id.new_id.reseed()
        self.assertNotEqual(before[:-12], request_id.new_id()[:-12])


class TestProxyHeaders(PipelineTestCase):

    PROXIED = {'X-Forwarded-Proto': 'https',
               'X-Forwarded-Host': 'capacity.example.org'}

    def links(self, headers):
        return [link['href'] for link in
                self.app.get('/', headers=headers).json['links']]

    def test_not_parsed_by_default(self):
        # A client could claim any scheme and host to an API not behind
        # a proxy.
        self.assertIn('http://localhost/openapi.json',
                      self.links(self.PROXIED))
        # Not even a layer that would read the option per request.
        self.assertIsInstance(self.app.app.application._app,
                              request_limits.RequestLimits)

    def test_forwarded_scheme_and_host(self):
        self.flags(group='oslo_middleware', enable_proxy_headers_parsing=True)
        self.assertIn('https://capacity.example.org/openapi.json',
                      self.links(self.PROXIED))
        self.assertIn('https://capacity.example.org/openapi.json',
                      self.links({'X-Forwarded-Proto': 'https',
                                  'Host': 'capacity.example.org'}))
        self.assertIn('https://capacity.example.org:8443/openapi.json',
                      self.links({'Forwarded': 'for=192.0.2.60;proto=https;'
                                  'host=capacity.example.org:8443'}))
        document = self.app.get('/openapi.json', headers=self.PROXIED).json
        self.assertEqual([{'url': 'https://capacity.example.org'}],
                         document['servers'])

    def test_forwarded_prefix(self):
        self.flags(group='oslo_middleware', enable_proxy_headers_parsing=True)
        self.publish()
        headers = dict(self.PROXIED, **{'X-Forwarded-Prefix': '/capacity'})
        self.assertIn('https://capacity.example.org/capacity/v3/clouds/',
                      [link['href'] for link in self.app.get(
                          '/', headers=headers).json['versions'][0]['links']])
        # Routes are still found from the path under the prefix.
        self.assertEqual(200, self.app.get('/v3/flavors/',
                                           headers=headers).status_int)


class TestCors(PipelineTestCase):

    PREFLIGHT = {'Origin': PORTAL, 'Access-Control-Request-Method': 'GET',
                 'Access-Control-Request-Headers': 'X-Auth-Token'}

    def preflight(self, path='/v3/flavors/', **kwargs):
        return self.app.options(path, headers=kwargs.pop(
            'headers', self.PREFLIGHT), **kwargs)

    def test_off_by_default(self):
        response = self.preflight(status=405)
        self.assertJsonError(response, 405)
        self.assertNotIn('Access-Control-Allow-Origin', response.headers)
        self.request_id(response)

    def test_preflight_of_an_allowed_origin(self):
        self.flags(group='cors', allowed_origin=[PORTAL])
        response = self.preflight()
        self.assertEqual(200, response.status_int)
        self.assertEqual(PORTAL,
                         response.headers['Access-Control-Allow-Origin'])
        self.assertEqual('GET',
                         response.headers['Access-Control-Allow-Methods'])
        self.assertEqual('X-Auth-Token',
                         response.headers['Access-Control-Allow-Headers'])
        self.request_id(response)

    def test_preflight_refused(self):
        self.flags(group='cors', allowed_origin=[PORTAL])
        for headers in (dict(self.PREFLIGHT, Origin='https://evil.example'),
                        dict(self.PREFLIGHT, **{
                            'Access-Control-Request-Method': 'DELETE'}),
                        dict(self.PREFLIGHT, **{
                            'Access-Control-Request-Headers': 'X-Other'})):
            response = self.preflight(headers=headers)
            self.assertNotIn('Access-Control-Allow-Origin', response.headers,
                             headers)

    def test_answers_a_browser_may_read(self):
        self.flags(group='cors', allowed_origin=[PORTAL])
        self.publish()
        response = self.app.get('/v3/flavors/', headers={'Origin': PORTAL})
        self.assertEqual(PORTAL,
                         response.headers['Access-Control-Allow-Origin'])
        exposed = response.headers['Access-Control-Expose-Headers'].split(',')
        for header in (request_id.HEADER, 'ETag', 'X-Flavor-Exporter-Stale',
                       'Retry-After'):
            self.assertIn(header, exposed)
        # Refusals too: a portal's script reads why.
        refused = self.app.get('/v3/' + 'a' * 5000, status=414,
                               headers={'Origin': PORTAL})
        self.assertEqual(PORTAL,
                         refused.headers['Access-Control-Allow-Origin'])

    def test_requests_without_origin_untouched(self):
        self.publish()
        plain = self.app.get('/v3/flavors/').headers
        self.flags(group='cors', allowed_origin=[PORTAL])
        self._app = None
        configured = self.app.get('/v3/flavors/').headers
        self.assertEqual(
            sorted(k for k in plain if k != request_id.HEADER),
            sorted(k for k in configured if k != request_id.HEADER))

    def test_preflight_needs_no_token(self):
        self.flags(auth_strategy='keystone')
        for group, options in ks_opts.list_auth_token_opts():
            self.conf.register_opts(options, group=group)
        self.flags(group='keystone_authtoken',
                   www_authenticate_uri='http://127.0.0.1:5000/identity')
        self.flags(group='cors', allowed_origin=[PORTAL])
        self.assertEqual(PORTAL, self.preflight().headers[
            'Access-Control-Allow-Origin'])
        refused = self.app.get('/v3/flavors/', status=401,
                               headers={'Origin': PORTAL})
        self.assertEqual(PORTAL,
                         refused.headers['Access-Control-Allow-Origin'])
