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
