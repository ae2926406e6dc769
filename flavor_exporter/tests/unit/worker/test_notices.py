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

import logging

from flavor_exporter.tests import base
from flavor_exporter.worker import notices


class _Logger:
    def __init__(self):
        self.said = []

    def log(self, level, fmt, *args):
        self.said.append((logging.getLevelName(level), fmt % args))


class TestNotices(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.logger = _Logger()
        self.notices = notices.Notices(self.logger, 'Cloud west: ')

    def test_a_line_warns_once_then_debug_then_ends(self):
        self.notices.lines('problems', ['a', 'b'], ended='clean')
        self.notices.lines('problems', ['b', 'c'], ended='clean')
        self.notices.lines('problems', [], ended='clean')
        self.notices.lines('problems', [], ended='clean')
        self.assertEqual([('WARNING', 'Cloud west: a'),
                          ('WARNING', 'Cloud west: b'),
                          ('DEBUG', 'Cloud west: b'),
                          ('WARNING', 'Cloud west: c'),
                          ('INFO', 'Cloud west: clean')], self.logger.said)

    def test_a_condition_warns_once_whatever_its_wording(self):
        self.notices.started('candidates', 'none (req-1)')
        self.notices.started('candidates', 'none (req-2)')
        self.notices.ended('candidates', 'back')
        self.notices.ended('candidates', 'back')
        self.notices.started('candidates', 'none (req-3)')
        self.assertEqual([('WARNING', 'Cloud west: none (req-1)'),
                          ('DEBUG', 'Cloud west: none (req-2)'),
                          ('INFO', 'Cloud west: back'),
                          ('WARNING', 'Cloud west: none (req-3)')],
                         self.logger.said)

    def test_topics_are_apart(self):
        self.notices.started('candidates', 'x')
        self.notices.lines('problems', ['x'])
        self.assertEqual(['WARNING', 'WARNING'],
                         [level for level, _ in self.logger.said])


class _Timers:
    """threading.Timer's stand-in: the test says when time is up."""

    def __init__(self):
        self.pending = []

    def __call__(self, interval, function):
        timer = _Timer(interval, function)
        self.pending.append(timer)
        return timer

    def elapse(self):
        due, self.pending = self.pending, []
        for timer in due:
            timer.function()


class _Timer:
    def __init__(self, interval, function):
        self.interval, self.function = interval, function
        self.daemon = False

    def start(self):
        pass


class _Warnings(_Logger):
    def warning(self, fmt, *args):
        self.log(logging.WARNING, fmt, *args)


class TestTally(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.logger = _Warnings()
        self.timers = _Timers()
        self.tally = notices.Tally(self.logger, 'malformed notifications',
                                   'Cloud west: ', timer=self.timers)

    def test_a_flood_is_one_line_per_interval(self):
        for number in range(1000):
            self.tally.add('message %d' % number)
        # The first at once, the others counted.
        self.assertEqual([('WARNING', 'Cloud west: Malformed notifications: '
                           'message 0 (more are counted, one line per '
                           '60 s)')], self.logger.said)
        self.timers.elapse()
        self.assertEqual(('WARNING', 'Cloud west: 999 malformed '
                          'notifications in the last 60 s, first: message 1'),
                         self.logger.said[-1])
        self.tally.add('message 1000')
        self.timers.elapse()
        self.assertEqual(3, len(self.logger.said))
        self.assertIn('1 malformed notifications', self.logger.said[-1][1])
        self.assertEqual(1001, self.tally.total)

    def test_a_quiet_interval_ends_the_spell(self):
        self.tally.add('a')
        self.timers.elapse()  # none came after it: nothing to say
        self.assertEqual(1, len(self.logger.said))
        self.assertEqual([], self.timers.pending)
        self.tally.add('b')  # a new spell: said at once
        self.assertEqual(2, len(self.logger.said))
        self.assertIn('Malformed notifications: b', self.logger.said[-1][1])
