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
"""One memcached server of three restarted empty: nothing lost for long.

A worker with the default 150 s refresh interval and default coordination,
three memcached servers, an API process started after the restart (it
holds nothing of its own). Every document must be served again well
before the next refresh, and the healthcheck must never say OK while a
document cannot be served.
"""

import time

import testtools.content

from flavor_exporter.tests.functional import test_api_uwsgi
from flavor_exporter.tests.functional import test_commands
from testcloud import loopback

# Well inside the 150 s refresh interval: healing must not wait for it.
HEAL_WITHIN = 60


class TestOneServerRestartedEmpty(test_commands.CommandsTestCase):

    def setUp(self):
        super().setUp()
        self.servers = [self.memcached] + [
            self.useFixture(loopback.MemcachedFixture()) for _ in range(2)]
        addresses = [s.servers[0] for s in self.servers]
        self.config = self.write_config_file(
            'flavor-exporter.conf',
            '[openstack]\ncloud = %s\n' % self.cloud.cloud_name,
            self.spec.pci_aliases, memcached=addresses,
            lines=['[worker]', 'refresh_interval = 150'])

    def paths(self):
        """Every document a client may ask for: lists and each flavor."""
        listed = self.wait_for('/v3/flavors/', timeout=120)
        ids = [f['id'] for f in listed['flavors']]
        gpu = [f['id'] for f in listed['flavors'] if f['gpu']]
        return (['/v3/flavors/', '/v3/flavors/?gpu=true', '/gpus/flavors/']
                + ['/v3/flavors/%s' % i for i in ids]
                + ['/gpus/flavors/%s' % i for i in gpu])

    def test_every_document_served_again_and_never_called_healthy_lost(self):
        self.start('flavor-exporter-worker', self.config)
        first = self.start('flavor-exporter-api', self.config)
        loopback.wait_for_port(self.port, timeout=60)
        paths = self.paths()
        for path in paths:
            self.assertEqual(200, test_api_uwsgi.fetch(self.port, path)[0],
                             path)
        first.terminate()
        first.wait(30)

        self.servers[1].restart()
        restarted = time.monotonic()
        # A new API process holds nothing: every answer comes from the
        # cache as it is now.
        self.start('flavor-exporter-api-2', self.config,
                   'flavor-exporter-api')
        loopback.wait_for_port(self.port, timeout=60)
        healthy_but_lost = []
        while True:
            health = test_api_uwsgi.fetch(self.port, '/healthcheck')
            failed = [path for path in paths
                      if test_api_uwsgi.fetch(self.port, path)[0] != 200]
            if health[0] == 200 and health[2] == b'OK' and failed:
                healthy_but_lost.append(failed)
            if not failed:
                break
            self.assertLess(time.monotonic() - restarted, HEAL_WITHIN,
                            'still failing: %s\n%s' % (
                                failed, self.log_of('flavor-exporter-'
                                                    'worker')))
            time.sleep(0.2)
        healed = time.monotonic() - restarted
        self.assertEqual([], healthy_but_lost)
        self.addDetail('healed_seconds', testtools.content.text_content(
            '%.1f' % healed))
        # Served again by the worker's last good data, not a refresh.
        log = self.log_of('flavor-exporter-worker')
        self.assertEqual(1, log.count('Published capacity of'), log)
