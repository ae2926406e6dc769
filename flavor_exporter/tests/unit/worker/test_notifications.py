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

from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.worker import demand
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


class Heard(base.TestCase):

    def setUp(self):
        super().setUp()
        self.backend = cache.MemoryBackend()
        self.store = publisher.Publisher(self.backend, 'test', 600)
        self.now = [1000.0]
        self.endpoint = notifications.Endpoint(
            self.store, clock=lambda: self.now[0])


class TestEndpoint(Heard):

    def test_changes_are_noted_for_the_leader(self):
        changes = self.store.changes
        taken = changes.pending({})[0]
        self.endpoint.info({}, 'nova-compute:h1', 'instance.create.end',
                           versioned('InstanceCreatePayload', host='h1'), {})
        self.now[0] = 1002.0
        self.endpoint.info({}, 'nova-api', 'flavor.update', {}, {})
        self.endpoint.info({}, 'nova-compute:h2', 'instance.delete.end',
                           versioned('InstanceActionPayload', host='h2'), {})
        counters, first, changed, hosts = changes.pending(taken)
        self.assertEqual(1000.0, first)
        self.assertEqual({'usages', 'flavors'}, changed)
        # Only these hosts' usages changed.
        self.assertEqual({'h1', 'h2'}, hosts)
        changes.take()
        self.assertEqual((counters, None, frozenset(), frozenset()),
                         changes.pending(counters))
        # A server that moved: any host's.
        self.endpoint.info({}, 'nova-compute:h3',
                           'instance.live_migration_post.end',
                           versioned('InstanceActionPayload', host='h3'), {})
        self.assertIsNone(changes.pending(counters)[3])

    def test_a_failure_said_twice_in_one_request_counts_once(self):
        ctxt = {'request_id': 'req-1'}
        self.endpoint.error(ctxt, 'nova-conductor',
                            'compute_task.build_instances',
                            legacy_task_error(), {})
        self.endpoint.error(ctxt, 'nova-conductor',
                            'compute_task.build_instances.error',
                            task_error(), {})
        self.endpoint.error({'request_id': 'req-2'}, 'nova-conductor',
                            'compute_task.build_instances.error',
                            task_error(), {})
        newest, failures, lost = self.store.turned_away.since(None)
        self.assertEqual((2, 0), (newest, lost))
        self.assertEqual([['f1', 'g.large', 'p1', 1000.0]] * 2, failures)

    def test_unreadable_payload_is_one_line_and_dropped(self):
        payload = versioned('ComputeTaskPayload', request_spec=[],
                            reason=versioned('ExceptionPayload',
                                             exception='NoValidHost'))
        with self.assertLogs(notifications.LOG.logger, 'WARNING') as logs:
            self.endpoint.error({}, 'x', 'compute_task.build_instances.error',
                                payload, {})
        self.assertEqual(1, len(logs.output))
        self.assertIn('could not be read and was dropped', logs.output[0])

    def test_cache_gone_is_one_line(self):
        self.backend.incr = _raise
        with self.assertLogs(notifications.LOG.logger, 'WARNING') as logs:
            self.endpoint.info({}, 'x', 'instance.delete.end', {}, {})
        self.assertIn('the next refresh reads it', logs.output[0])
        self.assertEqual(0, self.endpoint.heard)


def _raise(*args, **kwargs):
    raise cache.CacheError('memcached incr: gone')


class TestDemand(Heard):

    def fail(self, request, project='p1', flavor_id='f1'):
        self.endpoint.error({'request_id': request}, 'c',
                            'compute_task.build_instances.error',
                            task_error(flavor_id=flavor_id,
                                       project=project), {})

    def test_totals_go_on_with_the_next_leader(self):
        leader = demand.Demand(self.store)
        self.fail('r1')
        self.fail('r2', project='p2')
        leader.update()
        self.fail('r3', flavor_id='f2')
        # Another worker takes over: it starts from the published totals.
        successor = demand.Demand(self.store)
        successor.update()
        totals = self.store.reader.demand()
        flavors = totals[pub.DEMAND_FLAVORS]
        self.assertEqual(2, flavors['f1'][pub.TURNED_AWAY])
        self.assertEqual({'p1': 1, 'p2': 1}, flavors['f1'][pub.PROJECTS])
        self.assertEqual(1, flavors['f2'][pub.TURNED_AWAY])
        self.assertEqual('1970-01-01T00:16:40Z', flavors['f2'][pub.LAST_AT])
        self.assertEqual(0, totals[pub.TURNED_AWAY_LOST])

    def test_failures_the_ring_lost_are_said(self):
        leader = demand.Demand(self.store)
        leader.update()
        self.store.turned_away.SLOTS = 2
        for request in ('r1', 'r2', 'r3'):
            self.fail(request)
        with self.assertLogs(demand.LOG.logger, 'WARNING'):
            leader.update()
        totals = self.store.reader.demand()
        self.assertEqual(2, totals[pub.DEMAND_FLAVORS]['f1'][
            pub.TURNED_AWAY])
        self.assertEqual(1, totals[pub.TURNED_AWAY_LOST])


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
