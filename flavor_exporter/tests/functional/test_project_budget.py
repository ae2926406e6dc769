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

"""A portal's first day: its real projects never pay for made-up ids.

The predecessor's cloud behind a real Keystone 30; the worker logs in
as Keystone's admin (clouds.yaml), flavor-exporter-api serves without
authentication, so that every question comes from one client (its
address). A few hundred projects created in Keystone, asked about at
once by that client, are all answered, none with a 429; a burst of
made-up ids from the same client stops at [projects] new_per_client.
"""

import concurrent.futures
import time
import uuid

import requests

from flavor_exporter.tests.functional import test_commands
from flavor_exporter.tests.functional import test_keystone_auth
from testcloud import keystone_catalog
from testcloud import loopback

PROJECTS = 200
SHARE = 30
LINES = ['[projects]', 'new_per_client = %d' % SHARE,
         # Many questions wait at once here: answered by retrying.
         'max_waiting = 1', 'wait = 0.5']


def create_projects(keystone, count, prefix):
    """count new projects in Keystone's default domain; their ids."""
    headers = {'X-Auth-Token': keystone_catalog.admin_token(keystone)}

    def create(i):
        return requests.post(
            keystone['url'] + '/v3/projects', headers=headers, timeout=60,
            json={'project': {'name': '%s-%d' % (prefix, i),
                              'domain_id': 'default'}}).json()[
                                  'project']['id']
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        return list(pool.map(create, range(count)))


class Asker:
    """One client asking about projects, as a portal does.

    Each until answered, honouring Retry-After; what it was answered.
    """

    def __init__(self, port, deadline):
        self.url = 'http://127.0.0.1:%d/v3/projects/%%s/flavors/' % port
        self.deadline = deadline

    def until_answered(self, project_id):
        statuses = []
        with requests.Session() as session:
            while time.monotonic() < self.deadline:
                response = session.get(self.url % project_id, timeout=30)
                statuses.append(response.status_code)
                # 502: a quota reading that timed out on a busy test
                # machine; the seed's portal retries it too.
                if response.status_code not in (502, 503):
                    return statuses
                time.sleep(int(response.headers.get('Retry-After', 1)))
        return statuses

    def once(self, project_id):
        return requests.get(self.url % project_id, timeout=30).status_code

    def all(self, function, project_ids, threads=16):
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            return list(pool.map(function, project_ids))


class TestPortalsFirstDay(test_commands.CommandsTestCase):

    def make_cloud(self):
        return self.useFixture(test_keystone_auth.shared_cloud()).cloud

    def test_real_projects_answered_made_up_ones_bounded(self):
        keystone = self.cloud.keystone
        started = time.monotonic()
        real = create_projects(keystone, PROJECTS,
                               'portal-%s' % uuid.uuid4().hex[:6])
        print('%d projects created in %.1f s' % (
            PROJECTS, time.monotonic() - started))
        config = self.write_config(lines=LINES)
        self.start('flavor-exporter-worker', config)
        self.start('flavor-exporter-api', config)
        loopback.wait_for_port(self.port, timeout=60)
        self.wait_for('/v3/flavors/', timeout=120)
        status = self.wait_until(
            lambda: (self.wait_for('/v3/status').get('projects') or {}).get(
                'known_projects', {}).get('listed'),
            'the worker lists Keystone\'s projects')
        self.assertGreaterEqual(status, PROJECTS)

        # All at once, from one client.
        asker = Asker(self.port, time.monotonic() + 900)
        started = time.monotonic()
        answers = asker.all(asker.until_answered, real)
        took = time.monotonic() - started
        finals = [statuses[-1] for statuses in answers]
        seen = {code for statuses in answers for code in statuses}
        print('%d real projects asked at once: all answered in %.1f s, '
              'answers seen %s' % (PROJECTS, took, sorted(seen)))
        self.assertEqual([200] * PROJECTS, finals)
        self.assertNotIn(429, seen)
        projects = self.wait_for('/v3/status')['projects']
        self.assertEqual('listed', projects['known_projects']['mode'])

        # Made-up ids from the same client: no more than its share
        # reaches the worker; past it, once they turn out unknown, 429.
        made_up = [uuid.uuid4().hex for _ in range(3 * SHARE)]
        burst = asker.all(asker.once, made_up)
        print('a burst of %d made-up ids: %s' % (
            len(made_up), {code: burst.count(code) for code in set(burst)}))
        self.assertLessEqual(set(burst), {503, 429})
        before = projects['unknown']
        looked_up = self.wait_until(
            lambda: self._unknown() - before >= SHARE and self._unknown(),
            'the worker finds the made-up ids unknown', timeout=120)
        time.sleep(2)  # nothing more comes
        self.assertEqual(before + SHARE, self._unknown())
        self.assertEqual(before + SHARE, looked_up)
        answered = asker.all(asker.once, made_up)
        self.assertEqual(SHARE, answered.count(404), answered)
        # More new ids: refused (429), or, once the client's minute is
        # over (the look-ups above may take that long on a loaded
        # machine), asked within a new share (503 while looked up).
        self.assertLessEqual(set(asker.all(
            asker.once, [uuid.uuid4().hex for _ in range(10)])), {429, 503})
        # A real project asked about before is still served.
        self.assertEqual(200, asker.once(real[0]))

    def _unknown(self):
        return self.wait_for('/v3/status')['projects']['unknown']
