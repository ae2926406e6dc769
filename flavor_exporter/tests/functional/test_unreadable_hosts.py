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
"""Nova or Placement answering badly for one host, on the real test cloud.

The worker reads Nova and Placement through testcloud.faultproxy, which
answers a chosen call with a 500 or with a 200 whose body is unreadable,
or leaves an entry out of (or spoils one in) the real answer; what the
API then serves (documents, /v3/status, /metrics, /healthcheck) must say
which host was left out and why, or keep the last good data. Every host
the compute services list names is in every document, counted or
excluded with a reason.
"""

import webtest

from flavor_exporter.api import app
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.worker import hypervisors_source
from flavor_exporter.worker import openstack
from flavor_exporter.worker import placement_source
from flavor_exporter.worker import refresh
from testcloud import faultproxy
from testcloud import loopback

V100 = 'GPU V100 medium'  # two V100 hosts, 2 each: total 4 (mixed_gpu)
# Only on the A100 host (aggregate_instance_extra_specs): total 2.
PINNED = 'GPU A100 large'
BROKEN_HOST = 'v100-1'


class UnreadableHostTest(base.TestCase):

    def setUp(self):
        super().setUp()
        # The cloud is only read, never changed: shared with other tests.
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            'mixed_gpu', shared=True)).cloud
        memcached = self.useFixture(loopback.MemcachedFixture())
        self.flags(group='document_cache',
                   memcache_servers=memcached.servers,
                   key_prefix='functional', dead_retry=0)
        self.flags(group='api', generation_check_interval=0)
        self.proxy = self.useFixture(
            faultproxy.FaultProxy(self.cloud.placement_url))
        self.nova = self.useFixture(
            faultproxy.FaultProxy(self.cloud.compute_url))
        self.store = publisher.Publisher.from_conf(self.conf)
        self.addCleanup(self.store.close)
        self.api = webtest.TestApp(app.setup_app(self.conf))
        conn = self.cloud.connection()
        response = conn.placement.get(
            '/resource_providers', microversion='1.14',
            params={'name': self.cloud.hosts[BROKEN_HOST]['node']})
        self.broken = response.json()['resource_providers'][0]['uuid']
        self.broken_node = self.cloud.hosts[BROKEN_HOST]['node']

    def refresher(self, source=placement_source.PlacementSource):
        """A worker that just started, reading through the proxies."""
        client = openstack.CloudClient(self.cloud.connection(
            placement_endpoint_override=self.proxy.url,
            compute_endpoint_override=self.nova.url))
        return refresh.Refresher(self.conf, publisher=self.store,
                                 client=client, source=source(self.conf))

    def refresh(self, source=placement_source.PlacementSource):
        """One refresh of a worker that just started."""
        return self.refresher(source).refresh()

    def flavor(self, name):
        listed = self.api.get('/v3/flavors/').json['flavors']
        [flavor_id] = [f['id'] for f in listed if f['name'] == name]
        return self.api.get('/v3/flavors/%s' % flavor_id).json

    def status(self):
        return self.api.get('/v3/status').json['refresh']

    def test_healthy_cloud_baseline(self):
        self.assertTrue(self.refresh())
        # The worker really read Placement through the proxy.
        self.assertTrue(any(
            path.endswith('/resource_providers/%s/inventories'
                          % self.broken) for path in self.proxy.seen))
        body = self.flavor(V100)
        self.assertEqual(4, body['flavor']['total'])
        self.assertEqual((False, 0), (body['partial'],
                                      body['unreadable_host_count']))
        self.assertNotIn('unreadable_hosts', body)
        self.assertNotIn('host data unreadable',
                         body['flavor']['excluded_hosts'])
        self.assertEqual(0, self.status()['unreadable_host_count'])
        self.assertIn(b'\nflavor_exporter_hosts_unreadable'
                      b'{cloud="default"} 0\n',
                      self.api.get('/metrics').body)
        health = self.api.get('/healthcheck')
        self.assertEqual(200, health.status_int)
        self.assertNotIn(b'DEGRADED', health.body)

    def assert_excluded(self, why, names=None):
        """What the API serves with BROKEN_HOST excluded for why.

        names: what else the reason names (default: its provider's uuid).
        """
        body = self.flavor(V100)
        # The other V100 host only, and saying so.
        self.assertEqual(2, body['flavor']['total'])
        self.assertEqual(1, body['flavor']['excluded_hosts'][
            'host data unreadable'])
        self.assertEqual((True, 1), (body['partial'],
                                     body['unreadable_host_count']))
        # Named, since nobody is authenticated (noauth): everyone may see
        # hosts.
        self.assertEqual([BROKEN_HOST], list(body['unreadable_hosts']))
        self.assertIn(names or self.broken,
                      body['unreadable_hosts'][BROKEN_HOST])
        self.assertIn(why, body['unreadable_hosts'][BROKEN_HOST])
        status = self.status()
        self.assertEqual(1, status['unreadable_host_count'])
        self.assertEqual(body['unreadable_hosts'], status['unreadable_hosts'])
        self.assertTrue(any(BROKEN_HOST in line and why in line
                            for line in status['problems']))
        self.assertEqual(0, status['consecutive_failures'])
        self.assertIn(b'\nflavor_exporter_hosts_unreadable'
                      b'{cloud="default"} 1\n',
                      self.api.get('/metrics').body)
        health = self.api.get('/healthcheck')
        self.assertEqual(200, health.status_int)
        self.assertIn(b'DEGRADED: capacity data is partial, 1 host(s) '
                      b'unreadable', health.body)

    def test_malformed_200_excludes_the_host_visibly(self):
        self.flags(group='capacity', max_unreadable_hosts_percent=50)
        self.proxy.break_path(
            '/resource_providers/%s/inventories' % self.broken, status=200,
            body=b'<html>upstream answered nothing</html>',
            content_type='text/html')
        self.assertTrue(self.refresh())
        self.assert_excluded('answered with invalid JSON')

    def test_wrong_shape_200_excludes_the_host_visibly(self):
        self.flags(group='capacity', max_unreadable_hosts_percent=50)
        self.proxy.break_path(
            '/resource_providers/%s/inventories' % self.broken, status=200,
            body=b'{"resource_provider_generation": 1, "inventories": '
                 b'{"VCPU": {"total": "lots"}}}')
        self.assertTrue(self.refresh())
        self.assert_excluded("unusable inventories answer (VCPU total is "
                             "'lots'")

    def test_500_beyond_the_bound_keeps_the_last_good_data(self):
        self.assertTrue(self.refresh())
        generation = self.api.get('/v3/status').json['current'][
            'generation']
        # One host of three is more than the default 10 %.
        self.proxy.break_path(
            '/resource_providers/%s/inventories' % self.broken, status=500)
        self.assertFalse(self.refresh())
        status = self.api.get('/v3/status').json
        self.assertEqual(generation, status['current']['generation'])
        self.assertEqual(1, status['refresh']['consecutive_failures'])
        message = status['refresh']['last_error']['message']
        self.assertIn('1 of 3 hosts unreadable, more than', message)
        self.assertIn('%s: resource provider' % BROKEN_HOST, message)
        self.assertIn('answered 500', message)
        self.assertEqual(4, self.flavor(V100)['flavor']['total'])
        self.assertIn(b'\nflavor_exporter_refresh_consecutive_failures'
                      b'{cloud="default"} 1\n',
                      self.api.get('/metrics').body)
        # Within the bound, the same 500 is published as an exclusion.
        self.flags(group='capacity', max_unreadable_hosts_percent=50)
        self.assertTrue(self.refresh())
        self.assert_excluded('answered 500')

    def test_unreadable_allocation_candidates_change_no_number(self):
        # Usages then come from each provider's own usages call.
        self.assertTrue(self.refresh())
        before = self.api.get('/v3/flavors/').json['flavors']
        for body in (b'<html>upstream answered nothing</html>',
                     b'{"allocation_requests": []}'):
            self.proxy.break_path('/allocation_candidates', status=200,
                                  body=body)
            self.assertTrue(self.refresh())
            self.assertEqual(before,
                             self.api.get('/v3/flavors/').json['flavors'])
            self.assertEqual(0, self.status()['unreadable_host_count'])
        # A 500 there is Placement failing, not one provider: no data.
        self.proxy.break_path('/allocation_candidates', status=500)
        self.assertFalse(self.refresh())
        self.assertIn('/allocation_candidates answered 500',
                      self.status()['last_error']['message'])
        self.assertEqual(before, self.api.get('/v3/flavors/').json['flavors'])

    def test_entry_spoilt_in_a_usages_answer_is_unreadable(self):
        # A class missing from a usage answer is not known to be unused,
        # whether the summaries of the allocation candidates or the
        # provider's own usages call left it out.
        self.flags(group='capacity', max_unreadable_hosts_percent=50)

        def without_memory(body):
            del body['provider_summaries'][self.broken]['resources'][
                'MEMORY_MB']
            return body

        self.proxy.rewrite_path('/allocation_candidates', without_memory)
        self.assertTrue(self.refresh())
        self.assert_excluded('unusable allocation candidates summary (no '
                             'used amount of MEMORY_MB)')
        self.proxy.mend()
        self.proxy.break_path('/allocation_candidates', status=200,
                              body=b'<html>upstream answered nothing</html>')
        self.proxy.break_path(
            '/resource_providers/%s/usages' % self.broken, status=200,
            body=b'{"resource_provider_generation": 1, "usages": {}}')
        self.assertTrue(self.refresh())
        self.assert_excluded('unusable usages answer (no used amount of')

    def test_bad_answer_is_read_again_at_the_next_refresh(self):
        # A long-running worker: the provider whose inventories were
        # unusable is read again although its generation did not move.
        self.flags(group='capacity', max_unreadable_hosts_percent=50)
        worker = self.refresher()
        inventories = '/resource_providers/%s/inventories' % self.broken
        self.proxy.break_path(
            inventories, status=200,
            body=b'{"resource_provider_generation": 1, "inventories": '
                 b'{"VCPU": {"total": "lots"}}}')
        self.assertTrue(worker.refresh())
        self.assert_excluded('unusable inventories answer')
        self.proxy.mend()
        seen = len(self.proxy.seen)
        self.assertTrue(worker.refresh())
        self.assertIn(self.proxy._target.path.rstrip('/') + inventories,
                      self.proxy.seen[seen:])
        body = self.flavor(V100)
        self.assertEqual(4, body['flavor']['total'])
        self.assertEqual((False, 0), (body['partial'],
                                      body['unreadable_host_count']))
        self.assertNotIn('unreadable_hosts', body)

    def test_host_missing_from_a_listing_is_unreadable(self):
        # A listing without one host (a cell that did not answer, a page
        # cut short): the compute services still name it.
        def without(key, unwanted):
            def change(body):
                body[key] = [e for e in body[key] if not unwanted(e)]
                return body
            return change

        self.nova.rewrite_path('/os-hypervisors/detail', without(
            'hypervisors',
            lambda e: e['hypervisor_hostname'] == self.broken_node))
        # Above the default 10 %: refused, as any unreadable host is.
        self.assertFalse(self.refresh())
        self.assertIn('1 of 3 hosts unreadable, more than',
                      self.status()['last_error']['message'])
        self.flags(group='capacity', max_unreadable_hosts_percent=50)
        for source in (placement_source.PlacementSource,
                       hypervisors_source.HypervisorsSource):
            self.assertTrue(self.refresh(source))
            self.assert_excluded('os-hypervisors lists no compute node',
                                 names='a cell that did not answer')
        self.nova.mend()
        self.proxy.rewrite_path('/resource_providers', without(
            'resource_providers', lambda e: e['uuid'] == self.broken))
        self.assertTrue(self.refresh())
        self.assert_excluded("no resource provider %s in Placement's listing"
                             % self.broken)
        self.proxy.mend()
        # A cell that does not answer, as Nova lists it from 2.69.
        self.nova.rewrite_path('/os-hypervisors/detail', without(
            'hypervisors',
            lambda e: e['hypervisor_hostname'] == self.broken_node))

        def cell_down(body):
            for entry in body['services']:
                if entry['host'] == BROKEN_HOST:
                    entry.clear()
                    entry.update(binary='nova-compute', host=BROKEN_HOST,
                                 status='UNKNOWN', zone='nova')
            return body

        self.nova.rewrite_path('/os-services', cell_down)
        self.assertTrue(self.refresh())
        self.assert_excluded('its cell does not answer',
                             names='status UNKNOWN')

    def test_unreadable_listing_entry_is_an_unreadable_host(self):
        self.flags(group='capacity', max_unreadable_hosts_percent=50)

        def spoil(key, wanted, field, value):
            def change(body):
                for entry in body[key]:
                    if wanted(entry):
                        entry[field] = value
                return body
            return change

        self.proxy.rewrite_path('/resource_providers', spoil(
            'resource_providers', lambda e: e['uuid'] == self.broken,
            'generation', 'one'))
        self.assertTrue(self.refresh())
        self.assert_excluded('unreadable entry in the resource provider '
                             "listing (provider %s generation 'one')"
                             % self.broken)
        self.proxy.mend()
        # An entry naming no host: its host is the one left without a node.
        self.nova.rewrite_path('/os-hypervisors/detail', spoil(
            'hypervisors',
            lambda e: e['hypervisor_hostname'] == self.broken_node,
            'service', None))
        self.assertTrue(self.refresh())
        self.assert_excluded('os-hypervisors lists no compute node',
                             names='listing cut short or unreadable')
        self.assertTrue(any('names no compute service host' in line
                            for line in self.status()['problems']))

    def test_answer_of_the_wrong_shape_fails_the_refresh(self):
        # Read as "none", each would publish wrong numbers with nothing to
        # say so: no aggregate (every zone the default one, the pinned
        # flavor nowhere), no compute service, no node.
        self.assertTrue(self.refresh())
        before = self.api.get('/v3/flavors/').json['flavors']
        self.assertEqual(2, self.flavor(PINNED)['flavor']['total'])
        for path, body, said in (
                ('/os-aggregates', b'{"aggregates": {}}',
                 'GET /os-aggregates: no list of aggregates'),
                ('/os-aggregates', b'[]',
                 'GET /os-aggregates: no list of aggregates'),
                ('/os-services', b'{"services": {}}',
                 'GET /os-services: no list of services'),
                ('/os-hypervisors/detail', b'{"hypervisors": {}}',
                 "GET /os-hypervisors/detail: no 'hypervisors' list")):
            self.nova.mend()
            self.nova.break_path(path, status=200, body=body)
            self.assertFalse(self.refresh())
            self.assertIn(said, self.status()['last_error']['message'])
            self.assertEqual(
                before, self.api.get('/v3/flavors/').json['flavors'])
