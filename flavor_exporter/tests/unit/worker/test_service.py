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

"""WorkerService started for real: its managers in timer threads.

What the separate timers guarantee is only seen with real threads: a
quota API or a set check that hangs holds no refresh, one cloud holds no
other. The refresher, the answers and the leadership are stand-ins; every
wait is bounded.
"""

import threading
from unittest import mock

import fixtures

from flavor_exporter.publication import cache
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.worker import answer_managers
from flavor_exporter.worker import checks
from flavor_exporter.worker import defrag
from flavor_exporter.worker import leadership
from flavor_exporter.worker import manager
from flavor_exporter.worker import periodic
from flavor_exporter.worker import projects
from flavor_exporter.worker import refresh
from flavor_exporter.worker import service
from flavor_exporter.worker import whatif

# Seconds a test waits for what must happen; what happens takes a
# fraction of a second.
WAIT = 10


class Calls:
    """Counts calls; waits, bounded, until there are enough."""

    def __init__(self):
        self.count = 0
        self._changed = threading.Condition()

    def __call__(self):
        with self._changed:
            self.count += 1
            self._changed.notify_all()

    def reach(self, count, timeout=WAIT):
        with self._changed:
            return self._changed.wait_for(lambda: self.count >= count,
                                          timeout)


class FakeRefresher:
    """Refreshes count; hang, when set, holds each refresh until released."""

    def __init__(self, conf, publisher, options=None, cloud=None):
        self.cloud = cloud
        self.last_report = None
        self.refreshes = Calls()
        self.hang = None
        self.client = None

    def refresh(self, record_failure=True, scope=None, hosts=None):
        self.refreshes()
        if self.hang is not None:
            self.hang.wait(WAIT)
        self.last_report = object()
        return True

    def ensure_published(self, asked=False):
        return False


class FakeAnswers:
    """ProjectAnswers' or CheckAnswers' interface; answer() may hang."""

    def __init__(self, *args, **kwargs):
        self.answers = Calls()
        self.hang = None

    def answer(self):
        self.answers()
        if self.hang is not None:
            self.hang.wait(WAIT)
        return 0

    def waiting(self):
        return False

    def after_refresh(self):
        pass

    def close(self):
        pass


class ServiceTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.flags(group='document_cache', backend='memory')
        self.flags(group='coordination', check_interval=1)
        self.flags(group='projects', poll_interval=0.1)
        self.flags(group='checks', poll_interval=0.1, enabled=True)
        self.backend = cache.MemoryBackend()
        self.publishers = {}
        self.refreshers = {}
        self.answers = {}
        self.patch(publisher.Publisher, 'from_conf', self._publisher)
        self.patch(refresh, 'Refresher', self._refresher)
        self.patch(projects, 'ProjectAnswers', self._answers('projects'))
        self.patch(checks, 'CheckAnswers', self._answers('checks'))
        self.patch(whatif, 'WhatifAnswers', self._answers('whatif'))
        self.patch(defrag, 'DefragAnswers', self._answers('defrag'))
        # What hangs waits for this (at most WAIT seconds).
        self.release = threading.Event()

    def patch(self, obj, name, new):
        self.useFixture(fixtures.MockPatchObject(obj, name, new))

    def _publisher(self, conf, cloud=None, backend=None):
        made = publisher.Publisher(self.backend, cloud.key_prefix, 0)
        self.publishers[cloud.name] = made
        return made

    def _refresher(self, conf, publisher, options=None, cloud=None):
        made = FakeRefresher(conf, publisher, options, cloud)
        self.refreshers[cloud.name] = made
        return made

    def _answers(self, family):
        def make(conf, publisher, refresher, cloud, *args):
            made = FakeAnswers()
            self.answers[cloud.name, family] = made
            return made
        return make

    def start(self, svc):
        svc.start()
        self.addCleanup(svc.wait)
        self.addCleanup(svc.stop)
        # Released before the service stops: its threads are joined.
        self.addCleanup(self.release.set)
        return svc


class TestTimers(ServiceTestCase):

    def test_one_timer_per_manager(self):
        svc = self.start(service.WorkerService(self.conf, None))
        self.assertEqual(
            [manager.RefreshManager, answer_managers.ProjectManager,
             answer_managers.CheckManager, answer_managers.RequestManager,
             answer_managers.RequestManager],
            [type(each) for each in svc.managers])
        self.assertEqual(5, len(svc.tg.timers))
        # What-ifs, then defrag plans.
        self.assertEqual(
            [self.answers[svc.cloud.name, 'whatif'],
             self.answers[svc.cloud.name, 'defrag']],
            [each.answers for each in svc.managers[3:]])

    def test_no_check_manager_without_checks(self):
        self.flags(group='checks', enabled=False)
        svc = self.start(service.WorkerService(self.conf, None))
        self.assertEqual(2, len(svc.managers))

    def _held(self, family):
        """A refresh asked for while family's answer hangs."""
        svc = self.start(service.WorkerService(self.conf, None))
        name = svc.cloud.name
        refresher = self.refreshers[name]
        self.assertTrue(refresher.refreshes.reach(1))  # cold: at once
        hanging = self.answers[name, family]
        hanging.hang = self.release
        self.assertTrue(hanging.answers.reach(hanging.answers.count + 1))
        # An API process found no data and asks.
        self.publishers[name].refresh_requests.ask(None, 60)
        self.assertTrue(refresher.refreshes.reach(2))
        self.assertFalse(self.release.is_set())  # still hanging
        return svc

    def test_a_hanging_quota_api_holds_no_refresh(self):
        svc = self._held('projects')
        # Nor the set checks.
        other = self.answers[svc.cloud.name, 'checks']
        self.assertTrue(other.answers.reach(other.answers.count + 2))

    def test_a_slow_set_check_holds_no_refresh(self):
        svc = self._held('checks')
        for family in ('projects', 'whatif'):
            other = self.answers[svc.cloud.name, family]
            self.assertTrue(other.answers.reach(other.answers.count + 2))

    def test_a_slow_whatif_holds_no_set_check(self):
        svc = self._held('whatif')
        other = self.answers[svc.cloud.name, 'checks']
        self.assertTrue(other.answers.reach(other.answers.count + 2))

    def test_a_hanging_refresh_holds_no_answer(self):
        svc = self.start(service.WorkerService(self.conf, None))
        self.refreshers[svc.cloud.name].hang = self.release
        self.assertTrue(self.refreshers[svc.cloud.name].refreshes.reach(1))
        for family in ('projects', 'checks', 'whatif'):
            answers = self.answers[svc.cloud.name, family]
            self.assertTrue(answers.answers.reach(answers.answers.count + 2))

    def test_a_failing_task_runs_again(self):
        svc = self.start(service.WorkerService(self.conf, None))
        calls = Calls()

        def answer():
            calls()
            if calls.count <= 3:
                raise KeyError('x')
        with mock.patch.object(periodic.LOG, 'error') as error:
            self.answers[svc.cloud.name, 'projects'].answer = answer
            self.assertTrue(calls.reach(4))
        self.assertEqual(3, error.call_count)
        # The refresh manager lives on beside it.
        self.publishers[svc.cloud.name].refresh_requests.ask(None, 60)
        self.assertTrue(self.refreshers[svc.cloud.name].refreshes.reach(2))

    def test_what_no_task_catches_ends_no_timer(self):
        # stop_on_exception=False: oslo.service logs it and calls again.
        logged = self.useFixture(fixtures.FakeLogger(
            name='oslo.service'))
        svc = self.start(service.WorkerService(self.conf, None))
        project_manager = svc.managers[1]
        real = project_manager.run_periodic_tasks
        calls = Calls()

        def run_periodic_tasks(context):
            calls()
            if calls.count == 1:
                raise RuntimeError('not a task')
            return real(context)
        answers = self.answers[svc.cloud.name, 'projects']
        seen = answers.answers.count
        with mock.patch.object(project_manager, 'run_periodic_tasks',
                               run_periodic_tasks):
            self.assertTrue(answers.answers.reach(seen + 2))
        self.assertLessEqual(2, calls.count)
        self.assertIn('not a task', logged.output)


class TestFollowers(ServiceTestCase):

    def test_a_follower_only_checks_its_leadership(self):
        follower = mock.Mock(certain=True)
        checked = Calls()

        def leads():
            checked()
            return False
        follower.leads.side_effect = leads
        self.patch(leadership.Leadership, 'from_conf',
                   mock.Mock(return_value=follower))
        svc = self.start(service.WorkerService(self.conf, None))
        self.publishers[svc.cloud.name].refresh_requests.ask(None, 60)
        self.assertTrue(checked.reach(2))  # [coordination] check_interval
        self.assertEqual(0, self.refreshers[svc.cloud.name].refreshes.count)
        for family in ('projects', 'checks', 'whatif'):
            self.assertEqual(
                0, self.answers[svc.cloud.name, family].answers.count)
        self.assertIsNotNone(
            self.publishers[svc.cloud.name].refresh_requests.pending())


class TestClouds(ServiceTestCase):

    def test_one_cloud_holds_no_other(self):
        self.use_clouds('east', 'west')
        workers = service.for_clouds(self.conf, None)
        self.assertEqual(['east', 'west'],
                         [part.cloud.name for part in workers.parts])
        # East's refresh hangs from the start.
        hang = self.release
        real = self._refresher

        def refresher(*args, **kwargs):
            made = real(*args, **kwargs)
            if made.cloud.name == 'east':
                made.hang = hang
            return made
        self.patch(refresh, 'Refresher', refresher)
        self.start(workers)
        self.assertTrue(self.refreshers['east'].refreshes.reach(1))
        self.assertTrue(self.refreshers['west'].refreshes.reach(1))
        self.publishers['west'].refresh_requests.ask(None, 60)
        self.assertTrue(self.refreshers['west'].refreshes.reach(2))
        self.assertEqual(1, self.refreshers['east'].refreshes.count)
