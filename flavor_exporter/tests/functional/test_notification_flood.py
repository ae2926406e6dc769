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
"""A bus in a bad hour, on a real RabbitMQ, heard by two real workers.

Besides the test cloud's Nova, the test publishes on its bus as anyone
with its credentials can: a burst of instance.create.end, NoValidHost
failures of made-up flavor ids, failures of a real flavor under a made-up
name, and messages no Nova sends. Nothing is lost to the cache client's
pool, the demand holds what the flavor list vouches for, and the log
says it in a line or two. tools/bench/notifications.py sends the full
20,000.
"""

import threading
import uuid

from oslo_config import cfg
import oslo_messaging

from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.tests.functional import test_notifications
from flavor_exporter.worker import demand
from flavor_exporter.worker import notifications
from flavor_exporter.worker import nova_events
from testcloud import loopback
from testcloud import oracle

# Enough for batches to run in parallel and queue on the bus, few enough
# for the test to stay well under a minute.
BURST = 5000
MADE_UP = 300
FORGED = 20
MALFORMED = 200
# Per thread of TestPool: enough for 64 threads to overlap.
BATCHES = 20


def _obj(name, data):
    return {'nova_object.name': name, 'nova_object.data': data}


def _no_valid_host(flavor_id, project_id, name='x'):
    return _obj('ComputeTaskPayload', {
        'instance_uuid': str(uuid.uuid4()),
        'reason': _obj('ExceptionPayload', {'exception': 'NoValidHost'}),
        'request_spec': _obj('RequestSpecPayload', {
            'project_id': project_id,
            'flavor': _obj('FlavorPayload', {'flavorid': flavor_id,
                                             'name': name})})})


class Bus:
    """Publishes on the cloud's bus as nova-compute and nova-conductor."""

    def __init__(self, url):
        conf = cfg.ConfigOpts()
        conf([])
        # The first transport registers the option; the drivers read
        # the exchange when they are made.
        oslo_messaging.get_notification_transport(conf, url=url).cleanup()
        conf.set_override('control_exchange', 'nova')
        self._transport = oslo_messaging.get_notification_transport(
            conf, url=url)
        self._notifier = oslo_messaging.Notifier(
            self._transport, driver='messagingv2',
            topics=['versioned_notifications'], publisher_id='nova:test')

    def created(self, host):
        self._notifier.info({'request_id': 'req-test'},
                            'instance.create.end',
                            _obj('InstanceCreatePayload', {'host': host}))

    def error(self, event_type, payload):
        self._notifier.error({'request_id': 'req-%s' % uuid.uuid4()},
                             event_type, payload)

    def close(self):
        self._transport.cleanup()


class TestFlood(test_notifications.NotificationsTestCase):

    def usages_noted(self):
        return self.store.changes.pending({})[0]['usages']

    def test_a_burst_and_hostile_messages(self):
        self.wait_for(lambda: all(
            'Listening to Nova\'s notifications' in self.log_of(name)
            for name in ('worker-1', 'worker-2')), 'both listening')
        small = self.conn.compute.find_flavor('small')
        logs_before = {name: len(self.log_of(name))
                       for name in ('worker-1', 'worker-2')}
        noted_before = self.usages_noted()
        bus = Bus(self.rabbit.url)
        self.addCleanup(bus.close)
        for number in range(BURST):
            bus.created('host-%d' % (1 + number % 3))
            if number * MADE_UP // BURST != (number + 1) * MADE_UP // BURST:
                bus.error('compute_task.build_instances.error',
                          _no_valid_host('made-up-%s' % uuid.uuid4(),
                                         uuid.uuid4().hex))
        for number in range(FORGED):
            bus.error('compute_task.build_instances.error', _no_valid_host(
                small.id, 'project-%d' % (number % 2),
                'renamed-by-a-message'))
        for number in range(MALFORMED):
            bus.error('compute_task.build_instances.error', _no_valid_host(
                ['not', 'an', 'id'] if number % 2 else 'f' * 1000, 'p'))

        # Every change noted for the leader: none lost to the pool.
        expected = noted_before + BURST + MADE_UP + FORGED
        self.wait_for(lambda: self.usages_noted() >= expected,
                      'the burst noted')
        self.assertEqual(expected, self.usages_noted())

        # The demand: the real flavor by its own name, the rest one total.
        def counted():
            totals = self.store.reader.demand() or {}
            unknown = totals.get(pub.DEMAND_UNKNOWN) or {}
            return (unknown.get(pub.TURNED_AWAY) == MADE_UP
                    and small.id in totals[pub.DEMAND_FLAVORS]
                    and totals)
        totals = self.wait_for(counted, 'the failures counted')
        self.assertEqual([small.id], list(totals[pub.DEMAND_FLAVORS]))
        entry = totals[pub.DEMAND_FLAVORS][small.id]
        self.assertEqual('small', entry[pub.NAME])
        self.assertEqual(FORGED, entry[pub.TURNED_AWAY])
        self.assertEqual({'project-0': FORGED // 2,
                          'project-1': FORGED // 2}, entry[pub.PROJECTS])
        self.assertLessEqual(len(entry[pub.PROJECTS]), demand.PROJECTS_KEPT)

        # The listeners still hear Nova, and the leader refreshes it.
        server = oracle.boot(self.conn, 'small')
        self.addCleanup(oracle.delete_servers, self.conn, [server])
        self.wait_for(lambda: self.available() == 3,
                      'a boot after the burst heard')

        for name in ('worker-1', 'worker-2'):
            log = self.log_of(name)[logs_before[name]:]
            errors = [line for line in log.splitlines() if ' ERROR ' in line]
            # Not a line per message (the bus's were 9,670); none of them
            # the listener's or oslo.messaging's.
            self.assertLess(len(errors), 5, (name, errors))
            for line in errors:
                self.assertNotIn('oslo_messaging', line)
                self.assertNotIn('worker.notifications', line)
                self.assertNotIn('worker.demand', line)
            self.assertNotIn('Callback raised an exception', log, name)
            self.assertNotIn('Too many objects', log, name)
            # The malformed ones: the first, then a count a minute.
            self.assertLessEqual(
                log.lower().count('malformed notifications dropped'), 2,
                name)


class TestPool(base.BaseTestCase):
    """The listener's batches on a real memcached, 64 at once."""

    def test_many_batches_at_once_fit_the_pool(self):
        memcached = self.useFixture(loopback.MemcachedFixture())
        backend = cache.MemcachedBackend(memcached.servers, pool_maxsize=16)
        self.addCleanup(backend.close)
        store = publisher.Publisher(backend, 'test', 600)
        endpoint = notifications.Endpoint(
            store, writers=notifications.writers_for(16))
        # What oslo.messaging's executor does in a burst: 64 threads.
        # Unbounded (writers=64), hundreds of these batches fail on the
        # pool.
        batch = [{'ctxt': {}, 'event_type': 'instance.create.end',
                  'payload': {'nova_object.data': {'host': 'h%d' % n}}}
                 for n in range(notifications.BATCH_SIZE)]

        def batches():
            for _ in range(BATCHES):
                endpoint.info(batch)
        threads = [threading.Thread(target=batches) for _ in range(64)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(0, endpoint.unnoted.total)
        counters = store.changes.pending({})[0]
        noted = 64 * BATCHES * notifications.BATCH_SIZE
        self.assertEqual(noted, counters[nova_events.USAGES])
        self.assertEqual(noted, counters['hosts'])
