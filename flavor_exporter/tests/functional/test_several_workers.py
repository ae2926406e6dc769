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
processes, three memcached servers, one real test cloud.

Kill the leader, pause one past its lease, kill a memcached server: the
numbers stay right and fresh, the sequence never goes backwards.
"""

import concurrent.futures
import json
import os
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request

import testtools.content

from flavor_exporter.common import published as pub
from flavor_exporter.common import store
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests.functional import test_api_uwsgi
from flavor_exporter.tests.functional import test_commands
from testcloud import loopback

LEASE = 3            # seconds: the tooz lock's lease (?timeout=)
INTERVAL = 10        # [worker] refresh_interval (its minimum)
LEADS = 'This worker now leads'


class TestSeveralWorkers(test_commands.CommandsTestCase):

    def setUp(self):
        super().setUp()
        self.servers = [self.memcached] + [
            self.useFixture(loopback.MemcachedFixture()) for _ in range(2)]
        addresses = [s.servers[0] for s in self.servers]
        self.flags(group='document_cache', memcache_servers=addresses)
        self.store = store.DocumentStore.from_conf(self.conf)
        self.addCleanup(self.store.close)
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
        self.sequences = []
        self.watching = True
        watcher = threading.Thread(target=self.watch_sequence)
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

    def watch_sequence(self):
        while self.watching:
            try:
                pointer = self.store.current()
            except store.CacheError:
                pointer = None
            if pointer is not None:
                self.sequences.append(pointer[pub.SEQUENCE])
            time.sleep(0.2)

    def fetch_waiting(self, _):
        """GET /v2/flavors/, waiting as long as a cold computation takes."""
        url = 'http://127.0.0.1:%d/v2/flavors/' % self.port
        try:
            with urllib.request.urlopen(url, timeout=300) as response:
                return response.status, None, response.read()
        except urllib.error.HTTPError as error:
            return error.code, None, error.read()

    def flavors(self, answer):
        self.assertEqual(200, answer[0], answer)
        return {f['name']: (f['total'], f['available'])
                for f in json.loads(answer[2])['flavors']}

    def wait_until(self, condition, what, timeout=60):
        deadline = time.monotonic() + timeout
        while not condition():
            self.assertLess(time.monotonic(), deadline, what)
            time.sleep(0.2)

    def leader(self, workers, but=()):
        """The worker that logged it leads since the last look, or None."""
        for name in workers:
            if name not in but and \
                    self.log_of(name).count(LEADS) > \
                    self.leads_seen.get(name, 0):
                self.leads_seen[name] = self.log_of(name).count(LEADS)
                return name
        return None

    def published_after(self, sequence):
        return max(self.sequences[-1:] or [0]) > sequence

    def test_leader_killed_paused_and_a_memcached_lost(self):
        # One cold-cache computation for 200 requests over two processes.
        api = self.start('flavor-exporter-api', self.config)
        loopback.wait_for_port(self.port, timeout=60)
        with concurrent.futures.ThreadPoolExecutor(50) as pool:
            answers = list(pool.map(self.fetch_waiting, range(200)))
        expected = self.flavors(answers[0])
        self.assertEqual([200] * 200, [a[0] for a in answers])
        self.assertEqual({json.dumps(expected)},
                         {json.dumps(self.flavors(a)) for a in answers})
        self.assertEqual(1, self.log_of('flavor-exporter-api').count(
            'Published capacity of'), self.log_of('flavor-exporter-api'))
        self.assertIsNone(api.poll())

        # Three workers: one leads and refreshes.
        names = ['flavor-exporter-worker-%d' % i for i in range(3)]
        workers = {}
        for name in names:
            workers[name] = self.start_worker(name)
        self.leads_seen = {}
        first = []
        self.wait_until(lambda: first.append(self.leader(workers)) or
                        first[-1], 'no worker leads')
        first = first[-1]
        sequence = self.sequences[-1]
        self.wait_until(lambda: self.published_after(sequence),
                        'the leader did not refresh')

        # SIGKILL the leader: another takes over and publishes.
        workers[first].send_signal(signal.SIGKILL)
        workers[first].wait()
        sequence = self.sequences[-1]
        second = []
        self.wait_until(lambda: second.append(
            self.leader(workers, but=[first])) or second[-1],
            'nobody took over')
        second = second[-1]
        self.wait_until(lambda: self.published_after(sequence),
                        'the new leader did not publish')

        # SIGSTOP it past its lease: the third takes over; resumed, the
        # paused one notices it lost the lease and publishes nothing old.
        os.killpg(workers[second].pid, signal.SIGSTOP)
        third = []
        self.wait_until(lambda: third.append(
            self.leader(workers, but=[first, second])) or third[-1],
            'nobody took over from the paused leader')
        os.killpg(workers[second].pid, signal.SIGCONT)
        self.wait_until(lambda: 'lost the leadership' in
                        self.log_of(second) or
                        'Refresh dropped' in self.log_of(second),
                        'the paused leader did not notice')
        sequence = self.sequences[-1]
        self.wait_until(lambda: self.published_after(sequence),
                        'the third leader did not publish')

        # Lose a memcached server (not the coordination one): the API
        # answers again within one refresh, numbers unchanged.
        self.servers[2].stop()
        sequence = self.sequences[-1]
        self.wait_until(lambda: self.published_after(sequence),
                        'nothing published after a memcached died')
        answer = test_api_uwsgi.fetch_ok(self.port, '/v2/flavors/',
                                         timeout=INTERVAL)
        self.assertEqual(expected, self.flavors(answer))

        self.assertEqual(sorted(self.sequences), self.sequences)
        self.assertIsNone(api.poll())

    def start_worker(self, name):
        """A worker whose output is in the log name."""
        log = open(os.path.join(self.workdir, name + '.log'), 'w')
        self.addCleanup(log.close)
        process = subprocess.Popen(
            fe_fixtures.console_script('flavor-exporter-worker') +
            ['--config-file', self.config], env=self.env(),
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.addCleanup(fe_fixtures.stop_process_group, process)
        return process
