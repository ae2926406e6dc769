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

from testcloud import loopback

from flavor_exporter.tests import base
from flavor_exporter.worker import leadership


class TestLeadership(base.TestCase):
    """Real tooz on a real memcached."""

    def setUp(self):
        super().setUp()
        self.memcached = self.useFixture(loopback.MemcachedFixture())
        self.flags(group='document_cache',
                   memcache_servers=self.memcached.servers)

    def member(self, cloud=None):
        member = leadership.Leadership.from_conf(self.conf, cloud)
        self.addCleanup(member.stop)
        return member

    def test_each_cloud_has_its_own_leader(self):
        east, west = self.use_clouds('east', 'west')
        one, two = self.member(east), self.member(west)
        self.assertTrue(one.leads())
        self.assertTrue(two.leads())
        self.assertFalse(self.member(east).leads())

    def test_default_backend_is_the_first_cache_server(self):
        self.assertEqual('memcached://%s' % self.memcached.servers[0],
                         leadership.backend_url(self.conf))
        self.flags(group='coordination', backend_url='redis://r:6379')
        self.assertEqual('redis://r:6379', leadership.backend_url(self.conf))

    def test_one_leads_until_it_stops(self):
        one, two = self.member(), self.member()
        self.assertTrue(one.leads())
        self.assertFalse(two.leads())
        self.assertTrue(one.leads())
        one.stop()
        self.assertTrue(two.leads())
        self.assertFalse(one.leads())

    def test_a_lost_lease_is_noticed(self):
        one, two = self.member(), self.member()
        self.assertTrue(one.leads())
        # What the lease running out during a pause looks like.
        one._lock.break_()
        self.assertTrue(two.leads())
        self.assertFalse(one.leads())

    def test_unreachable_backend_refreshes_anyway_uncertain(self):
        member = self.member()
        self.assertTrue(member.leads())
        self.assertTrue(member.certain)
        self.memcached.stop()
        self.assertTrue(member.leads())
        self.assertFalse(member.certain)

    def test_memory_cache_means_one_worker(self):
        self.flags(group='document_cache', backend='memory')
        self.assertIsInstance(leadership.Leadership.from_conf(self.conf),
                              leadership.Alone)
