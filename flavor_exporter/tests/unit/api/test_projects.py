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
"""/v3/projects/{project_id}/flavors/: served, waited for, guarded."""

import threading
import time

from flavor_exporter.publication import contract as pub
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.tests.unit.api import base
from flavor_exporter.tests.unit.api import test_policy

MEMBER = {'roles': 'member,reader', 'project': 'p1'}
OTHER = {'roles': 'member,reader', 'project': 'p2'}


class TestServed(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.publish()

    def test_list(self):
        document = self.app.get('/v3/projects/p1/flavors/').json
        self.assertEqual('p1', document[pub.PROJECT_ID])
        self.assertFalse(document[pub.STALE])
        self.assertIsNotNone(document[pub.QUOTA_TIMESTAMP])
        large = {f[pub.NAME]: f for f in document[pub.FLAVORS]}['m1.large']
        # 20 cores, 2 used: 2 more of 8 VCPUs; 7 fit.
        self.assertEqual((7, 2, 2), (large[pub.AVAILABLE],
                                     large[pub.QUOTA]['headroom'],
                                     large[pub.STARTABLE]))
        self.assertEqual('cores', large[pub.QUOTA]['limited_by'])
        self.assertEqual({'total': 4, 'available': 3, 'startable': 2},
                         large[pub.ZONES]['az1'])

    def test_same_under_the_cloud(self):
        self.assertEqual(
            self.app.get('/v3/projects/p1/flavors/').body,
            self.app.get('/v3/clouds/default/projects/p1/flavors/').body)

    def test_one_by_id_or_name(self):
        one = self.app.get('/v3/projects/p1/flavors/gpu.a100').json
        self.assertEqual('g1', one[pub.FLAVOR][pub.ID])
        self.assertEqual(one, self.app.get(
            '/v3/projects/p1/flavors/g1').json)
        self.assertJsonError(self.app.get('/v3/projects/p1/flavors/nope',
                                          status=404), 404, 'nope')

    def test_not_a_project_id(self):
        self.assertJsonError(self.app.get('/v3/projects/a.b/flavors/',
                                          status=400), 400)

    def test_unknown_project_asks_the_worker(self):
        response = self.app.get('/v3/projects/p9/flavors/', status=503)
        self.assertEqual('2', response.headers['Retry-After'])
        self.assertIn('p9', self.store.project_requests.pending())

    def test_answer_within_the_wait(self):
        self.flags(group='projects', wait=5)
        self._app = None

        def worker():
            deadline = time.time() + 5
            while time.time() < deadline:
                if 'p9' in self.store.project_requests.pending():
                    sample.publish_project(self.store, 'p9')
                    return
                time.sleep(0.05)
        thread = threading.Thread(target=worker)
        thread.start()
        self.addCleanup(thread.join)
        started = time.time()
        document = self.app.get('/v3/projects/p9/flavors/').json
        self.assertEqual('p9', document[pub.PROJECT_ID])
        self.assertLess(time.time() - started, 3)

    def test_old_quota_reading_served_stale(self):
        sample.publish_project(self.store, 'p1',
                               read_at=time.time() - 3600)
        document = self.app.get('/v3/projects/p1/flavors/').json
        self.assertTrue(document[pub.STALE])
        self.assertIn('p1', self.store.project_requests.pending())


class TestPolicy(test_policy.PolicyTestCase):

    def test_own_project_only(self):
        self.get('/v3/projects/p1/flavors/', MEMBER)
        self.get('/v3/projects/p1/flavors/g1', MEMBER)
        self.get('/v3/projects/p1/flavors/', OTHER, status=403)
        self.get('/v3/projects/p1/flavors/g1', OTHER, status=403)

    def test_admin_and_system_reader_any(self):
        self.get('/v3/projects/p1/flavors/', test_policy.ADMIN)
        self.get('/v3/projects/p1/flavors/', test_policy.SYSTEM_READER)
