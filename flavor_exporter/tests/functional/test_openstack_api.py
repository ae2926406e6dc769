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
"""What every OpenStack API does, through flavor-exporter-api as served.

Request ids (answered, logged, one a client sends kept as the global id),
URLs behind a TLS-terminating proxy, CORS preflights; a real memcached
holding the sample cloud's documents, the API's processes started as an
operator starts them, its log file read as an operator reads it.
"""

import os
import re
import subprocess
import textwrap
import time
import uuid

import fixtures
from keystoneauth1 import session as ks_session
import requests

from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests import sample_cloud
from testcloud import loopback

HEADER = 'X-OpenStack-Request-ID'
ID = re.compile(r'^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
                r'[0-9a-f]{12}$')
PORTAL = 'https://portal.example.org'
TIMEOUT = 10


class ServedApiTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.memcached = self.useFixture(loopback.MemcachedFixture())
        self.directory = self.useFixture(fixtures.TempDir()).path
        self.flags(group='document_cache',
                   memcache_servers=self.memcached.servers)
        store = publisher.Publisher.from_conf(self.conf)
        self.addCleanup(store.close)
        sample_cloud.publish(store)

    def serve(self, *lines):
        """flavor-exporter-api with lines added to its configuration."""
        self.port = loopback.free_port()
        self.log = os.path.join(self.directory, 'api-%d.log' % self.port)
        config = os.path.join(self.directory, 'api-%d.conf' % self.port)
        with open(config, 'w') as f:
            f.write(textwrap.dedent('''
                [DEFAULT]
                log_file = %s
                auth_strategy = noauth
                [api]
                port = %d
                workers = 1
                [document_cache]
                memcache_servers = %s
            ''' % (self.log, self.port, self.memcached.servers[0])))
            f.write('\n'.join(lines) + '\n')
        process = subprocess.Popen(
            fe_fixtures.console_script('flavor-exporter-api')
            + ['--config-file', config],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True)
        self.addCleanup(fe_fixtures.stop_process_group, process)
        loopback.wait_for_port(self.port, timeout=60, process=process)
        self.url = 'http://127.0.0.1:%d' % self.port
        # Each process serves the published data within a second.
        deadline = time.monotonic() + 30
        while requests.get(self.url + '/v3/flavors/',
                           timeout=TIMEOUT).status_code != 200:
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.1)

    def log_lines(self, request_id, count=1):
        """The API log's lines naming request_id, once it wrote count.

        The request's own line comes last, up to a batch of the request
        log's writer after the lines logged while it was answered.
        """
        deadline = time.monotonic() + 30
        while True:
            with open(self.log) as log:
                lines = [line for line in log if request_id in line]
            if len(lines) >= count or time.monotonic() > deadline:
                return lines
            time.sleep(0.1)


class TestRequestIds(ServedApiTestCase):

    def setUp(self):
        super().setUp()
        self.serve()

    def test_round_trip(self):
        answers = [requests.get(self.url + path, timeout=TIMEOUT)
                   for path in ('/v3/flavors/', '/gpus/flavors/', '/',
                                '/v3/status', '/healthcheck',
                                '/v3/flavors/no-such-flavor',
                                '/gpus/flavors/' + 'x' * 5000)]
        self.assertEqual([200, 200, 200, 200, 200, 404, 414],
                         [a.status_code for a in answers])
        ids = [a.headers[HEADER] for a in answers]
        for value in ids:
            self.assertRegex(value, ID)
        self.assertEqual(len(ids), len(set(ids)))
        # The operator follows a failed request by its id.
        lines = self.log_lines(ids[5])
        self.assertEqual(1, len(lines), lines)
        self.assertIn('"GET /v3/flavors/no-such-flavor" status: 404',
                      lines[0])
        refused = self.log_lines(ids[6], count=2)
        self.assertEqual(2, len(refused), refused)
        self.assertIn('Refused GET', refused[0])

    def test_the_clients_id_is_logged_as_the_global_id(self):
        # As python clients send one: keystoneauth's global_request_id.
        client_id = 'req-%s' % uuid.uuid4()
        session = ks_session.Session()
        answer = session.get(self.url + '/v3/flavors/no-such-flavor',
                             global_request_id=client_id, raise_exc=False,
                             timeout=TIMEOUT)
        self.assertEqual(404, answer.status_code)
        ours = answer.headers[HEADER]
        self.assertRegex(ours, ID)
        self.assertNotEqual(client_id, ours)
        lines = self.log_lines(ours)
        self.assertEqual(1, len(lines), lines)
        self.assertIn('[%s %s ' % (client_id, ours), lines[0])


class TestBehindAProxy(ServedApiTestCase):

    PROXIED = {'X-Forwarded-Proto': 'https',
               'X-Forwarded-Host': 'capacity.example.org'}

    def links(self):
        document = requests.get(self.url + '/', headers=self.PROXIED,
                                timeout=TIMEOUT).json()
        return [link['href'] for version in document['versions']
                for link in version['links']] + [
            link['href'] for link in document['links']]

    def test_forwarded_scheme_and_host_make_the_urls(self):
        self.serve('[oslo_middleware]', 'enable_proxy_headers_parsing = true')
        links = self.links()
        self.assertIn('https://capacity.example.org/v3/flavors/', links)
        for link in links:
            self.assertTrue(link.startswith('https://capacity.example.org/'),
                            link)
        api = requests.get(self.url + '/openapi.json', headers=self.PROXIED,
                           timeout=TIMEOUT).json()
        self.assertEqual([{'url': 'https://capacity.example.org'}],
                         api['servers'])

    def test_ignored_unless_configured(self):
        # Anyone could claim a scheme and host to an API not behind one.
        self.serve()
        base_url = 'http://127.0.0.1:%d/' % self.port
        for link in self.links():
            self.assertTrue(link.startswith(base_url), link)


class TestCors(ServedApiTestCase):

    PREFLIGHT = {'Origin': PORTAL, 'Access-Control-Request-Method': 'GET',
                 'Access-Control-Request-Headers': 'x-auth-token'}

    def preflight(self):
        return requests.options(self.url + '/v3/flavors/',
                                headers=self.PREFLIGHT, timeout=TIMEOUT)

    def test_preflight_allowed_by_configuration(self):
        self.serve('[cors]', 'allowed_origin = %s' % PORTAL)
        answer = self.preflight()
        self.assertEqual(200, answer.status_code)
        self.assertEqual(PORTAL, answer.headers['Access-Control-Allow-Origin'])
        self.assertEqual('GET', answer.headers['Access-Control-Allow-Methods'])
        self.assertRegex(answer.headers[HEADER], ID)
        served = requests.get(self.url + '/v3/flavors/',
                              headers={'Origin': PORTAL}, timeout=TIMEOUT)
        self.assertEqual(PORTAL, served.headers['Access-Control-Allow-Origin'])
        self.assertIn(HEADER, served.headers[
            'Access-Control-Expose-Headers'].split(','))

    def test_preflight_refused_without_it(self):
        self.serve()
        answer = self.preflight()
        self.assertEqual(405, answer.status_code)
        self.assertEqual('application/json', answer.headers['Content-Type'])
        self.assertNotIn('Access-Control-Allow-Origin', answer.headers)
        self.assertRegex(answer.headers[HEADER], ID)

    def test_other_origins_refused(self):
        self.serve('[cors]', 'allowed_origin = %s' % PORTAL)
        answer = requests.options(
            self.url + '/v3/flavors/', timeout=TIMEOUT,
            headers=dict(self.PREFLIGHT, Origin='https://elsewhere.example'))
        self.assertNotIn('Access-Control-Allow-Origin', answer.headers)
