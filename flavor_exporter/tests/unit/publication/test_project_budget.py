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
"""A client's share of new projects: real ones free, made-up ones bounded."""

from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import mailboxes
from flavor_exporter.tests import base

NOW = 1000000.0 * 60  # the start of a minute
LIMIT = 3
PORTAL = 'portal-user'


def key(name):
    return pub.key('test', name)


class BudgetTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.backend = cache.MemoryBackend()
        self.requests = mailboxes.ProjectRequests(self.backend, key)

    def ask(self, project_id, client=PORTAL, now=NOW):
        return self.requests.ask(project_id, 60, client, LIMIT, now)

    def asked(self):
        return self.requests.since(None)[1]


class TestKnownIds(BudgetTestCase):

    def test_known_ids_cost_nothing(self):
        known = ['p%04d' % i for i in range(2500)]
        self.requests.note_known(known, 900)
        self.assertEqual({'asked'}, {self.ask(p) for p in known})
        self.assertEqual(known, self.asked())
        # The share is whole: new ids are still asked about.
        self.assertEqual(['asked'] * LIMIT,
                         [self.ask('new%d' % i) for i in range(LIMIT)])

    def test_known_for_their_ttl_only(self):
        self.requests.note_known(['p1'], 900)
        self.backend.delete(key('project-requests/known/p1'))
        for i in range(LIMIT):
            self.ask('new%d' % i)
        self.assertEqual('refused', self.ask('p1'))


class TestCharges(BudgetTestCase):

    def test_without_a_leader_past_the_share_is_refused(self):
        # As before there was a worker to settle charges (the recorded
        # answers keep their 429).
        self.assertEqual(['asked'] * LIMIT + ['refused'],
                         [self.ask('n%d' % i) for i in range(LIMIT + 1)])
        self.assertEqual('asked', self.ask('n9', client='another'))
        self.assertEqual('asked', self.ask('n8', now=NOW + 60))

    def test_charges_being_looked_up_are_busy_then_refunded(self):
        self.requests.note_settling(30)
        for i in range(LIMIT):
            self.ask('n%d' % i)
        self.assertEqual('busy', self.ask('n9'))
        # Busy is not asked: the client asks again.
        self.assertEqual(['n0', 'n1', 'n2'], self.asked())
        for _ in range(10):
            self.ask('n9')
        self.requests.settle('n0', True)
        self.assertEqual('asked', self.ask('n9'))
        self.assertEqual('busy', self.ask('n10'))

    def test_a_refund_comes_once(self):
        self.requests.note_settling(30)
        for i in range(LIMIT):
            self.ask('n%d' % i)
        self.requests.settle('n0', True)
        self.requests.settle('n0', True)
        self.assertEqual(['asked', 'busy'], [self.ask('a'), self.ask('b')])

    def test_unknown_ids_spend_the_share(self):
        self.requests.note_settling(30)
        for i in range(LIMIT):
            self.ask('bogus%d' % i)
            self.requests.settle('bogus%d' % i, False)
        self.assertEqual('refused', self.ask('real'))
        self.assertEqual('asked', self.ask('real', now=NOW + 60))

    def test_a_burst_of_random_ids_stops_at_the_share(self):
        self.requests.note_settling(30)
        outcomes = [self.ask('bogus%d' % i) for i in range(1000)]
        self.assertEqual(LIMIT, outcomes.count('asked'))
        self.assertEqual(LIMIT, len(self.asked()))
        # Looked up and found unknown: the rest of the minute is 429.
        for project_id in self.asked():
            self.requests.settle(project_id, False)
        self.assertEqual('refused', self.ask('bogus-again'))

    def test_free_ids_are_never_charged_nor_refunded(self):
        self.requests.note_settling(30)
        self.requests.note_known(['p1'], 900)
        self.ask('p1')
        self.requests.settle('p1', True)
        for i in range(LIMIT):
            self.ask('n%d' % i)
        self.assertEqual('busy', self.ask('n9'))

    def test_answered_without_client_costs_nothing(self):
        for i in range(LIMIT + 5):
            self.assertEqual('asked', self.requests.ask('old%d' % i, 60))


class TestChecksUnchanged(base.TestCase):

    def test_check_ids_are_charged_as_before(self):
        backend = cache.MemoryBackend()
        checks = mailboxes.CheckRequests(backend, key)
        checks.note_settling(30)
        outcomes = [checks.ask_check('c%d' % i, {}, 60, PORTAL, LIMIT, NOW)
                    for i in range(LIMIT + 1)]
        self.assertEqual(['asked'] * LIMIT + ['refused'], outcomes)
        self.assertFalse([k for k in backend._items if '/charged/' in k])
