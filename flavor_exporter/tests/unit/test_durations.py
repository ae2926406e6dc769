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
"""The functional classes' times reach a new stestr repository (real stestr).

What stestr's scheduler makes of them is stestr's; here: each class's
seconds shared among its tests, the repository giving them back, and no
run left in its history.
"""

import os

import fixtures
from stestr.repository import file as stestr_file

from flavor_exporter.tests import base
from flavor_exporter.tests.functional import durations

P = durations.PACKAGE


class TestDurations(base.BaseTestCase):

    def test_a_class_seconds_are_shared_among_its_tests(self):
        ids = [P + 'test_a.TestBig.test_one', P + 'test_a.TestBig.test_two',
               P + 'test_b.TestSmall.test_it', P + 'test_c.TestNew.test_x',
               'elsewhere.test_a.TestBig.test_one']
        self.assertEqual(
            {P + 'test_a.TestBig.test_one': 50.0,
             P + 'test_a.TestBig.test_two': 50.0,
             P + 'test_b.TestSmall.test_it': 3.0},
            durations.shares(ids, {'test_a.TestBig': 100,
                                   'test_b.TestSmall': 3}))

    def test_the_repository_knows_the_times_and_no_run(self):
        repo = self.useFixture(fixtures.TempDir()).path
        times = {P + 'test_a.TestBig.test_one': 50.0,
                 P + 'test_b.TestSmall.test_it': 3.5}
        durations.seed(repo, times)
        opened = stestr_file.RepositoryFactory().open(repo)
        known = opened.get_test_times(list(times) + ['unknown.test'])
        self.assertEqual({'known': times, 'unknown': {'unknown.test'}},
                         {'known': {k: round(v, 3) for k, v
                                    in known['known'].items()},
                          'unknown': known['unknown']})
        self.assertFalse([name for name in os.listdir(
            os.path.join(repo, '.stestr')) if name.isdigit()])

    def test_every_release_of_the_test_cloud_has_figures(self):
        from testcloud import cloud_venv
        self.assertEqual(sorted(cloud_venv.supported()),
                         sorted(durations.SECONDS))
