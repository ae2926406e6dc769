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
"""Several machines' worth of processes on one: three workers, two API
processes, three memcached servers, two real test clouds.

Each cloud has its own lock, so its own leader. Kill a leader, pause one
past its lease, kill a memcached server: both clouds' numbers stay right
and fresh, neither cloud's sequence ever goes backwards.
"""

import concurrent.futures
import json
import os
import re
import signal
import threading
import time
import urllib.error
import urllib.request

import testtools.content

from flavor_exporter.publication import contract as pub
from flavor_exporter.tests.functional import test_api_uwsgi
from flavor_exporter.tests.functional import test_several_clouds
from testcloud import loopback

CLOUDS = test_several_clouds.CLOUDS
LEASE = 3            # seconds: the tooz lock's lease (?timeout=)
INTERVAL = 10        # [worker] refresh_interval (its minimum)
LEADS = 'Cloud %s: This worker now leads'
# A new leader's first Placement refresh of a cloud: no provider read.
SHARED = (r'Cloud %s: Placement refresh: \d+ API calls; (\d+) resource '
          r'providers, 0 read, \1 unchanged since the previous refresh '
          r'\(\1 of them from the shared cache\)')
NOTICED = ('Cloud %s: This worker lost the leadership',
           'Cloud %s: Refresh dropped')


class TestSeveralWorkers(test_several_clouds.SeveralCloudsTestCase):

    def setUp(self):
        super().setUp()
        self.servers = [self.memcached] + [
            self.useFixture(loopback.MemcachedFixture()) for _ in range(2)]
        addresses = [s.servers[0] for s in self.servers]
        self.flags(group='document_cache', memcache_servers=addresses)
        self.open_stores()
        self.config = self.write_config(lines=[
            '[document_cache]',
            'memcache_servers = %s' % ','.join(addresses),
            '[worker]',
            'refresh_interval = %d' % INTERVAL,
            '[coordination]',
            'backend_url = memcached://%s?timeout=%d' % (addresses[0],
                                                         LEASE),
            'check_interval = 1',
            '[api]',
            'compute_on_miss = true',
            'generation_check_interval = 1'])
        self.addOnException(self.attach_logs)
        self.sequences = {name: [] for name in CLOUDS}
        self.leads_seen = {}
        self.watching = True
        watcher = threading.Thread(target=self.watch_sequences)
        watcher.start()
        self.addCleanup(watcher.join)
        self.addCleanup(setattr, self, 'watching', False)

    def attach_logs(self, exc_info):
        for name in sorted(os.listdir(self.workdir)):
            if name.endswith('.log'):
                self.addDetail(name, testtools.content.text_content(
                    self.log_of(name[:-4])[-20000:]))
        self.addDetail('sequences', testtools.content.text_content(
            repr(self.sequences)))

    def watch_sequences(self):
        while self.watching:
            for name in CLOUDS:
                pointer = self.pointer(name)
                if pointer is not None:
                    self.sequences[name].append(pointer[pub.SEQUENCE])
            time.sleep(0.2)

    def fetch_waiting(self, cloud):
        """GET a cloud's flavors, waiting as long as a cold computation."""
        url = 'http://127.0.0.1:%d/v3/clouds/%s/flavors/' % (self.port,
                                                             cloud)
        try:
            with urllib.request.urlopen(url, timeout=300) as response:
                return response.status, None, response.read()
        except urllib.error.HTTPError as error:
            return error.code, None, error.read()

    def flavors(self, answer):
        self.assertEqual(200, answer[0], answer)
        return test_several_clouds.numbers(json.loads(answer[2]))

    def leader(self, cloud, workers, but=()):
        """The worker that logged it leads cloud since the last look."""
        for name in workers:
            count = self.log_of(name).count(LEADS % cloud)
            if name not in but and \
                    count > self.leads_seen.get((name, cloud), 0):
                self.leads_seen[name, cloud] = count
                return name
        return None

    def take_over(self, leaders, workers, gone, what):
        """Wait until a worker not gone leads each cloud a gone one led."""
        for cloud in CLOUDS:
            if leaders[cloud] in gone:
                leaders[cloud] = self.wait_until(
                    lambda: self.leader(cloud, workers, but=gone),
                    '%s: cloud %s' % (what, cloud))

    def published_after(self, sequences):
        return all(max(self.sequences[name][-1:] or [0]) > sequence
                   for name, sequence in sequences.items())

    def wait_for_both(self, what):
        """Wait until each cloud publishes a newer generation."""
        sequences = {name: max(self.sequences[name][-1:] or [0])
                     for name in CLOUDS}
        self.wait_until(lambda: self.published_after(sequences), what)

    def test_leader_killed_paused_and_a_memcached_lost(self):
        # 200 requests over two API processes find no data: they ask, and
        # one refresh per cloud, by its leading worker, answers them all.
        api = self.start('flavor-exporter-api', self.config)
        loopback.wait_for_port(self.port, timeout=60)
        names = ['flavor-exporter-worker-%d' % i for i in range(3)]
        workers = {}
        with concurrent.futures.ThreadPoolExecutor(50) as pool:
            waiting = pool.map(self.fetch_waiting, CLOUDS * 100)
            for name in names:
                workers[name] = self.start_worker(name)
            answers = list(waiting)

        def published():
            return {cloud: sum(self.log_of(name).count(
                'Cloud %s: Published capacity of' % cloud) for name in names)
                for cloud in CLOUDS}
        # A worker logs its refresh just after publishing it: on a loaded
        # machine the line can trail the answers the refresh made. Well
        # before the next refresh (INTERVAL later), the lines are counted.
        self.wait_until(lambda: all(published().values()),
                        'a refresh not logged', timeout=INTERVAL / 2)
        self.assertEqual([200] * 200, [a[0] for a in answers])
        expected = {}
        for name, answer in zip(CLOUDS * 100, answers):
            self.assertEqual(expected.setdefault(name, self.flavors(answer)),
                             self.flavors(answer))
        self.assertNotEqual(*expected.values())
        # Read as the answers came: the next refresh is INTERVAL later.
        self.assertEqual(dict.fromkeys(CLOUDS, 1), published())
        self.assertNotIn('Published capacity', self.log_of(
            'flavor-exporter-api'))
        self.assertIsNone(api.poll())

        # Three workers: one leads each cloud and refreshes it.
        # No leader yet (None) counts as a leader gone.
        leaders = dict.fromkeys(CLOUDS)
        self.take_over(leaders, workers, gone=[None], what='nobody leads')
        self.wait_for_both('a leader did not refresh')

        # SIGKILL east's leader: another takes over each cloud it led.
        first = leaders[test_several_clouds.EAST]
        led_before = dict(leaders)
        workers[first].send_signal(signal.SIGKILL)
        workers[first].wait()
        self.take_over(leaders, workers, gone=[first],
                       what='nobody took over')
        self.wait_for_both('nothing published after the leader died')
        # Its successor read no resource provider again: it took what the
        # dead leader knew of them from the shared memcached.
        for cloud in [c for c in CLOUDS if led_before[c] == first]:
            refreshes = [line for line in self.log_of(
                leaders[cloud]).splitlines()
                if 'Cloud %s: Placement refresh:' % cloud in line]
            self.assertTrue(refreshes, 'cloud %s' % cloud)
            found = re.search(SHARED % cloud, refreshes[0])
            self.assertIsNotNone(found, refreshes[0])
            self.assertGreater(int(found.group(1)), 0)

        # SIGSTOP east's new leader past its lease: the third takes over;
        # resumed, the paused one notices it lost each lease and
        # publishes nothing old.
        second = leaders[test_several_clouds.EAST]
        led = [cloud for cloud in CLOUDS if leaders[cloud] == second]
        os.killpg(workers[second].pid, signal.SIGSTOP)
        self.take_over(leaders, workers, gone=[first, second],
                       what='nobody took over from the paused leader')
        os.killpg(workers[second].pid, signal.SIGCONT)
        for cloud in led:
            self.wait_until(
                lambda: any(line % cloud in self.log_of(second)
                            for line in NOTICED),
                'the paused leader of %s did not notice' % cloud)
        self.wait_for_both('the third leader did not publish')

        # Lose a memcached server (not the coordination one): the API
        # answers again within one refresh, numbers unchanged.
        self.servers[2].stop()
        self.wait_for_both('nothing published after a memcached died')
        for name in CLOUDS:
            answer = test_api_uwsgi.fetch_ok(
                self.port, '/v3/clouds/%s/flavors/' % name,
                timeout=INTERVAL)
            self.assertEqual(expected[name], self.flavors(answer))
        # A thread of each API process read the pointer while the cache
        # had lost it (stale, rightly): fresh again within its [api]
        # generation_check_interval (1 s here) of the publication.
        self.wait_until(
            lambda: [(c['name'], c['stale'])
                     for c in self.wait_for('/v3/clouds/')['clouds']] ==
            [(name, False) for name in CLOUDS],
            'still stale after the publication', timeout=5)

        for name in CLOUDS:
            self.assertEqual(sorted(self.sequences[name]),
                             self.sequences[name])
        self.assertIsNone(api.poll())

    def start_worker(self, name):
        """A worker whose output is in the log name."""
        return self.start(name, self.config, 'flavor-exporter-worker')
