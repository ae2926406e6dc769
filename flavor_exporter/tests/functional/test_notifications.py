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
"""Nova's notifications on a real RabbitMQ, heard by two real workers.

The test cloud's Nova sends its notifications to a RabbitMQ of the test's
own (loopback.RabbitMQFixture), as a deployer's nova.conf does. Two
flavor-exporter-worker processes listen in one pool, one of them leading
([coordination] in memcached), and poll only once an hour: every number
that changes here changes because Nova said so. Boots, deletes, a compute
service enabled, a host moved into a zone aggregate and a new flavor each
reach the published documents; boots Nova places nowhere are counted
once each, whichever worker heard them; and a bus that goes away is one
line in the log, then heard again once it is back.

How fast is measured by tools/bench/notifications.py, not here.
"""

import json
import os

import testtools.content

from flavor_exporter.publication import contract as pub
from flavor_exporter.tests.functional import test_commands
from testcloud import launcher
from testcloud import loopback
from testcloud import oracle

SERVICES_MICROVERSION = '2.53'
# A change must reach the documents well within this; the goal (a few
# seconds) is the benchmark's to measure.
HEARD_WITHIN = 60


class NotificationsTestCase(test_commands.CommandsTestCase):
    """A cloud of its own that sends notifications, two workers on it."""

    scenario = 'disabled_host'
    notification_format = 'both'

    def make_cloud(self):
        # Not CommandsTestCase's shared cloud: this one has a bus.
        self.rabbit = self.useFixture(loopback.RabbitMQFixture())
        return self.useFixture(launcher.TestCloud(
            self.scenario, notification_url=self.rabbit.url,
            notification_format=self.notification_format))

    def worker_lines(self):
        """The workers' options beyond the bus and the coordination's."""
        return ['[notifications]', 'settle = 0.5',
                '[coordination]', 'check_interval = 1']

    def setUp(self):
        super().setUp()
        self.conn = self.cloud.connection()
        self.config = self.write_config(lines=[
            '[worker]', 'refresh_interval = 3600',
            '[openstack]', 'notification_transport_url = %s'
            % self.rabbit.url,
            '[coordination]', 'backend_url = memcached://%s?timeout=5'
            % self.memcached.servers[0]] + self.worker_lines())
        self.workers = [self.start('worker-%d' % i, self.config,
                                   'flavor-exporter-worker')
                        for i in (1, 2)]
        self.addOnException(self.attach_logs)
        self.wait_until(lambda: self.store.reader.current(),
                        'a first publication')

    def attach_logs(self, exc_info):
        for name in ('worker-1', 'worker-2'):
            if os.path.exists(os.path.join(self.workdir, name + '.log')):
                self.addDetail(name, testtools.content.text_content(
                    self.log_of(name)[-20000:]))

    def flavors(self):
        pointer = self.store.reader.current()
        listed = json.loads(self.store.reader.document(pointer, pub.V3_LIST))
        return {f[pub.NAME]: f for f in listed[pub.FLAVORS]}

    def wait_for(self, condition, what):
        return self.wait_until(condition, what, timeout=HEARD_WITHIN)

    def available(self, name='small'):
        return self.flavors()[name][pub.AVAILABLE]

    def turned_away(self, flavor_id):
        demand = self.store.reader.demand() or {}
        entry = demand.get(pub.DEMAND_FLAVORS, {}).get(flavor_id)
        return entry and entry[pub.TURNED_AWAY]

    def fail_boots(self, flavor, count):
        """Boot flavor count times, each to NoValidHost; their project."""
        for _ in range(count):
            server = oracle.boot(self.conn, flavor)
            self.assertEqual('ERROR', server['status'])
            self.assertIn(oracle.NO_VALID_HOST, server['fault']['message'])
            oracle.delete_servers(self.conn, [server])
        return server['tenant_id']


class TestNotifications(NotificationsTestCase):

    def test_what_nova_announces_is_published(self):
        # host-3 is disabled: 2 per host on two hosts.
        self.assertEqual(4, self.available())
        server = oracle.boot(self.conn, 'small')
        self.assertEqual('ACTIVE', server['status'])
        self.wait_for(lambda: self.available() == 3, 'the boot heard')
        oracle.delete_servers(self.conn, [server])
        self.wait_for(lambda: self.available() == 4, 'the delete heard')

        service = self.conn.compute.get(
            '/os-services?binary=nova-compute&host=host-3',
            microversion=SERVICES_MICROVERSION).json()['services'][0]
        self.conn.compute.put('/os-services/%s' % service['id'],
                              json={'status': 'enabled'},
                              microversion=SERVICES_MICROVERSION)
        self.wait_for(lambda: self.available() == 6,
                      'the service enabled heard')

        aggregate = self.conn.compute.create_aggregate(
            name='zone-x', availability_zone='az-x')
        self.conn.compute.add_host_to_aggregate(aggregate, 'host-1')
        self.wait_for(lambda: 'az-x' in self.flavors()['small'][pub.ZONES],
                      'the host moved into a zone heard')

        huge = self.conn.compute.create_flavor(name='huge', vcpus=64,
                                               ram=1024, disk=1)
        self.wait_for(lambda: 'huge' in self.flavors(),
                      'the new flavor heard')
        self.assertEqual(0, self.available('huge'))

        # Nova places it nowhere: each failure counted once, though two
        # workers listen.
        project = self.fail_boots('huge', 3)
        self.wait_for(lambda: self.turned_away(huge.id) == 3,
                      'three failures counted')
        demand = self.store.reader.demand()[pub.DEMAND_FLAVORS][huge.id]
        self.assertEqual('huge', demand[pub.NAME])
        self.assertEqual({project: 3}, demand[pub.PROJECTS])
        heard = sum(self.log_of(name).count('Nova announced')
                    for name in ('worker-1', 'worker-2'))
        self.assertGreater(heard, 0)

    def test_a_bus_that_goes_away(self):
        # Both listeners connected first: one that first connects after
        # the bus is back says so as a start, not as a reconnection.
        self.wait_for(lambda: all(
            'Listening to Nova\'s notifications' in self.log_of(name)
            for name in ('worker-1', 'worker-2')), 'both listening')
        self.rabbit.stop()
        self.wait_for(lambda: any(
            'polling carries on' in self.log_of(name)
            for name in ('worker-1', 'worker-2')), 'the bus said gone')
        self.rabbit.start()
        # What Nova says before a listener is back is lost with the bus's
        # queues (polling reads it later): boot once both are back.
        self.wait_for(lambda: all(
            'Reconnected to AMQP server' in self.log_of(name)
            for name in ('worker-1', 'worker-2')), 'the listeners back')
        server = oracle.boot(self.conn, 'small')
        self.addCleanup(oracle.delete_servers, self.conn, [server])
        self.wait_for(lambda: self.available() == 3,
                      'a boot heard on the bus back')
        for name in ('worker-1', 'worker-2'):
            # One line while it was gone, not one per attempt.
            self.assertLessEqual(
                self.log_of(name).count('polling carries on'), 1, name)


class TestLegacyNotifications(NotificationsTestCase):
    """nova.conf's default notification_format: the unversioned ones."""

    notification_format = 'unversioned'

    def test_boots_and_failures_heard(self):
        server = oracle.boot(self.conn, 'small')
        self.wait_for(lambda: self.available() == 3, 'the boot heard')
        oracle.delete_servers(self.conn, [server])
        self.wait_for(lambda: self.available() == 4, 'the delete heard')
        huge = self.conn.compute.create_flavor(name='huge', vcpus=64,
                                               ram=1024, disk=1)
        self.fail_boots('huge', 2)
        self.wait_for(lambda: self.turned_away(huge.id) == 2,
                      'two failures counted')
