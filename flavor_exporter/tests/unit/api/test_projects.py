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

    def test_never_answered_asks_the_worker(self):
        response = self.app.get('/v3/projects/p9/flavors/', status=503)
        self.assertEqual('2', response.headers['Retry-After'])
        self.assertIn('being computed', response.json['error']['message'])
        self.assertEqual(['p9'], self.store.project_requests.since(0)[1])
        # Asked once, however often it is asked about meanwhile.
        for _ in range(3):
            self.app.get('/v3/projects/p9/flavors/', status=503)
        self.assertEqual(['p9'], self.store.project_requests.since(0)[1])

    def test_answer_within_the_wait(self):
        self.flags(group='projects', wait=5)
        self._app = None

        def worker():
            deadline = time.time() + 5
            while time.time() < deadline:
                if self.store.project_requests.since(0)[1]:
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

    def test_only_so_many_wait(self):
        # Four wait; the fifth is answered at once.
        self.flags(group='projects', wait=2, max_waiting=4)
        self.flags(group='api', threads=8)
        self._app = None
        app = self.app
        answers = []

        def ask(project_id):
            started = time.monotonic()
            response = app.get('/v3/projects/%s/flavors/' % project_id,
                               status=503)
            answers.append(time.monotonic() - started)
            return response
        waiting = [threading.Thread(target=ask, args=('w%d' % i,))
                   for i in range(4)]
        for thread in waiting:
            thread.start()
        time.sleep(0.5)
        started = time.monotonic()
        ask('w5')
        self.assertLess(time.monotonic() - started, 0.5)
        # Meanwhile the other routes answer.
        self.assertEqual(200, app.get('/v3/flavors/').status_int)
        for thread in waiting:
            thread.join()
        self.assertEqual(4, len([t for t in answers if t >= 1.9]))

    def test_a_thread_is_never_left_waiting(self):
        # [api] threads = 2: one request waits, the next is answered at
        # once, and the other thread serves the other routes.
        self.flags(group='projects', wait=2, max_waiting=4)
        self.flags(group='api', threads=2)
        self._app = None
        app = self.app
        waiting = threading.Thread(target=app.get, args=(
            '/v3/projects/w1/flavors/',), kwargs={'status': 503})
        waiting.start()
        time.sleep(0.5)
        started = time.monotonic()
        app.get('/v3/projects/w2/flavors/', status=503)
        self.assertLess(time.monotonic() - started, 0.5)
        waiting.join()

    def test_old_quota_reading_served_stale_at_once(self):
        sample.publish_project(self.store, 'p1',
                               read_at=time.time() - 3600)
        self.flags(group='projects', wait=5)
        self._app = None
        started = time.monotonic()
        response = self.app.get('/v3/projects/p1/flavors/')
        self.assertLess(time.monotonic() - started, 1)
        self.assertTrue(response.json[pub.STALE])
        self.assertEqual('true', response.headers['X-Flavor-Exporter-Stale'])
        self.assertEqual(['p1'], self.store.project_requests.since(0)[1])

    def problem(self, project_id, kind, reason, in_seconds):
        self.store.publish_project(project_id, {pub.PROBLEM: {
            pub.PROBLEM_KIND: kind, pub.REASON: reason,
            pub.RETRY_AT: time.time() + in_seconds}}, 900)

    def test_unknown_project_is_a_404_at_once(self):
        self.problem('p9', pub.UNKNOWN_PROJECT,
                     'Nova and Keystone know no project p9', 300)
        response = self.app.get('/v3/projects/p9/flavors/', status=404)
        self.assertJsonError(response, 404, 'No project p9: Nova and '
                                            'Keystone know no project p9')
        self.assertEqual([], self.store.project_requests.since(0)[1])
        # Once the worker may look again, it is asked again.
        self.problem('p9', pub.UNKNOWN_PROJECT, 'gone', -1)
        self.app.get('/v3/projects/p9/flavors/', status=503)
        self.assertEqual(['p9'], self.store.project_requests.since(0)[1])

    def test_unreadable_quota_is_a_502_with_the_reason(self):
        self.problem('p9', pub.QUOTA_UNREADABLE,
                     'compute GET /os-quota-sets/p9/detail answered 500',
                     25)
        response = self.app.get('/v3/projects/p9/flavors/', status=502)
        self.assertJsonError(response, 502, 'answered 500')
        self.assertNotIn('being computed', response.json['error']['message'])
        self.assertIn(response.headers['Retry-After'], ('25', '26'))

    def test_unreadable_again_keeps_serving_the_old_answer(self):
        sample.publish_project(self.store, 'p1',
                               read_at=time.time() - 3600)
        self.problem('p1', pub.QUOTA_UNREADABLE, 'timed out', 25)
        document = self.app.get('/v3/projects/p1/flavors/').json
        self.assertTrue(document[pub.STALE])
        # Not asked while the worker waits to try again.
        self.assertEqual([], self.store.project_requests.since(0)[1])

    def test_a_client_asks_for_so_many_new_projects(self):
        self.flags(group='projects', new_per_client=3)
        self._app = None
        for i in range(3):
            self.app.get('/v3/projects/n%d/flavors/' % i, status=503)
        response = self.app.get('/v3/projects/n9/flavors/', status=429)
        self.assertJsonError(response, 429, 'more than 3 new projects')
        self.assertEqual('60', response.headers['Retry-After'])
        # Another client is not held back; n9 was not asked for.
        self.app.get('/v3/projects/n9/flavors/', status=503,
                     extra_environ={'REMOTE_ADDR': '192.0.2.7'})
        self.assertEqual(['n0', 'n1', 'n2', 'n9'],
                         self.store.project_requests.since(0)[1])
        # A known project is served whoever asks.
        self.app.get('/v3/projects/p1/flavors/')

    def test_projects_keystone_lists_cost_no_share(self):
        self.flags(group='projects', new_per_client=3)
        self._app = None
        listed = ['k%02d' % i for i in range(20)]
        self.store.project_requests.note_known(listed, 900)
        for project_id in listed:
            self.app.get('/v3/projects/%s/flavors/' % project_id,
                         status=503)
        self.assertEqual(listed, self.store.project_requests.since(0)[1])
        # The share is whole for ids Keystone did not list.
        for i in range(3):
            self.app.get('/v3/projects/n%d/flavors/' % i, status=503)
        self.app.get('/v3/projects/n9/flavors/', status=429)

    def test_a_share_spent_on_projects_being_looked_up(self):
        # A leader settles charges: past the share, ask again soon.
        self.flags(group='projects', new_per_client=3)
        self._app = None
        self.store.project_requests.note_settling(30)
        for i in range(3):
            self.app.get('/v3/projects/n%d/flavors/' % i, status=503)
        response = self.app.get('/v3/projects/n9/flavors/', status=503)
        self.assertJsonError(response, 503, 'being looked up')
        self.assertEqual('2', response.headers['Retry-After'])
        self.assertNotIn('n9', self.store.project_requests.since(0)[1])
        self.store.project_requests.settle('n0', True)
        self.app.get('/v3/projects/n9/flavors/', status=503)
        self.assertIn('n9', self.store.project_requests.since(0)[1])

    def test_a_trailing_newline_is_not_a_project_id(self):
        self.assertJsonError(self.app.get('/v3/projects/p1%0A/flavors/',
                                          status=400), 400)

    def test_joined_with_every_refresh(self):
        # The quota part stays; the numbers are those of the newest data.
        before = self.app.get('/v3/projects/p1/flavors/').json
        sample.publish(self.store, sample.flavors(),
                       host_list=sample.hosts()[:1])
        after = self.app.get('/v3/projects/p1/flavors/').json
        large = {f[pub.NAME]: f for f in after[pub.FLAVORS]}['m1.large']
        self.assertEqual(3, large[pub.AVAILABLE])
        self.assertNotEqual(before, after)
        self.assertEqual(before[pub.QUOTA_TIMESTAMP],
                         after[pub.QUOTA_TIMESTAMP])


class TestPolicy(test_policy.PolicyTestCase):

    def test_own_project_only(self):
        self.get('/v3/projects/p1/flavors/', MEMBER)
        self.get('/v3/projects/p1/flavors/g1', MEMBER)
        self.get('/v3/projects/p1/flavors/', OTHER, status=403)
        self.get('/v3/projects/p1/flavors/g1', OTHER, status=403)

    def test_admin_and_system_reader_any(self):
        self.get('/v3/projects/p1/flavors/', test_policy.ADMIN)
        self.get('/v3/projects/p1/flavors/', test_policy.SYSTEM_READER)
