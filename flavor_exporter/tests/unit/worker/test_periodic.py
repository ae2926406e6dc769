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

"""The managers' periodic tasks as oslo.service runs them.

run_periodic_tasks reads oslo.service's own clock (periodic_task.now),
replaced here by one the tests move.
"""

from unittest import mock

import fixtures
from oslo_service import periodic_task

from flavor_exporter.common import clouds
from flavor_exporter.publication import cache
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.worker import answer_managers
from flavor_exporter.worker import manager
from flavor_exporter.worker import periodic


class Tasks(periodic.Manager):
    """Two tasks: one that fails when told to, one that counts."""

    SPACINGS = {
        'first': lambda conf: conf.projects.poll_interval,
        'second': lambda conf: conf.checks.poll_interval,
    }

    def __init__(self, conf):
        super().__init__(conf, '[cloud x] ')
        self.runs = {'first': 0, 'second': 0}
        self.fail = None

    @periodic_task.periodic_task(spacing=periodic.SET_FROM_CONF,
                                 run_immediately=True)
    @periodic.one_line('The first task')
    def first(self, context):
        self.runs['first'] += 1
        if self.fail is not None:
            raise self.fail

    @periodic_task.periodic_task(spacing=periodic.SET_FROM_CONF,
                                 run_immediately=True)
    @periodic.one_line('The second task')
    def second(self, context):
        self.runs['second'] += 1


class Unpaced(periodic.Manager):
    SPACINGS = {}

    @periodic_task.periodic_task(spacing=periodic.SET_FROM_CONF)
    def forgotten(self, context):
        pass


class ClockTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.now = 100.0
        self.useFixture(fixtures.MockPatchObject(
            periodic_task, 'now', lambda: self.now))

    def run_due(self, tasks, seconds=0):
        """run_periodic_tasks, seconds later; the idle it answers."""
        self.now += seconds
        return tasks.run_periodic_tasks(None)


class TestSpacings(ClockTestCase):
    """The decorator's spacing is read at import; the options apply."""

    def test_spacings_are_the_options(self):
        self.flags(group='projects', poll_interval=2.5)
        self.flags(group='checks', poll_interval=0.2)
        tasks = Tasks(self.conf)
        self.assertEqual(2.5, tasks.spacing('first'))
        self.assertEqual(0.2, tasks.spacing('second'))

    def test_each_instance_its_own(self):
        self.flags(group='projects', poll_interval=2.5)
        one = Tasks(self.conf)
        self.flags(group='projects', poll_interval=7)
        two = Tasks(self.conf)
        self.assertEqual(2.5, one.spacing('first'))
        self.assertEqual(7, two.spacing('first'))
        # The class keeps the decorator's: no instance wrote there.
        self.assertEqual(periodic.SET_FROM_CONF,
                         Tasks._periodic_spacing['first'])

    def test_a_task_without_its_option_is_refused(self):
        self.assertRaises(KeyError, Unpaced, self.conf)

    def test_run_at_their_spacings(self):
        self.flags(group='projects', poll_interval=3)
        self.flags(group='checks', poll_interval=1)
        tasks = Tasks(self.conf)
        self.assertEqual(1, self.run_due(tasks))  # both run at once
        self.assertEqual({'first': 1, 'second': 1}, tasks.runs)
        self.run_due(tasks, 1)
        self.run_due(tasks, 1)
        self.assertEqual({'first': 1, 'second': 3}, tasks.runs)
        self.run_due(tasks, 1)
        self.assertEqual({'first': 2, 'second': 4}, tasks.runs)

    def test_the_refresh_manager_paced_by_its_options(self):
        self.flags(group='coordination', check_interval=7)
        self.flags(group='projects', poll_interval=2)
        self.flags(group='worker', refresh_interval=100)
        leadership = mock.Mock(certain=True)
        leadership.leads.return_value = True
        refresher = mock.Mock()
        refresher.ensure_published.return_value = False
        tasks = manager.RefreshManager(
            self.conf, clouds.default(self.conf),
            publisher.Publisher(cache.MemoryBackend(), 'fe', 0),
            refresher, mock.Mock(), leadership, clock=lambda: self.now)
        self.assertEqual(2, self.run_due(tasks))
        refresher.refresh.assert_called_once()  # a cold cache: at once
        for _second in range(14):
            self.run_due(tasks, 1)
        # Leadership at 0, 7 and 14; a look at 0, 2, ... 14.
        self.assertEqual(3, leadership.leads.call_count)
        self.assertEqual(7, refresher.ensure_published.call_count)
        self.run_due(tasks, 86)  # 100 s since the first refresh
        self.assertEqual(2, refresher.refresh.call_count)

    def test_answer_managers_paced_by_their_options(self):
        self.flags(group='projects', poll_interval=4)
        self.flags(group='checks', poll_interval=0.3)
        cloud = clouds.default(self.conf)
        self.assertEqual(4, answer_managers.ProjectManager(
            self.conf, cloud, None, None).spacing('answer_projects'))
        self.assertEqual(0.3, answer_managers.CheckManager(
            self.conf, cloud, None, None).spacing('answer_checks'))


class TestFailures(ClockTestCase):
    """A task that raises: one line, the others run, it runs again."""

    def setUp(self):
        super().setUp()
        self.flags(group='projects', poll_interval=1)
        self.flags(group='checks', poll_interval=1)
        self.tasks = Tasks(self.conf)
        self.tasks.fail = KeyError('member')

    def test_the_others_and_the_next_run(self):
        with mock.patch.object(periodic.LOG, 'error') as error:
            self.run_due(self.tasks)
            self.run_due(self.tasks, 1)
        self.assertEqual({'first': 2, 'second': 2}, self.tasks.runs)
        self.assertEqual(2, error.call_count)
        self.tasks.fail = None
        self.run_due(self.tasks, 1)
        self.assertEqual({'first': 3, 'second': 3}, self.tasks.runs)

    def test_one_error_line_the_traceback_at_debug(self):
        with mock.patch.object(periodic.LOG, 'error') as error, \
                mock.patch.object(periodic.LOG, 'debug') as debug, \
                mock.patch.object(periodic_task.LOG, 'exception') as oslo:
            self.run_due(self.tasks)
        error.assert_called_once()
        self.assertEqual(
            ('%s%s failed, trying again in %gs: %s', '[cloud x] ',
             'The first task', 1), error.call_args[0][:4])
        self.assertIn("KeyError: 'member'", error.call_args[0][4])
        self.assertTrue(debug.call_args[1]['exc_info'])
        oslo.assert_not_called()  # no traceback at ERROR

    def test_the_line_is_logged(self):
        logs = self.useFixture(fixtures.FakeLogger(
            name='flavor_exporter.worker.periodic', level='ERROR'))
        self.run_due(self.tasks)
        self.assertEqual(1, len(logs.output.splitlines()))
        self.assertIn('[cloud x] The first task failed, trying again in '
                      '1s: ', logs.output)
