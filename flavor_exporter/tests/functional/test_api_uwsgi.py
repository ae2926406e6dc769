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
"""flavor-exporter-api as an operator runs it: its processes and memcached."""

import os
import signal
import subprocess
import textwrap
import time
import urllib.error
import urllib.request

import fixtures

from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests import sample_cloud
from testcloud import loopback


def fetch(port, path):
    """(status, headers, body); the headers' names in any case."""
    try:
        with urllib.request.urlopen('http://127.0.0.1:%d%s' % (port, path),
                                    timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def fetch_ok(port, path, timeout=10):
    """fetch() until 200, for a while.

    Each process sees a new generation within [api]
    generation_check_interval (1 s), not at once.
    """
    deadline = time.monotonic() + timeout
    while True:
        answer = fetch(port, path)
        if answer[0] == 200 or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


class TestFlavorExporterApi(base.TestCase):

    def setUp(self):
        super().setUp()
        self.memcached = self.useFixture(loopback.MemcachedFixture())
        self.port = loopback.free_port()
        directory = self.useFixture(fixtures.TempDir()).path
        self.log = os.path.join(directory, 'api.log')
        self.config = os.path.join(directory, 'flavor-exporter.conf')
        with open(self.config, 'w') as f:
            f.write(textwrap.dedent('''
                [DEFAULT]
                log_file = %s
                auth_strategy = noauth
                [api]
                host_ip = 127.0.0.1
                port = %d
                workers = 2
                [document_cache]
                memcache_servers = %s
                key_prefix = uwsgi-test
            ''' % (self.log, self.port, self.memcached.servers[0])))
        self.flags(group='document_cache',
                   memcache_servers=self.memcached.servers,
                   key_prefix='uwsgi-test')
        self.store = publisher.Publisher.from_conf(self.conf)
        self.addCleanup(self.store.close)

    def start(self):
        process = subprocess.Popen(
            fe_fixtures.console_script('flavor-exporter-api')
            + ['--config-file', self.config],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True)
        self.addCleanup(fe_fixtures.stop_process_group, process)
        try:
            loopback.wait_for_port(self.port, timeout=60, process=process)
        except RuntimeError:
            fe_fixtures.stop_process_group(process)
            self.fail('flavor-exporter-api did not start:\n%s'
                      % process.stdout.read().decode(errors='replace'))
        return process

    def test_serves_published_documents(self):
        process = self.start()
        status, headers, body = fetch(self.port, '/gpus/flavors')
        self.assertEqual(503, status)
        self.assertIn('Retry-After', headers)

        docs = sample_cloud.publish(self.store,
                                    sample_cloud.many_flavors(50),
                                    host_list=sample_cloud.many_hosts(4))
        status, headers, body = fetch_ok(self.port, '/gpus/flavors/')
        self.assertEqual(200, status)
        self.assertEqual('application/json', headers['Content-Type'])
        self.assertEqual(docs['legacy/flavors'], body)
        status, _, body = fetch_ok(self.port, '/v3/flavors/?gpu=true')
        self.assertEqual((200, docs['v3/flavors?gpu=true']), (status, body))

        # It stops on SIGTERM (systemd, Docker), its processes with it.
        os.kill(process.pid, signal.SIGTERM)
        self.assertIsNotNone(process.wait(30))
        with open(self.log) as log:
            self.assertIn('with 2 processes', log.read())
