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
"""/, /metrics, /docs/, /healthcheck, and errors outside the data routes."""

import datetime
import re
from unittest import mock

import fixtures
from oslo_middleware.healthcheck import opts as hc_opts

from flavor_exporter.api import hooks
from flavor_exporter.api import published
from flavor_exporter.capacity import model
from flavor_exporter.publication import contract as pub
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.tests.unit.api import base


class TestVersion(base.ApiTestCase):

    def test_version_document(self):
        body = self.app.get('/').json
        self.assertEqual('flavor-exporter', body['name'])
        self.assertEqual(['v3', 'v2', 'legacy'],
                         [v['id'] for v in body['versions']])
        self.assertEqual(['CURRENT', 'SUPPORTED', 'SUPPORTED'],
                         [v['status'] for v in body['versions']])
        hrefs = [link['href'] for link in body['links']]
        self.assertIn('http://localhost/openapi.json', hrefs)
        self.assertIn('http://localhost/healthcheck', hrefs)

    def test_links_are_absolute_where_the_request_was_made(self):
        # A proxy's prefix (SCRIPT_NAME, see http_proxy_to_wsgi) included.
        body = self.app.get('/', extra_environ={
            'HTTP_HOST': 'capacity.example.org:8443',
            'wsgi.url_scheme': 'https',
            'SCRIPT_NAME': '/capacity'}).json
        self.assertEqual('https://capacity.example.org:8443/capacity/v3/',
                         body['versions'][0]['links'][0]['href'])
        for link in body['links'] + body['versions'][1]['links']:
            self.assertTrue(link['href'].startswith(
                'https://capacity.example.org:8443/capacity/'), link)

    def test_works_while_cold(self):
        self.assertEqual(200, self.app.get('/').status_int)


class TestMetrics(base.ApiTestCase):

    def gauges(self, text, cloud='default'):
        """{name: value} of the cloud's samples without other labels."""
        return dict(re.findall(
            r'^(flavor_exporter_[a-z_]+)\{cloud="%s"\} (\S+)$' % cloud,
            text, re.M))

    def test_published_and_live(self):
        docs = self.publish(age=20)
        response = self.app.get('/metrics')
        self.assertEqual('text/plain; version=0.0.4; charset=utf-8',
                         response.headers['Content-Type'])
        # The worker's gauges first, each sample labelled with its cloud.
        published = docs['metrics'].decode().splitlines()
        self.assertTrue(response.text.startswith(published[0] + '\n'))
        for line in published:
            if not line.startswith('#'):
                name, labels = line.split('{', 1)
                line = '%s{cloud="default",%s' % (name, labels)
            self.assertIn(line + '\n', response.text)
        live = self.gauges(response.text)
        self.assertEqual('1', live['flavor_exporter_data_available'])
        self.assertEqual('0', live['flavor_exporter_data_stale'])
        self.assertEqual('1', live['flavor_exporter_cache_readable'])
        self.assertGreaterEqual(
            float(live['flavor_exporter_data_age_seconds']), 20)
        self.assertEqual('1.5',
                         live['flavor_exporter_refresh_duration_seconds'])
        self.assertEqual(
            '0', live['flavor_exporter_refresh_consecutive_failures'])
        self.assertEqual('12', live['flavor_exporter_refresh_api_calls'])
        # Every sample has its HELP and TYPE.
        for name in live:
            self.assertIn('# TYPE %s gauge\n' % name, response.text)

    def test_cold_still_answers(self):
        response = self.app.get('/metrics')
        self.assertEqual({'flavor_exporter_data_available': '0'},
                         self.gauges(response.text))

    def test_stale_and_unreadable(self):
        self.publish(age=10_000)
        self.assertEqual('1', self.gauges(self.app.get('/metrics').text)[
            'flavor_exporter_data_stale'])
        self.backend.flush()
        live = self.gauges(self.app.get('/metrics').text)
        self.assertEqual('1', live['flavor_exporter_cache_readable'])
        self.assertEqual('1', live['flavor_exporter_data_stale'])
        self.backend.down = True
        live = self.gauges(self.app.get('/metrics').text)
        self.assertEqual('0', live['flavor_exporter_cache_readable'])
        self.assertEqual('1', live['flavor_exporter_data_available'])

    def test_published_without_final_newline(self):
        docs, pointer = sample.documents()
        docs[pub.METRICS] = b'a 1'
        self.store.publish(docs, pointer, datetime.datetime.now(
            datetime.timezone.utc))
        text = self.app.get('/metrics').text
        self.assertTrue(text.startswith('a{cloud="default"} 1\n# HELP '),
                        text)
        self.assertTrue(text.endswith('\n'))

    def test_unreadable_hosts_of_the_served_generation(self):
        self.publish()
        self.assertEqual('0', self.gauges(self.app.get('/metrics').text)[
            'flavor_exporter_hosts_unreadable'])
        sample.publish(self.store, host_list=sample.hosts() + [
            model.Host('broken', 'broken.example.org',
                       unreadable='resource provider: answered 500')])
        self.assertEqual('1', self.gauges(self.app.get('/metrics').text)[
            'flavor_exporter_hosts_unreadable'])


class TestDocs(base.ApiTestCase):

    def test_openapi(self):
        response = self.app.get('/openapi.json')
        self.assertEqual('application/json', response.content_type)
        self.assertEqual('3.0.3', response.json['openapi'])
        self.assertEqual([{'url': 'http://localhost'}],
                         response.json['servers'])

    def test_openapi_server_where_the_request_was_made(self):
        for url in ('https://capacity.example.org', 'http://10.0.0.5:8780',
                    'https://capacity.example.org'):
            scheme, host = url.split('://')
            document = self.app.get('/openapi.json', extra_environ={
                'HTTP_HOST': host, 'wsgi.url_scheme': scheme}).json
            self.assertEqual([{'url': url}], document['servers'])
            self.assertIn('/v3/flavors/', document['paths'])

    def test_redirect_to_slash(self):
        response = self.app.get('/docs', status=301)
        self.assertTrue(response.headers['Location'].endswith('/docs/'))

    def test_swagger_ui_offline(self):
        page = self.app.get('/docs/')
        self.assertEqual('text/html', page.content_type)
        sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
        self.assertIn('swagger-ui-bundle.js', sources)
        for source in sources:
            # Nothing from the Internet: every asset is served here.
            self.assertNotIn('//', source)
            asset = self.app.get('/docs/' + source)
            self.assertEqual(200, asset.status_int, source)
            self.assertGreater(len(asset.body), 100)
        init = self.app.get('/docs/initializer.js').text
        self.assertIn('validatorUrl: null', init)
        self.assertIn('"../openapi.json"', init)
        self.assertEqual('text/css', self.app.get(
            '/docs/swagger-ui.css').content_type)

    def test_only_known_files(self):
        for path in ('/docs/index.j2', '/docs/..%2Fopenapi.json',
                     '/docs/a/b'):
            self.assertJsonError(self.app.get(path, status=404), 404)


class TestHealthcheck(base.ApiTestCase):

    def test_fresh(self):
        self.publish()
        response = self.app.get('/healthcheck')
        self.assertEqual(b'OK', response.body)
        detailed = self.app.get('/healthcheck',
                                headers={'Accept': 'application/json'})
        self.assertEqual(['OK'], detailed.json['reasons'])
        self.assertEqual(204, self.app.head('/healthcheck').status_int)

    def test_partial_data_is_degraded_not_down(self):
        sample.publish(self.store, host_list=sample.hosts() + [
            model.Host('broken', 'broken.example.org',
                       unreadable='resource provider: answered 500')])
        response = self.app.get('/healthcheck')
        self.assertEqual(200, response.status_int)
        self.assertEqual(b'DEGRADED: capacity data is partial, 1 host(s) '
                         b'unreadable', response.body)
        detailed = self.app.get('/healthcheck',
                                headers={'Accept': 'application/json'})
        self.assertEqual(['DEGRADED: capacity data is partial, 1 host(s) '
                          'unreadable'], detailed.json['reasons'])

    def test_cold(self):
        response = self.app.get('/healthcheck', status=503)
        self.assertIn(b'No capacity data published yet', response.body)

    def test_stale(self):
        self.publish(age=10_000)
        response = self.app.get('/healthcheck', status=503)
        self.assertIn(b'stale', response.body)

    def test_lost_parts_are_not_healthy(self):
        self.publish()
        self.forget('v3/flavors')
        response = self.app.get('/healthcheck', status=503)
        self.assertIn(b'Capacity data is stale', response.body)
        self.assertEqual(200, self.app.get('/gpus/flavors/').status_int)
        self.assertIn('cache lost parts', self.app.get(
            '/v3/status').text)

    def test_unreadable(self):
        self.backend.down = True
        self.app.get('/healthcheck', status=503)

    def test_operator_backends_added(self):
        self.publish()
        self.conf.register_opts(hc_opts.HEALTHCHECK_OPTS + hc_opts.
                                DISABLE_BY_FILE_OPTS, group='healthcheck')
        disabled = self.useFixture(fixtures.TempDir()).join('disabled')
        open(disabled, 'w').close()
        self.flags(group='healthcheck', backends=['disable_by_file'],
                   disable_by_file_path=disabled)
        response = self.app.get('/healthcheck', status=503)
        self.assertIn(b'DISABLED BY FILE', response.body)

    def test_plugin_must_be_installed(self):
        with mock.patch('importlib.metadata.entry_points',
                        return_value=[]):
            error = self.assertRaises(RuntimeError, lambda: self.app)
        self.assertIn('pip install', str(error))


class TestErrors(base.ApiTestCase):

    def test_unknown_route(self):
        for path in ('/nothing', '/v4', '/v4/', '/v3/other', '/metrics/x',
                     '/openapi.json/x', '/v3/status/x'):
            self.assertJsonError(
                self.app.get(path, status=404,
                             headers={'Accept': 'text/html'}), 404, path)

    def test_internal_error_hides_details(self):
        self.publish()
        with mock.patch.object(published.Published, 'document',
                               side_effect=KeyError('secret')), \
                mock.patch.object(hooks.LOG, 'error') as log_error:
            response = self.app.get('/gpus/flavors', status=500)
        self.assertEqual(b'{"message":"Internal error; the API log has '
                         b'the details."}', response.body)
        log_error.assert_called_once()
        with mock.patch('flavor_exporter.api.controllers.metrics.exposition',
                        side_effect=ValueError('secret')):
            response = self.app.get('/metrics', status=500)
        self.assertJsonError(response, 500, 'Internal error')
        self.assertNotIn(b'secret', response.body)
