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
"""The demand totals hold what the flavor list vouches for.

Whatever the bus says: flavors of the list only, named from it, every
other id in one unknown total, and a bounded number of projects.
"""

import datetime
import types

from flavor_exporter.api.controllers import metrics
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.worker import demand


def report(flavors, collected_at=900.0):
    """A Report as demand.py reads it: {id: name} and when it was read."""
    return types.SimpleNamespace(
        flavors=[types.SimpleNamespace(flavor=types.SimpleNamespace(
            id=flavor_id, name=name)) for flavor_id, name in flavors.items()],
        collected_at=datetime.datetime.fromtimestamp(
            collected_at, datetime.timezone.utc))


class DemandTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.store = publisher.Publisher(cache.MemoryBackend(), 'test', 600)
        self.report = report({'f1': 'g.large', 'f2': 'g.small'})
        self.clock = [0.0]
        self.wall = [1000.0]
        self.leader = self.demand()

    def demand(self):
        return demand.Demand(self.store, last_report=lambda: self.report,
                             clock=lambda: self.clock[0],
                             wall_clock=lambda: self.wall[0])

    def fail(self, flavor_id='f1', project='p1', name='g.large', at=1000.0):
        self.store.turned_away.note(flavor_id, name, project, at, 600)

    def totals(self):
        return self.store.reader.demand()

    def flavors(self):
        return self.totals()[pub.DEMAND_FLAVORS]

    def counted(self):
        totals = self.totals() or demand.empty()
        return (sum(e[pub.TURNED_AWAY]
                    for e in totals[pub.DEMAND_FLAVORS].values())
                + totals[pub.DEMAND_UNKNOWN][pub.TURNED_AWAY])


class TestDemand(DemandTestCase):

    def test_totals_go_on_with_the_next_leader(self):
        self.fail()
        self.fail(project='p2')
        self.leader.update()
        self.fail(flavor_id='f2')
        # Another worker takes over: it starts from the published totals.
        self.demand().update()
        flavors = self.flavors()
        self.assertEqual(2, flavors['f1'][pub.TURNED_AWAY])
        self.assertEqual({'p1': 1, 'p2': 1}, flavors['f1'][pub.PROJECTS])
        self.assertEqual(1, flavors['f2'][pub.TURNED_AWAY])
        self.assertEqual('1970-01-01T00:16:40Z', flavors['f2'][pub.LAST_AT])
        self.assertEqual(0, self.totals()[pub.TURNED_AWAY_LOST])

    def test_unknown_ids_are_one_total(self):
        for number in range(3000):
            self.fail(flavor_id='made-up-%d' % number, project='x%d' % number,
                      at=800.0)
        self.fail()
        self.leader.update()
        totals = self.totals()
        self.assertEqual({'f1'}, set(totals[pub.DEMAND_FLAVORS]))
        self.assertEqual(3000, totals[pub.DEMAND_UNKNOWN][pub.TURNED_AWAY])
        self.assertEqual(1, totals[pub.DEMAND_FLAVORS]['f1'][pub.TURNED_AWAY])

    def test_names_come_from_the_flavor_list(self):
        self.fail(name='renamed-by-a-message')
        self.leader.update()
        self.assertEqual('g.large', self.flavors()['f1'][pub.NAME])
        # Renamed in Nova: the next refresh's name.
        self.report = report({'f1': 'g.large.v2', 'f2': 'g.small'})
        self.leader.update()
        self.assertEqual('g.large.v2', self.flavors()['f1'][pub.NAME])

    def test_a_deleted_flavor_joins_the_unknown(self):
        self.fail()
        self.fail(flavor_id='f2')
        self.leader.update()
        self.report = report({'f1': 'g.large'})
        self.leader.update()
        totals = self.totals()
        self.assertEqual({'f1'}, set(totals[pub.DEMAND_FLAVORS]))
        self.assertEqual(1, totals[pub.DEMAND_UNKNOWN][pub.TURNED_AWAY])

    def test_totals_an_older_leader_wrote_are_brought_in_line(self):
        # Before this release, every message's id and name was an entry.
        self.store.write_demand({
            pub.TURNED_AWAY_SEEN: 0, pub.TURNED_AWAY_LOST: 0,
            pub.DEMAND_FLAVORS: {
                'f1': {pub.NAME: 'forged', pub.TURNED_AWAY: 2,
                       pub.LAST_AT: None, pub.PROJECTS: {'p1': 2}},
                'junk': {pub.NAME: 'junk', pub.TURNED_AWAY: 5,
                         pub.LAST_AT: '2026-01-01T00:00:00Z',
                         pub.PROJECTS: {}}}})
        self.leader.update()
        totals = self.totals()
        self.assertEqual({'f1'}, set(totals[pub.DEMAND_FLAVORS]))
        self.assertEqual('g.large', totals[pub.DEMAND_FLAVORS]['f1'][pub.NAME])
        self.assertEqual({pub.TURNED_AWAY: 5,
                          pub.LAST_AT: '2026-01-01T00:00:00Z'},
                         totals[pub.DEMAND_UNKNOWN])

    def test_projects_are_bounded_per_flavor(self):
        for number in range(3 * demand.PROJECTS_KEPT):
            for _ in range(1 + (number < 5)):
                self.fail(project='p%03d' % number)
        self.leader.update()
        entry = self.flavors()['f1']
        self.assertEqual(demand.PROJECTS_KEPT, len(entry[pub.PROJECTS]))
        # The most failing ones are kept.
        for number in range(5):
            self.assertEqual(2, entry[pub.PROJECTS]['p%03d' % number])
        self.assertEqual(3 * demand.PROJECTS_KEPT + 5,
                         sum(entry[pub.PROJECTS].values())
                         + entry[pub.OTHER_PROJECTS])
        self.assertEqual(entry[pub.TURNED_AWAY],
                         3 * demand.PROJECTS_KEPT + 5)

    def test_no_flavor_list_no_counting_yet(self):
        self.report = None
        self.fail()
        self.leader.update()
        self.assertIsNone(self.totals())
        self.report = report({'f1': 'g.large'})
        self.leader.update()
        self.assertEqual(1, self.flavors()['f1'][pub.TURNED_AWAY])


class TestWaits(DemandTestCase):

    def test_a_flavor_newer_than_the_list_waits_for_the_next(self):
        # Heard after the list was read (900): maybe created since.
        self.fail(flavor_id='f3', at=1000.0)
        self.fail(flavor_id='f1', at=1001.0)
        taken = self.store.changes.pending({})[0]
        self.leader.update()
        self.leader.update()
        self.assertEqual(0, self.counted())
        # The next refresh reads the flavors (legacy notifications do not
        # announce new ones), asked for once.
        counters, _, changed, _ = self.store.changes.pending(taken)
        self.assertEqual({'flavors'}, changed)
        self.assertEqual(1, counters['flavors'] - taken.get('flavors', 0))
        self.report = report({'f1': 'a', 'f3': 'new'}, collected_at=1002.0)
        self.leader.update()
        self.assertEqual({'f1': 1, 'f3': 1}, {
            k: v[pub.TURNED_AWAY] for k, v in self.flavors().items()})
        self.assertEqual('new', self.flavors()['f3'][pub.NAME])

    def test_not_for_ever(self):
        self.fail(flavor_id='f3', at=1000.0)
        self.leader.update()
        self.wall[0] = 1000.0 + demand.NEW_FLAVOR_WAIT
        self.leader.update()
        self.assertEqual(1, self.totals()[pub.DEMAND_UNKNOWN][pub.TURNED_AWAY])

    def test_a_slot_being_written_is_waited_for(self):
        # A listener took number 1 and has not written it yet.
        self.store.reader._backend.incr(
            self.store.reader.key(pub.TURNED_AWAY_NAME + '/count'), 0)
        self.fail()
        self.leader.update()
        self.assertEqual(0, self.counted())
        self.clock[0] = demand.EMPTY_SLOT_WAIT
        self.leader.update()
        totals = self.totals()
        self.assertEqual(1, totals[pub.TURNED_AWAY_LOST])
        self.assertEqual(1, totals[pub.DEMAND_FLAVORS]['f1'][pub.TURNED_AWAY])

    def test_failures_the_ring_lost_are_said(self):
        self.leader.update()
        self.store.turned_away.SLOTS = 2
        for _ in range(3):
            self.fail()
        with self.assertLogs(demand.LOG.logger, 'WARNING'):
            self.leader.update()
        totals = self.totals()
        self.assertEqual(2, totals[pub.DEMAND_FLAVORS]['f1'][pub.TURNED_AWAY])
        self.assertEqual(1, totals[pub.TURNED_AWAY_LOST])


class TestCardinality(DemandTestCase):

    def test_metrics_have_flavors_plus_one_series(self):
        self.report = report({'f%d' % n: 'n%d' % n for n in range(20)})
        # As much as the ring holds between two looks.
        for number in range(2000):
            self.fail(flavor_id='made-up-%d' % number, at=800.0)
            self.fail(flavor_id='f%d' % (number % 20),
                      project='p%d' % number, at=800.0)
        self.leader.update()
        lines = metrics.demand_counters(self.totals())
        samples = [line for line in lines if not line.startswith('#')]
        by_flavor = [line for line in samples if line.startswith(
            'flavor_exporter_scheduling_failures_total{')]
        by_project = [line for line in samples if line.startswith(
            'flavor_exporter_scheduling_failures_by_project_total{')]
        self.assertEqual(20, len(by_flavor))
        self.assertEqual(20 * demand.PROJECTS_KEPT, len(by_project))
        self.assertIn('flavor_exporter_scheduling_failures_unknown_flavor_'
                      'total 2000', samples)
        self.assertEqual(20 + 20 * demand.PROJECTS_KEPT + 1, len(samples))
