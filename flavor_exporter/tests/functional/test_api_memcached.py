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
"""The API over a real memcached, including memcached going away."""

import datetime
import json
import time

import webtest

from flavor_exporter.api import app
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.tests import sample_cloud
from testcloud import loopback


class TestApiOverMemcached(base.TestCase):

    def setUp(self):
        super().setUp()
        self.memcached = self.useFixture(loopback.MemcachedFixture())
        self.flags(group='document_cache',
                   memcache_servers=self.memcached.servers,
                   key_prefix='functional', dead_retry=0,
                   socket_timeout=0.5)
        self.flags(group='api', generation_check_interval=0)
        # The worker's side: its own client, as in another process.
        self.worker_store = publisher.Publisher.from_conf(self.conf)
        self.addCleanup(self.worker_store.close)
        self.app = webtest.TestApp(app.setup_app(self.conf))

    def publish(self, flavors=None, age=0, hosts=None):
        collected_at = (datetime.datetime.now(datetime.timezone.utc) -
                        datetime.timedelta(seconds=age))
        return sample_cloud.publish(self.worker_store, flavors, collected_at,
                                    host_list=hosts)

    def test_cold_then_published(self):
        response = self.app.get('/v3/flavors/', status=503)
        self.assertIn('Retry-After', response.headers)
        self.app.get('/healthcheck', status=503)
        docs = self.publish()
        self.assertEqual(docs['legacy/flavors'],
                         self.app.get('/gpus/flavors').body)
        self.assertEqual(200, self.app.get('/healthcheck').status_int)

    def test_realistic_generation(self):
        flavors = sample_cloud.many_flavors(500)
        docs = self.publish(flavors, hosts=sample_cloud.many_hosts(40))
        self.assertEqual(docs['legacy/flavors'],
                         self.app.get('/gpus/flavors/').body)
        self.assertEqual(docs['v3/flavors'],
                         self.app.get('/v3/flavors/').body)
        one = flavors[7]
        served = self.app.get('/v3/flavors/' + one.name).json
        # The published flavor, with its per-host rows, excluded hosts and
        # the hosts closest to one more put back in.
        published_hosts = json.loads(docs['v3/flavor/%s/hosts' % one.id])
        self.assertEqual(40, len(served['flavor'].pop('hosts')))
        self.assertEqual(published_hosts['excluded_hosts'],
                         served['flavor'].pop('excluded_hosts'))
        fragments = served['flavor']['fragmentation'].pop('fragments')
        self.assertEqual([f[1] for f in published_hosts['fragments']],
                         [f['leftover'] for f in fragments])
        self.assertEqual(json.loads(docs['v3/flavor/%s' % one.id]), served)
        self.assertEqual(250, len(self.app.get(
            '/v3/flavors/?gpu=true&availability_zone=az2').json[
                'flavors']))
        self.assertEqual(500, len(self.app.get(
            '/v3/flavors/?name=FLAVOR-').json['flavors']))
        self.assertIn(b'flavor_exporter_data_age_seconds',
                      self.app.get('/metrics').body)

    def test_memcached_outage_serves_last_data_marked_stale(self):
        docs = self.publish()
        fresh = self.app.get('/v3/flavors/')
        self.assertIs(False, fresh.json['stale'])
        self.assertEqual(docs['legacy/flavors'],
                         self.app.get('/gpus/flavors').body)

        self.memcached.stop()
        during = self.app.get('/v3/flavors/')
        self.assertIs(True, during.json['stale'])
        self.assertEqual(dict(json.loads(docs['v3/flavors']), stale=True),
                         during.json)
        self.assertEqual('true', during.headers['X-Flavor-Exporter-Stale'])
        legacy = self.app.get('/gpus/flavors')
        self.assertEqual(docs['legacy/flavors'], legacy.body)
        self.assertEqual('true', legacy.headers['X-Flavor-Exporter-Stale'])
        # pymemcache reports an unreachable server as an error, or, while
        # it waits to retry it, as a miss: either way the data is served
        # as stale and the status says why.
        self.assertIsNotNone(self.app.get('/v3/status').json['problem'])
        self.app.get('/healthcheck', status=503)
        # Documents never read before the outage cannot be served.
        self.app.get('/v3/flavors/g2', status=503)

        # An empty memcached: still the last data, still stale.
        self.memcached.restart()
        after_restart = self.app.get('/v3/flavors/')
        self.assertIs(True, after_restart.json['stale'])
        self.assertIn('no longer holds',
                      self.app.get('/v3/status').json['problem'])

        # The worker publishes again: fresh data; the numbers did not
        # change, and neither does the ETag. (Its first
        # write may fail on a pooled connection to the old memcached, as
        # a worker's refresh would; the next one succeeds.)
        try:
            self.publish()
        except publisher.CacheError:
            self.publish()
        # pymemcache gives a failed server a retry delay: a second or two.
        deadline = time.monotonic() + 10
        recovered = self.app.get('/v3/flavors/')
        while recovered.json['stale'] and time.monotonic() < deadline:
            time.sleep(0.1)
            recovered = self.app.get('/v3/flavors/')
        self.assertIs(False, recovered.json['stale'])
        self.assertEqual(fresh.headers['ETag'], recovered.headers['ETag'])
        self.assertEqual(200, self.app.get('/v3/flavors/g2').status_int)
        self.assertEqual(200, self.app.get('/healthcheck').status_int)

    def test_processes_see_the_same_generation(self):
        other = webtest.TestApp(app.setup_app(self.conf))
        self.publish()
        first = self.app.get('/v3/flavors/?gpu=true')
        second = other.get('/v3/flavors/?gpu=true')
        self.assertEqual(first.body, second.body)
        self.assertEqual(first.headers['ETag'], second.headers['ETag'])
        other.get('/v3/flavors/?gpu=true',
                  headers={'If-None-Match': first.headers['ETag']},
                  status=304)
