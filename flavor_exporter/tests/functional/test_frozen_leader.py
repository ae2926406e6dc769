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
"""A leader frozen in the middle of a refresh publishes nothing late.

Two real worker processes and the real test cloud, Placement behind a
proxy that holds one request: the leader is caught inside its refresh,
frozen (SIGSTOP) past its lease, the other worker takes over and
publishes; when the frozen one resumes and finishes its refresh, the
fenced pointer refuses its result ("Refresh dropped") and the published
sequence never goes backwards.
"""

import os
import signal
import threading
import time

import yaml

from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests.functional import test_commands
from testcloud import faultproxy

LEASE = 3            # seconds: the tooz lock's lease (?timeout=)
INTERVAL = 10        # [worker] refresh_interval (its minimum)


class TestLeaderFrozenMidRefresh(test_commands.CommandsTestCase):

    def setUp(self):
        super().setUp()
        self.proxy = self.useFixture(
            faultproxy.FaultProxy(self.cloud.placement_url))
        self.clouds_yaml = self.proxied_clouds_yaml()
        server = self.memcached.servers[0]
        self.config = self.write_config(lines=[
            '[worker]',
            'refresh_interval = %d' % INTERVAL,
            '[coordination]',
            'backend_url = memcached://%s?timeout=%d' % (server, LEASE),
            'check_interval = 1',
            # The frozen leader's held call must outlast the freeze.
            '[openstack]',
            'api_timeout = 300'])
        self.sequences = []
        self.watching = True
        watcher = threading.Thread(target=self.watch_sequence)
        watcher.start()
        self.addCleanup(watcher.join)
        self.addCleanup(setattr, self, 'watching', False)

    def proxied_clouds_yaml(self):
        """The test cloud's clouds.yaml, Placement through the proxy."""
        with open(self.cloud.clouds_yaml) as source:
            clouds = yaml.safe_load(source)
        entry = clouds['clouds'][self.cloud.cloud_name]
        entry['placement_endpoint_override'] = self.proxy.url
        path = os.path.join(self.workdir, 'clouds.yaml')
        with open(path, 'w') as target:
            yaml.safe_dump(clouds, target)
        return path

    def env(self):
        return dict(super().env(), OS_CLIENT_CONFIG_FILE=self.clouds_yaml)

    def watch_sequence(self):
        while self.watching:
            try:
                pointer = self.store.reader.current()
            except publisher.CacheError:
                pointer = None
            if pointer is not None:
                self.sequences.append(pointer[pub.SEQUENCE])
            time.sleep(0.1)

    def start_worker(self, name):
        process = self.start(name, self.config, 'flavor-exporter-worker')
        # A frozen process cannot stop: thaw it first.
        self.addCleanup(self.thaw, process)
        return process

    def thaw(self, process):
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGCONT)

    def test_late_result_is_dropped(self):
        first = self.start_worker('worker-a')
        self.wait_until(lambda: self.sequences, 'the leader never published')
        self.proxy.hold_path('/resource_providers')
        # Its next refresh reads Placement, and waits in the proxy.
        self.assertTrue(self.proxy.held.wait(INTERVAL * 6),
                        'the leader did not refresh again')
        os.killpg(first.pid, signal.SIGSTOP)
        frozen_at = self.sequences[-1]

        self.start_worker('worker-b')
        self.wait_until(lambda: self.sequences[-1] > frozen_at,
                        'the second worker did not take over and publish')
        taken_over = self.store.reader.current()

        # The held call answers while the leader is frozen; resumed, it
        # finishes its refresh and tries to publish on an old base.
        self.proxy.release()
        os.killpg(first.pid, signal.SIGCONT)
        self.wait_until(lambda: 'Refresh dropped' in self.log_of('worker-a'),
                        'the late refresh was not dropped')
        self.assertNotIn('Published capacity of',
                         self.log_of('worker-a').split('Refresh dropped')[1])
        self.assertEqual(sorted(self.sequences), self.sequences)
        current = self.store.reader.current()
        self.assertGreaterEqual(current[pub.SEQUENCE],
                                taken_over[pub.SEQUENCE])
        self.wait_until(lambda: 'lost the leadership' in
                        self.log_of('worker-a'),
                        'the resumed worker still believes it leads')
