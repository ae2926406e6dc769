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

"""The refresh manager's tasks, run by hand: who refreshes, and when."""

import datetime
from unittest import mock

from flavor_exporter.common import clouds
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.worker import answer_managers
from flavor_exporter.worker import manager
from flavor_exporter.worker import periodic

T0 = datetime.datetime(2027, 1, 15, 8, 0, 0, tzinfo=datetime.timezone.utc)


class FakeLeadership:
    def __init__(self):
        self.leading = False
        self.certain = True

    def leads(self):
        return self.leading


class TickTestCase(base.TestCase):
    """A RefreshManager's tasks run by hand, its refresher a mock."""

    manager_class = manager.RefreshManager

    def setUp(self):
        super().setUp()
        self.flags(group='worker', refresh_interval=100)
        self.flags(group='coordination', check_interval=5)
        self.now = 1000.0
        self.wall = 2_000_000_000.0
        self.publisher = publisher.Publisher(cache.MemoryBackend(), 'fe', 0)
        self.leadership = FakeLeadership()
        self.worker = self.make_manager()

    def make_manager(self, **kwargs):
        return self.manager_class(
            self.conf, clouds.default(self.conf), self.publisher, mock.Mock(),
            mock.Mock(), self.leadership, clock=lambda: self.now,
            wall_clock=lambda: self.wall, **kwargs)

    def tick(self, worker=None):
        """What the refresh manager's timer runs when both are due."""
        worker = worker or self.worker
        worker.check_leadership(None)
        worker.refresh_capacity(None)


class TestTick(TickTestCase):

    def test_followers_do_not_refresh(self):
        self.tick()
        self.worker.refresher.refresh.assert_not_called()
        self.worker.refresher.ensure_published.assert_not_called()
        self.assertFalse(self.worker.leads)
        self.assertEqual(5, self.worker.spacing('check_leadership'))

    def test_a_new_leader_waits_until_the_data_is_due(self):
        self.publisher.publish({'a': b'1'}, pub.pointer(
            datetime.datetime.fromtimestamp(
                self.wall - 40, datetime.timezone.utc), 's', 1, 1), T0)
        self.leadership.leading = True
        self.tick()
        self.worker.refresher.refresh.assert_not_called()
        self.now += 60
        self.tick()
        self.worker.refresher.refresh.assert_called_once_with(
            record_failure=True, scope=None, hosts=None)
        self.now += 50
        self.tick()
        self.assertEqual(1, self.worker.refresher.refresh.call_count)

    def test_a_leader_of_a_cold_cache_refreshes_at_once(self):
        self.leadership.leading = True
        self.tick()
        self.worker.refresher.refresh.assert_called_once_with(
            record_failure=True, scope=None, hosts=None)
        self.worker.projects.after_refresh.assert_called_once_with()

    def test_due_between_two_leadership_checks(self):
        # The leader looks every [projects] poll_interval (1 s) and
        # checks its leadership every [coordination] check_interval.
        self.leadership.leading = True
        self.tick()
        self.now += 100
        self.worker.refresh_capacity(None)
        self.assertEqual(2, self.worker.refresher.refresh.call_count)

    def test_a_lost_leadership_stops_the_refreshes(self):
        self.leadership.leading = True
        self.tick()
        self.leadership.leading = False
        self.now += 100
        self.tick()
        self.assertEqual(1, self.worker.refresher.refresh.call_count)
        self.worker.refresher.ensure_published.assert_not_called()

    def test_the_published_data_is_ensured_at_every_look(self):
        self.leadership.leading = True
        self.tick()
        self.now += 1
        self.worker.refresh_capacity(None)
        self.now += 1
        self.worker.refresh_capacity(None)
        self.assertEqual(
            [mock.call(), mock.call()],
            self.worker.refresher.ensure_published.call_args_list)

    def test_the_initial_delay_holds_the_first_refresh(self):
        self.flags(group='worker', initial_delay=30)
        worker = self.make_manager()
        self.leadership.leading = True
        self.tick(worker)
        worker.refresher.refresh.assert_not_called()
        self.now += 30
        worker.refresh_capacity(None)
        worker.refresher.refresh.assert_called_once()

    def test_a_project_asked_about_before_the_first_refresh(self):
        # Took over while the last leader's data is fresh: a project's
        # numbers need a report of this worker's, at most once per
        # [api] retry_after.
        self.flags(group='api', retry_after=30)
        self.publisher.publish({'a': b'1'}, pub.pointer(
            datetime.datetime.fromtimestamp(
                self.wall - 10, datetime.timezone.utc), 's', 1, 1), T0)
        self.worker.refresher.last_report = None
        self.worker.refresher.refresh.return_value = False
        self.worker.projects.waiting.return_value = True
        self.leadership.leading = True
        self.tick()
        self.worker.refresher.refresh.assert_called_once()
        self.now += 1
        self.worker.refresh_capacity(None)
        self.assertEqual(1, self.worker.refresher.refresh.call_count)
        self.now += 29
        self.worker.refresh_capacity(None)
        self.assertEqual(2, self.worker.refresher.refresh.call_count)

    def test_failures_of_a_leader_by_assumption_are_not_recorded(self):
        self.leadership.leading = True
        self.leadership.certain = False  # no coordination backend
        self.tick()
        self.worker.refresher.refresh.assert_called_once_with(
            record_failure=False, scope=None, hosts=None)

    def test_a_failed_tick_is_one_line_and_the_timer_lives_on(self):
        self.leadership.leads = mock.Mock(side_effect=KeyError('member'))
        with mock.patch.object(periodic.LOG, 'error') as error:
            self.tick()
        error.assert_called_once()
        self.assertEqual('Checking the leadership', error.call_args[0][2])
        self.assertEqual(5, error.call_args[0][3])
        self.assertIn("KeyError: 'member'", error.call_args[0][4])


class TestChangeTick(TickTestCase):
    """What Nova announced, refreshed by the leader on the leading edge."""

    manager_class = manager.NotifiedRefreshManager

    def setUp(self):
        self.demand = mock.Mock()
        super().setUp()
        self.flags(group='notifications', settle=1.0, check_interval=0.1)
        self.changes = self.publisher.changes

    def make_manager(self, **kwargs):
        return super().make_manager(demand=self.demand)

    def change_tick(self):
        self.worker.refresh_announced_changes(None)

    def refreshed(self, scope, hosts):
        return mock.call(record_failure=True, scope=frozenset(scope),
                         hosts=None if hosts is None else frozenset(hosts))

    def test_a_first_change_at_once_the_rest_of_its_burst_after(self):
        # Changed on purpose (issue 40): the first change used to wait
        # [notifications] settle for the rest of its burst.
        self.worker.leads = True
        self.change_tick()  # takes counters
        self.changes.note(['usages'], self.wall, 60, hosts=['h1'])
        self.wall += 0.125  # GATHER later
        self.change_tick()
        self.assertEqual([self.refreshed(['usages'], ['h1'])],
                         self.worker.refresher.refresh.call_args_list)
        # The rest of the burst: one refresh, settle after the first.
        for _ in range(50):
            self.changes.note(['usages'], self.wall, 60, hosts=['h2'])
            self.changes.note(['flavors'], self.wall, 60)
            self.now += 0.015625  # 50 of them: 0.78 s
            self.change_tick()
        self.assertEqual(1, self.worker.refresher.refresh.call_count)
        self.now += 0.25
        self.change_tick()
        self.assertEqual(2, self.worker.refresher.refresh.call_count)
        self.assertEqual(self.refreshed(['usages', 'flavors'], ['h2']),
                         self.worker.refresher.refresh.call_args)
        self.now += 5
        self.change_tick()
        self.assertEqual(2, self.worker.refresher.refresh.call_count)
        self.demand.safe_update.assert_called()

    def test_both_formats_of_an_event_are_one_refresh(self):
        # Nova's notification_format = both: the versioned and the legacy
        # copy, noted by two workers a moment apart.
        self.worker.leads = True
        self.change_tick()
        self.changes.note(['usages'], self.wall, 60, hosts=['h1'])
        self.change_tick()
        self.worker.refresher.refresh.assert_not_called()  # gathering
        self.wall += 0.04
        self.now += 0.04
        self.changes.note(['usages'], self.wall, 60, hosts=['h1'])
        self.wall += 0.0625  # GATHER after the first
        self.now += 0.0625
        self.change_tick()
        self.assertEqual([self.refreshed(['usages'], ['h1'])],
                         self.worker.refresher.refresh.call_args_list)
        self.now += 5
        self.change_tick()
        self.assertEqual(1, self.worker.refresher.refresh.call_count)

    def test_a_listener_clock_ahead_holds_a_change_one_gather_at_most(self):
        self.worker.leads = True
        self.change_tick()
        self.changes.note(['services'], self.wall + 30, 60)
        self.change_tick()  # seen now, by this leader's clock
        self.worker.refresher.refresh.assert_not_called()
        self.now += 0.125
        self.change_tick()
        self.assertEqual(1, self.worker.refresher.refresh.call_count)

    def test_settle_counts_from_the_end_of_a_long_refresh(self):
        self.worker.leads = True
        self.change_tick()

        def slow(**kwargs):
            self.now += 3.0
        self.worker.refresher.refresh.side_effect = slow
        self.changes.note(['services'], self.wall - 1, 60)
        self.change_tick()
        self.changes.note(['services'], self.wall, 60)  # during it
        self.now += 0.9
        self.change_tick()
        self.assertEqual(1, self.worker.refresher.refresh.call_count)
        self.now += 0.1
        self.change_tick()
        self.assertEqual(2, self.worker.refresher.refresh.call_count)

    def test_a_failed_refresh_still_spaces_the_next(self):
        self.worker.leads = True
        self.change_tick()
        self.worker.refresher.refresh.side_effect = RuntimeError('cloud')
        self.changes.note(['services'], self.wall - 1, 60)
        self.change_tick()  # one line (periodic.one_line)
        self.changes.note(['services'], self.wall, 60)
        self.change_tick()
        self.assertEqual(1, self.worker.refresher.refresh.call_count)
        self.now += 1.0
        self.change_tick()
        self.assertEqual(2, self.worker.refresher.refresh.call_count)

    def test_a_new_leader_reads_everything_then_the_leading_edge(self):
        self.changes.note(['usages'], self.wall - 1, 60, hosts=['h1'])
        self.worker.leads = True
        self.change_tick()  # its first refresh reads everything anyway
        self.worker.refresher.refresh.assert_not_called()
        self.changes.note(['aggregates'], self.wall - 1, 60)
        self.change_tick()
        self.assertEqual([self.refreshed(['aggregates'], [])],
                         self.worker.refresher.refresh.call_args_list)

    def test_followers_leave_changes_to_the_leader(self):
        self.changes.note(['services'], self.wall, 60)
        self.change_tick()
        self.worker.refresher.refresh.assert_not_called()
        self.demand.forget.assert_called_once_with()

    def test_paced_by_its_own_option(self):
        self.flags(group='notifications', check_interval=0.25)
        self.assertEqual(0.25, self.make_manager().spacing(
            'refresh_announced_changes'))

    def test_only_a_listening_worker_has_the_task(self):
        self.assertEqual(
            ['check_leadership', 'refresh_capacity'],
            manager.RefreshManager(
                self.conf, clouds.default(self.conf), self.publisher,
                mock.Mock(), mock.Mock(), self.leadership).task_names)
        self.assertEqual(
            ['check_leadership', 'refresh_capacity',
             'refresh_announced_changes'], self.worker.task_names)


class TestProjectTick(TickTestCase):
    """Projects are answered by a manager of their own, beside refreshes."""

    def setUp(self):
        super().setUp()
        self.leadership.leading = True
        self.answers = answer_managers.ProjectManager(
            self.conf, clouds.default(self.conf), self.worker.projects,
            lambda: self.worker.leads)

    def test_a_refresh_tick_reads_no_quota(self):
        self.tick()
        self.worker.refresher.refresh.assert_called_once()
        self.worker.projects.answer.assert_not_called()

    def test_the_project_tick_answers_when_leading(self):
        self.assertEqual(1.0, self.answers.spacing('answer_projects'))
        self.answers.answer_projects(None)
        self.worker.projects.answer.assert_not_called()  # not leading yet
        self.tick()
        self.answers.answer_projects(None)
        self.worker.projects.answer.assert_called_once()

    def test_a_failed_project_tick_is_one_line(self):
        self.tick()
        self.worker.projects.answer.side_effect = KeyError('x')
        with mock.patch.object(periodic.LOG, 'error') as error:
            self.answers.answer_projects(None)
        error.assert_called_once()
        self.assertEqual('Answering projects', error.call_args[0][2])


class TestRefreshRequests(TickTestCase):
    """An API process that found no data asked for a refresh."""

    def setUp(self):
        super().setUp()
        self.flags(group='api', retry_after=30)
        self.leadership.leading = True
        self.worker.refresher.ensure_published.return_value = False
        self.tick()  # the first refresh, due at once
        self.worker.refresher.reset_mock()
        self.now += 10

    def ask(self, generation_id=None):
        self.publisher.refresh_requests.ask(generation_id, 60)

    def test_answered_at_the_next_tick_once(self):
        self.ask()
        self.tick()
        self.worker.refresher.refresh.assert_called_once_with(
            record_failure=True, scope=None, hosts=None)
        self.assertIsNone(self.publisher.refresh_requests.pending())
        self.now += 5
        self.tick()
        self.assertEqual(1, self.worker.refresher.refresh.call_count)

    def test_answered_at_the_next_look(self):
        # Within [projects] poll_interval, not [coordination]
        # check_interval: the look needs no leadership check.
        self.ask()
        self.worker.refresh_capacity(None)
        self.worker.refresher.refresh.assert_called_once()

    def test_at_most_once_per_retry_after(self):
        self.ask()
        self.tick()
        self.ask()
        self.now += 29
        self.tick()
        self.assertEqual(1, self.worker.refresher.refresh.call_count)
        self.now += 1
        self.tick()
        self.assertEqual(2, self.worker.refresher.refresh.call_count)

    def test_the_last_good_data_is_published_again_first(self):
        self.worker.refresher.ensure_published.return_value = True
        self.ask()
        self.tick()
        self.worker.refresher.ensure_published.assert_called_once_with(
            asked=True)
        self.worker.refresher.refresh.assert_not_called()

    def test_published_meanwhile_costs_nothing(self):
        self.publisher.publish({'a': b'1'}, {}, T0)
        self.ask()
        self.tick()
        self.worker.refresher.refresh.assert_not_called()
        self.assertIsNone(self.publisher.refresh_requests.pending())

    def test_a_request_is_answered_within_the_initial_delay(self):
        self.flags(group='worker', initial_delay=3600)
        worker = self.make_manager()
        worker.refresher.ensure_published.return_value = False
        self.tick(worker)
        worker.refresher.refresh.assert_not_called()
        self.ask()
        self.now += 5
        self.tick(worker)
        worker.refresher.refresh.assert_called_once_with(
            record_failure=True, scope=None, hosts=None)

    def test_parts_missing_from_the_current_generation(self):
        pointer = self.publisher.publish({'a': b'1'}, {}, T0)
        self.worker.refresher.ensure_published.return_value = True
        self.ask(pointer[pub.GENERATION])
        self.tick()
        self.worker.refresher.ensure_published.assert_called_once_with(
            asked=True)
        self.worker.refresher.refresh.assert_not_called()

    def test_parts_missing_from_an_older_generation_cost_nothing(self):
        self.publisher.publish({'a': b'1'}, {}, T0)
        self.ask('an-older-generation')
        self.tick()
        self.worker.refresher.refresh.assert_not_called()
        self.worker.refresher.ensure_published.assert_not_called()

    def test_followers_leave_requests_to_the_leader(self):
        self.leadership.leading = False
        self.ask()
        self.tick()
        self.worker.refresher.refresh.assert_not_called()
        self.assertIsNotNone(self.publisher.refresh_requests.pending())
