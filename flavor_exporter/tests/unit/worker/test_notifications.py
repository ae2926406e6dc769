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
"""What a Nova notification means, and how it reaches the leader.

Payloads here are shaped as Nova 34 sends them (its notification_samples
and the functional tests' captures); test_notifications in the functional
tests hears the real ones on a real RabbitMQ.
"""

import logging
import threading
import time
from unittest import mock

from flavor_exporter.publication import cache
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.worker import notifications
from flavor_exporter.worker import nova_events


def versioned(object_name, **data):
    return {'nova_object.name': object_name, 'nova_object.namespace': 'nova',
            'nova_object.version': '1.0', 'nova_object.data': data}


def task_error(exception='NoValidHost', flavor_id='f1', project='p1',
               instance='i1'):
    return versioned(
        'ComputeTaskPayload', instance_uuid=instance,
        reason=versioned('ExceptionPayload', exception=exception),
        request_spec=versioned(
            'RequestSpecPayload', project_id=project,
            flavor=versioned('FlavorPayload', flavorid=flavor_id,
                             name='g.large')))


def legacy_task_error(reason="{'class': 'NoValidHost'}"):
    return {'instance_id': 'i1', 'reason': reason, 'method': 'build',
            'request_spec': {'instance_type': {'flavorid': 'f1',
                                               'name': 'g.large'}},
            'instance_properties': {'project_id': 'p1'}}


class TestRead(base.BaseTestCase):

    def test_what_changes_capacity(self):
        for event_type, part in (
                ('instance.create.end', nova_events.USAGES),
                ('compute.instance.create.end', nova_events.USAGES),
                ('instance.delete.end', nova_events.USAGES),
                ('instance.live_migration_post.end', nova_events.USAGES),
                ('compute.instance.finish_resize.end', nova_events.USAGES),
                ('service.update', nova_events.SERVICES),
                ('aggregate.add_host.end', nova_events.AGGREGATES),
                ('aggregate.updatemetadata.end', nova_events.AGGREGATES),
                ('flavor.create', nova_events.FLAVORS)):
            event = nova_events.read(event_type, {})
            self.assertEqual(frozenset((part,)), event.reads, event_type)
            self.assertIsNone(event.turned_away)

    def test_what_does_not(self):
        for event_type in ('instance.update', 'instance.power_off.end',
                           'instance.create.start', 'compute.instance.exists',
                           'instance.volume_attach.end', 'scheduler.foo',
                           None):
            self.assertIsNone(nova_events.read(event_type, {}))

    def test_no_valid_host_in_either_format(self):
        for event_type, payload in (
                ('compute_task.build_instances.error', task_error()),
                ('compute_task.build_instances', legacy_task_error())):
            event = nova_events.read(event_type, payload)
            self.assertEqual(('f1', 'g.large', 'p1', 'i1'),
                             event.turned_away, event_type)
            # Its claims are gone: read the usages too.
            self.assertEqual(frozenset((nova_events.USAGES,)), event.reads)

    def test_other_task_failures_are_not_demand(self):
        self.assertIsNone(nova_events.read(
            'compute_task.build_instances.error',
            task_error(exception='MaxRetriesExceeded')))
        self.assertIsNone(nova_events.read(
            'compute_task.build_instances',
            legacy_task_error(reason='Exceeded maximum number of retries')))
        # A failure without its flavor cannot be counted: said.
        self.assertRaises(ValueError, nova_events.read,
                          'compute_task.build_instances.error', versioned(
                              'ComputeTaskPayload', reason=versioned(
                                  'ExceptionPayload',
                                  exception='NoValidHost')))

    def test_ids_are_what_nova_sends_or_nothing(self):
        # A hostile message cannot put lists or megabytes into the cache.
        self.assertRaises(ValueError, nova_events.read,
                          'compute_task.build_instances.error',
                          task_error(flavor_id=['f1']))
        self.assertRaises(ValueError, nova_events.read,
                          'compute_task.build_instances.error',
                          task_error(flavor_id='f' * 256))
        event = nova_events.read('compute_task.build_instances.error',
                                 task_error(flavor_id=7, project={'x': 1},
                                            instance='i' * 300))
        self.assertEqual(('7', 'g.large', None, None), event.turned_away)
        # A host name no Nova has: any host may have changed.
        event = nova_events.read('instance.create.end', versioned(
            'InstanceCreatePayload', host='h' * 256))
        self.assertIsNone(event.hosts)
        event = nova_events.read('instance.create.end', versioned(
            'InstanceCreatePayload', host='h1'))
        self.assertEqual({'h1'}, event.hosts)


def message(event_type, payload, request_id=None):
    """One notification as oslo.messaging's batch listener hands it."""
    return {'ctxt': {'request_id': request_id}, 'publisher_id': 'nova',
            'event_type': event_type, 'payload': payload,
            'metadata': {}}


def created(host):
    return message('instance.create.end',
                   versioned('InstanceCreatePayload', host=host))


class Heard(base.TestCase):

    def setUp(self):
        super().setUp()
        self.backend = cache.MemoryBackend()
        self.store = publisher.Publisher(self.backend, 'test', 600)
        self.now = [1000.0]
        self.timers = []
        self.endpoint = notifications.Endpoint(
            self.store, clock=lambda: self.now[0], timer=self._timer)

    def _timer(self, interval, function):
        timer = mock.Mock(function=function)
        self.timers.append(timer)
        return timer

    def interval_over(self):
        due, self.timers = self.timers, []
        for timer in due:
            timer.function()


class TestEndpoint(Heard):

    def test_changes_are_noted_for_the_leader(self):
        changes = self.store.changes
        taken = changes.pending({})[0]
        self.endpoint.info([created('h1')])
        self.now[0] = 1002.0
        self.endpoint.info([
            message('flavor.update', {}),
            message('instance.delete.end',
                    versioned('InstanceActionPayload', host='h2'))])
        counters, first, changed, hosts = changes.pending(taken)
        self.assertEqual(1000.0, first)
        self.assertEqual({'usages', 'flavors'}, changed)
        # Only these hosts' usages changed.
        self.assertEqual({'h1', 'h2'}, hosts)
        self.assertEqual(2, counters['usages'] - taken.get('usages', 0))
        changes.take()
        self.assertEqual((counters, None, frozenset(), frozenset()),
                         changes.pending(counters))
        # A server that moved: any host's.
        self.endpoint.info([message(
            'instance.live_migration_post.end',
            versioned('InstanceActionPayload', host='h3'))])
        self.assertIsNone(changes.pending(counters)[3])
        self.assertEqual(4, self.endpoint.heard)

    def test_a_batch_costs_a_few_cache_operations(self):
        # What made a burst fail on the cache client's pool: four
        # operations per notification. Now a handful per batch.
        calls = []
        for name in ('incr', 'set_many', 'add', 'get', 'get_many'):
            original = getattr(self.backend, name)
            setattr(self.backend, name, _recorded(calls, name, original))
        self.endpoint.info([created('h%d' % (n % 50))
                            for n in range(notifications.BATCH_SIZE)])
        self.assertLessEqual(len(calls), 4, calls)
        counters, _, _, _ = self.store.changes.pending({})
        self.assertEqual(notifications.BATCH_SIZE, counters['usages'])

    def test_batches_wait_for_a_writer(self):
        # oslo.messaging runs many batches in parallel: only `writers` of
        # them hold cache connections at once, the others wait.
        endpoint = notifications.Endpoint(self.store, writers=2)
        inside, most = [0], [0]
        lock = threading.Lock()
        original = self.backend.incr

        def slow_incr(*args, **kwargs):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.01)
            with lock:
                inside[0] -= 1
            return original(*args, **kwargs)

        self.backend.incr = slow_incr
        threads = [threading.Thread(target=endpoint.info,
                                    args=([created('h%d' % n)],))
                   for n in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(2, most[0])
        self.assertEqual(16, endpoint.heard)
        self.assertEqual(16, self.store.changes.pending({})[0]['usages'])

    def test_writers_leave_the_pool_room(self):
        self.assertEqual(4, notifications.writers_for(16))
        self.assertEqual(1, notifications.writers_for(2))
        self.assertEqual(1, notifications.writers_for(1))

    def test_a_failure_said_twice_in_one_request_counts_once(self):
        self.endpoint.error([
            message('compute_task.build_instances', legacy_task_error(),
                    'req-1'),
            message('compute_task.build_instances.error', task_error(),
                    'req-1')])
        self.endpoint.error([message('compute_task.build_instances.error',
                                     task_error(), 'req-1')])
        self.endpoint.error([message('compute_task.build_instances.error',
                                     task_error(), 'req-2')])
        newest, slots, lost = self.store.turned_away.since(None)
        self.assertEqual((2, 0), (newest, lost))
        self.assertEqual([(1, ['f1', 'g.large', 'p1', 1000.0]),
                          (2, ['f1', 'g.large', 'p1', 1000.0])], slots)

    def test_malformed_messages_are_one_line_a_minute(self):
        bad = versioned('ComputeTaskPayload', request_spec=[],
                        reason=versioned('ExceptionPayload',
                                         exception='NoValidHost'))
        with self.assertLogs(notifications.LOG.logger, 'DEBUG') as logs:
            for _ in range(10):
                self.endpoint.error(
                    [message('compute_task.build_instances.error', bad)]
                    * 100 + [created('h1')])
            self.interval_over()
        warnings = [line for line in logs.output
                    if not line.startswith('DEBUG')]
        self.assertEqual(2, len(warnings), warnings)
        self.assertIn('Malformed notifications dropped: '
                      "'compute_task.build_instances.error': a NoValidHost "
                      'failure without its flavor', warnings[0])
        self.assertIn('999 malformed notifications dropped in the last 60 s',
                      warnings[1])
        self.assertEqual(1000, self.endpoint.malformed.total)
        # The good ones of the batches are noted.
        self.assertEqual(10, self.endpoint.heard)

    def test_oslo_messaging_lines_per_message_are_counted(self):
        counted = notifications._Counted(self.endpoint.malformed)
        logger = logging.getLogger('test.dispatcher')
        logger.addFilter(counted)
        self.addCleanup(logger.removeFilter, counted)
        with self.assertLogs(notifications.LOG.logger, 'WARNING') as logs:
            for _ in range(50):
                logger.warning('Unknown priority "%s"', 'bogus')
        self.assertEqual(1, len(logs.output))
        self.assertEqual(50, self.endpoint.malformed.total)

    def test_cache_gone_is_one_line(self):
        self.backend.incr = _raise
        with self.assertLogs(notifications.LOG.logger, 'WARNING') as logs:
            for _ in range(20):
                self.endpoint.info([message('instance.delete.end', {})])
        self.assertEqual(1, len(logs.output))
        self.assertIn('the next refresh reads the cloud anyway',
                      logs.output[0])
        self.assertEqual(0, self.endpoint.heard)


def _recorded(calls, name, original):
    def call(*args, **kwargs):
        calls.append(name)
        return original(*args, **kwargs)
    return call


def _raise(*args, **kwargs):
    raise cache.CacheError('memcached incr: gone')


class TestBusGone(base.BaseTestCase):

    def record(self, level, message):
        return logging.LogRecord('oslo.messaging._drivers.impl_rabbit',
                                 level, __file__, 1, message, (), None)

    def test_one_line_until_back(self):
        gone = notifications._OnceUntilBack()
        first = self.record(logging.ERROR, 'AMQP server unreachable')
        self.assertTrue(gone.filter(first))
        self.assertIn('polling carries on', first.msg)
        again = self.record(logging.ERROR, 'AMQP server unreachable')
        gone.filter(again)
        self.assertEqual(logging.DEBUG, again.levelno)
        self.assertTrue(gone.filter(self.record(
            logging.INFO, 'Reconnected to AMQP server')))
        self.assertTrue(gone.filter(self.record(logging.ERROR, 'gone')))
