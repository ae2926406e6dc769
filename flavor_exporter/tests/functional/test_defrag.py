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
"""Fragmentation and defrag plans against Nova, migrations made for real.

The defrag scenario is built to be fragmented: frag.big fits nowhere,
its free vCPUs pooled hold two. The worker's defrag answer is computed
as the leading worker computes it, reading the real cloud (Nova's
servers and server groups, Placement's allocations); then the plan's
moves are made with Nova, each a live migration to the plan's host
(POST os-migrateLive with that host, as ``openstack server migrate
--live-migration --host`` sends it; the test cloud's fake driver
live-migrates), and frag.big is booted until NoValidHost: exactly the
plan's count start, which is the fragmented count.
"""

import time

from flavor_exporter.publication import defrag as defrag_docs
from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.worker import defrag
from flavor_exporter.worker import openstack
from flavor_exporter.worker import placement_source
from flavor_exporter.worker import refresh
from testcloud import oracle

#: os-migrateLive with a host and "block_migration": "auto" (2.25), the
#: host checked by the scheduler (2.30 and later: no force).
LIVE_MICROVERSION = '2.30'
MIGRATION_TIMEOUT = 60
#: os-migrations with each migration's uuid (its Placement consumer).
MIGRATIONS_MICROVERSION = '2.59'


class TestDefragOnTheCloud(base.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(fe_fixtures.Cloud('defrag')).cloud
        self.conn = self.cloud.connection()
        self.client = openstack.CloudClient(self.conn)

    def report(self):
        refresher = refresh.Refresher(
            self.conf, client=self.client,
            source=placement_source.PlacementSource(self.conf))
        return refresher.compute()

    def plan(self, report, count):
        return defrag.Defrag(refresh.engine_options(self.conf)).compute(
            report, defrag_docs.DefragRequest('frag.big', count),
            self.client)[defrag_docs.DEFRAG]

    def live_migrate(self, server_id, host):
        response = self.conn.compute.post(
            '/servers/%s/action' % server_id,
            json={'os-migrateLive': {'host': host,
                                     'block_migration': 'auto'}},
            microversion=LIVE_MICROVERSION)
        self.assertEqual(202, response.status_code, response.text)
        deadline = time.monotonic() + MIGRATION_TIMEOUT
        while time.monotonic() < deadline:
            server = self.conn.compute.get(
                '/servers/%s' % server_id,
                microversion=LIVE_MICROVERSION).json()['server']
            if server['OS-EXT-SRV-ATTR:host'] == host and \
                    server['status'] == 'ACTIVE' and \
                    not server['OS-EXT-STS:task_state'] and \
                    self.migration_done(server_id):
                return
            self.assertNotEqual('ERROR', server['status'], server)
            time.sleep(0.2)
        self.fail('server %s not on %s after %ss' % (server_id, host,
                                                     MIGRATION_TIMEOUT))

    def migration_done(self, server_id):
        """Whether the server's live migration completed, its source freed.

        Nova moves the server to its destination before the source
        compute deletes the allocation the migration held there: wait
        for both, as an operator's next boot would see them.
        """
        migrations = self.conn.compute.get(
            '/os-migrations', params={'instance_uuid': server_id},
            microversion=MIGRATIONS_MICROVERSION).json()['migrations']
        if not migrations or any(m['status'] != 'completed'
                                 for m in migrations):
            return False
        return all(not self.conn.placement.get(
            '/allocations/%s' % m['uuid']).json()['allocations']
            for m in migrations)

    def test_plan_recovers_the_fragmented_count(self):
        report = self.report()
        big = next(r for r in report.flavors
                   if r.flavor.name == 'frag.big')
        self.assertEqual((0, 2), (big.available,
                                  big.fragmentation.fragmented))
        # Every host keeps 4 vCPUs: each is one half of an instance.
        self.assertEqual(4, len(big.fragmentation.fragments))
        # More than the pooled resources hold: no plan, and why.
        refused = self.plan(report, 3)
        self.assertFalse(refused['found'])
        self.assertIn('hold 2 more frag.big, fewer than 3',
                      refused['reason'])
        answer = self.plan(report, 2)
        self.assertTrue(answer['found'], answer['reason'])
        self.assertEqual(2, len(answer['moves']))
        self.assertTrue(answer['proven_minimal'])
        self.assertEqual(2, answer['lower_bound'])
        self.assertEqual(2, answer['gained'])
        for move, line, action in zip(answer['moves'], answer['commands'],
                                      answer['actions']):
            self.assertEqual('openstack server migrate --live-migration '
                             '--host %s %s' % (move['to'], move['server']),
                             line)
            self.assertEqual({'migration_type': 'live',
                              'source_node': move['from'],
                              'destination_node': move['to'],
                              'resource_id': move['server'],
                              'resource_name': move['name']},
                             action['input_parameters'])
            self.live_migrate(move['server'], move['to'])
        # The plan made, the service counts what Nova starts: 2, then
        # NoValidHost (the third does not start).
        after = next(r for r in self.report().flavors
                     if r.flavor.name == 'frag.big')
        self.assertEqual((2, 0), (after.available,
                                  after.fragmentation.fragmented))
        self.assertEqual(2, oracle.boot_until_no_valid_host(self.conn,
                                                            'frag.big'))
