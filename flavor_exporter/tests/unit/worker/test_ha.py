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

import datetime
from unittest import mock

from testcloud import loopback

from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.worker import leadership
from flavor_exporter.worker import service

T0 = datetime.datetime(2027, 1, 15, 8, 0, 0, tzinfo=datetime.timezone.utc)


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


class FakeLeadership:
    def __init__(self):
        self.leading = False
        self.certain = True

    def leads(self):
        return self.leading


class TickTestCase(base.TestCase):
    """A WorkerService ticked by hand, its refresher a mock."""

    def setUp(self):
        super().setUp()
        self.flags(group='worker', refresh_interval=100)
        self.flags(group='coordination', check_interval=5)
        self.now = 1000.0
        self.wall = 2_000_000_000.0
        self.worker = service.WorkerService(
            self.conf, None, clock=lambda: self.now,
            wall_clock=lambda: self.wall)
        self.worker._publisher = publisher.Publisher(
            cache.MemoryBackend(), 'fe', 0)
        self.worker.leadership = FakeLeadership()
        self.worker.refresher = mock.Mock()


class TestTick(TickTestCase):

    def test_followers_do_not_refresh(self):
        self.assertEqual(5, self.worker.tick())
        self.worker.refresher.refresh.assert_not_called()

    def test_a_new_leader_waits_until_the_data_is_due(self):
        self.worker._publisher.publish({'a': b'1'}, pub.pointer(
            datetime.datetime.fromtimestamp(
                self.wall - 40, datetime.timezone.utc), 's', 1, 1), T0)
        self.worker.leadership.leading = True
        self.worker.tick()
        self.worker.refresher.refresh.assert_not_called()
        self.now += 60
        self.worker.tick()
        self.worker.refresher.refresh.assert_called_once_with(
            record_failure=True, scope=None, hosts=None)
        self.now += 50
        self.worker.tick()
        self.assertEqual(1, self.worker.refresher.refresh.call_count)

    def test_a_leader_of_a_cold_cache_refreshes_at_once(self):
        self.worker.leadership.leading = True
        self.worker.tick()
        self.worker.refresher.refresh.assert_called_once_with(
            record_failure=True, scope=None, hosts=None)

    def test_failures_of_a_leader_by_assumption_are_not_recorded(self):
        self.worker.leadership.leading = True
        self.worker.leadership.certain = False  # no coordination backend
        self.worker.tick()
        self.worker.refresher.refresh.assert_called_once_with(
            record_failure=False, scope=None, hosts=None)

    def test_a_failed_tick_is_one_line_and_the_timer_lives_on(self):
        self.worker.leadership.leads = mock.Mock(
            side_effect=KeyError('member'))
        with mock.patch.object(service.LOG, 'error') as error:
            self.assertEqual(5, self.worker.tick())
        error.assert_called_once()
        self.assertIn("KeyError: 'member'", error.call_args[0][3])


class TestChangeTick(TickTestCase):
    """What Nova announced, refreshed by the leader after settling."""

    def setUp(self):
        super().setUp()
        self.flags(group='notifications', settle=1.0, check_interval=0.5)
        self.worker.demand = mock.Mock()
        self.worker.projects = mock.Mock()
        self.changes = self.worker._publisher.changes

    def test_a_burst_is_one_refresh_of_what_changed(self):
        self.worker._leads = True
        self.assertEqual(0.5, self.worker.change_tick())  # takes counters
        self.changes.note(['usages'], self.wall, 60, hosts=['h1'])
        self.changes.note(['usages', 'flavors'], self.wall + 0.2, 60,
                          hosts=['h1'])
        self.wall += 0.5
        self.worker.change_tick()
        self.worker.refresher.refresh.assert_not_called()  # settling
        self.wall += 0.6
        self.worker.change_tick()
        self.worker.refresher.refresh.assert_called_once_with(
            record_failure=True, scope=frozenset(('usages', 'flavors')),
            hosts=frozenset(('h1',)))
        self.worker.change_tick()
        self.assertEqual(1, self.worker.refresher.refresh.call_count)
        self.worker.demand.safe_update.assert_called()

    def test_followers_leave_changes_to_the_leader(self):
        self.changes.note(['services'], self.wall, 60)
        self.worker.change_tick()
        self.worker.refresher.refresh.assert_not_called()
        self.worker.demand.forget.assert_called_once_with()


class TestProjectTick(TickTestCase):
    """Projects are answered on a timer of their own, beside refreshes."""

    def setUp(self):
        super().setUp()
        self.worker.projects = mock.Mock()
        self.worker.leadership.leading = True

    def test_a_refresh_tick_reads_no_quota(self):
        self.worker.tick()
        self.worker.refresher.refresh.assert_called_once()
        self.worker.projects.answer.assert_not_called()

    def test_the_project_tick_answers_when_leading(self):
        self.assertEqual(1.0, self.worker.project_tick())
        self.worker.projects.answer.assert_not_called()  # not leading yet
        self.worker.tick()
        self.worker.project_tick()
        self.worker.projects.answer.assert_called_once()

    def test_a_failed_project_tick_is_one_line(self):
        self.worker.tick()
        self.worker.projects.answer.side_effect = KeyError('x')
        with mock.patch.object(service.LOG, 'error') as error:
            self.assertEqual(1.0, self.worker.project_tick())
        error.assert_called_once()


class TestRefreshRequests(TickTestCase):
    """An API process that found no data asked for a refresh."""

    def setUp(self):
        super().setUp()
        self.flags(group='api', retry_after=30)
        self.worker.leadership.leading = True
        self.worker.refresher.ensure_published.return_value = False
        self.worker.tick()  # the first refresh, due at once
        self.worker.refresher.reset_mock()
        self.now += 10

    def ask(self, generation_id=None):
        self.worker._publisher.refresh_requests.ask(generation_id, 60)

    def test_answered_at_the_next_tick_once(self):
        self.ask()
        self.worker.tick()
        self.worker.refresher.refresh.assert_called_once_with(
            record_failure=True, scope=None, hosts=None)
        self.assertIsNone(self.worker._publisher.refresh_requests.pending())
        self.now += 5
        self.worker.tick()
        self.assertEqual(1, self.worker.refresher.refresh.call_count)

    def test_at_most_once_per_retry_after(self):
        self.ask()
        self.worker.tick()
        self.ask()
        self.now += 29
        self.worker.tick()
        self.assertEqual(1, self.worker.refresher.refresh.call_count)
        self.now += 1
        self.worker.tick()
        self.assertEqual(2, self.worker.refresher.refresh.call_count)

    def test_the_last_good_data_is_published_again_first(self):
        self.worker.refresher.ensure_published.return_value = True
        self.ask()
        self.worker.tick()
        self.worker.refresher.ensure_published.assert_called_once_with(
            asked=True)
        self.worker.refresher.refresh.assert_not_called()

    def test_published_meanwhile_costs_nothing(self):
        self.worker._publisher.publish({'a': b'1'}, {}, T0)
        self.ask()
        self.worker.tick()
        self.worker.refresher.refresh.assert_not_called()
        self.assertIsNone(self.worker._publisher.refresh_requests.pending())

    def test_a_request_is_answered_within_the_initial_delay(self):
        worker = service.WorkerService(
            self.conf, None, clock=lambda: self.now,
            wall_clock=lambda: self.wall)
        worker._publisher = self.worker._publisher
        worker.leadership = self.worker.leadership
        worker.refresher = mock.Mock()
        worker.refresher.ensure_published.return_value = False
        worker._not_before = self.now + 3600  # [worker] initial_delay
        worker.tick()
        worker.refresher.refresh.assert_not_called()
        self.ask()
        self.now += 5
        worker.tick()
        worker.refresher.refresh.assert_called_once_with(
            record_failure=True, scope=None, hosts=None)

    def test_parts_missing_from_the_current_generation(self):
        pointer = self.worker._publisher.publish({'a': b'1'}, {}, T0)
        self.worker.refresher.ensure_published.return_value = True
        self.ask(pointer[pub.GENERATION])
        self.worker.tick()
        self.worker.refresher.ensure_published.assert_called_once_with(
            asked=True)
        self.worker.refresher.refresh.assert_not_called()

    def test_parts_missing_from_an_older_generation_cost_nothing(self):
        self.worker._publisher.publish({'a': b'1'}, {}, T0)
        self.ask('an-older-generation')
        self.worker.tick()
        self.worker.refresher.refresh.assert_not_called()
        self.worker.refresher.ensure_published.assert_not_called()

    def test_followers_leave_requests_to_the_leader(self):
        self.worker.leadership.leading = False
        self.ask()
        self.worker.tick()
        self.worker.refresher.refresh.assert_not_called()
        self.assertIsNotNone(self.worker._publisher.refresh_requests.pending())
