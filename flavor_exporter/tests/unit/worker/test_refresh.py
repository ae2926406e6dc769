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

import datetime
import json
import logging

import fixtures

from flavor_exporter.capacity import engine
from flavor_exporter.capacity import model
from flavor_exporter.common import exceptions
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.worker import openstack
from flavor_exporter.worker import refresh
from flavor_exporter.worker import source


def snapshot(readable=1, unreadable=0):
    hosts = []
    for i in range(readable):
        root = model.Provider('n%d' % i, 'n%d' % i, inventories={
            'VCPU': model.Inventory(8, max_unit=8, allocation_ratio=4.0),
            'MEMORY_MB': model.Inventory(16384, reserved=512),
            'DISK_GB': model.Inventory(100)})
        hosts.append(model.Host('c%d' % (i + 1), 'c%d.example.org' % (i + 1),
                                availability_zone='nova', providers=[root]))
    hosts += [model.Host('x%d' % i, 'x%d.example.org' % i,
                         unreadable='resource provider x%d: answered 500' % i)
              for i in range(unreadable)]
    flavors = [model.Flavor('f1', 'small', vcpus=2, ram=2048, disk=10),
               model.Flavor('f2', 'bad', vcpus=1, ram=1, disk=1,
                            extra_specs={'hw:cpu_policy': 'sometimes'})]
    return model.Snapshot('placement', flavors, hosts, api_calls=7)


def snapshot_time():
    return datetime.datetime(2027, 1, 15, 8, tzinfo=datetime.timezone.utc)


class FakeSource(source.Source):
    """Collects canned snapshots, or raises what it is told to."""

    def __init__(self):
        super().__init__(conf=None)
        self.error = None
        self.calls = 0
        self.problems = []
        self.hosts = (1, 0)  # readable, unreadable

    def collect(self, client, scope=None, hosts=None):
        self.calls += 1
        if self.error:
            raise self.error
        collected = snapshot(*self.hosts)
        collected.problems = list(self.problems)
        return collected


class TestRefresher(base.TestCase):

    def setUp(self):
        super().setUp()
        self.backend = cache.MemoryBackend()
        self.store = publisher.Publisher(self.backend, 'test', 600)
        self.source = FakeSource()
        self.refresher = refresh.Refresher(self.conf, self.store,
                                           client=object(),
                                           source=self.source)

    def v3_list(self):
        pointer = self.store.reader.current()
        return json.loads(self.store.reader.document(pointer,
                                                     pub.V3_LIST))

    def test_success_publishes_and_records(self):
        self.assertTrue(self.refresher.refresh())
        flavors = {f['name']: f for f in self.v3_list()['flavors']}
        # 8 * 4 / 2 = 16 VCPU-wise, (16384 - 512) // 2048 = 7 RAM-wise.
        self.assertEqual(7, flavors['small']['total'])
        self.assertEqual('MEMORY_MB', flavors['small']['limited_by'])
        # A malformed extra spec is reported, not fatal.
        self.assertIsNone(flavors['bad']['total'])
        self.assertIn('hw:cpu_policy', flavors['bad']['error'])
        status = self.store.reader.status()
        self.assertEqual(0, status['consecutive_failures'])
        self.assertEqual(7, status['api_calls'])
        self.assertIsNotNone(status['last_success_at'])
        self.assertEqual(7, self.store.reader.current()['api_calls'])

    def test_a_refresh_overtaken_by_another_worker_is_dropped(self):
        self.assertTrue(self.refresher.refresh())
        status = self.store.reader.status()
        other = publisher.Publisher(self.backend, 'test', 600)
        collect = self.source.collect

        def paused_while_another_publishes(client, scope=None, hosts=None):
            # This worker paused past its lease; the next leader
            # published meanwhile.
            other.publish({'x': b'1'}, {'by': 'the next leader'},
                          snapshot_time())
            return collect(client, scope, hosts)
        self.source.collect = paused_while_another_publishes
        with self.assertLogs(refresh.LOG.logger, 'WARNING') as logs:
            self.assertFalse(self.refresher.refresh())
        self.assertEqual('the next leader', self.store.reader.current()['by'])
        self.assertEqual(2, self.store.reader.current()[pub.SEQUENCE])
        self.assertIn('Refresh dropped: another worker published '
                      'generation 2 while this one worked from generation '
                      '1', logs.output[0])
        # The status is the next leader's business, not a failure here.
        self.assertEqual(status, self.store.reader.status())
        # Nor is its lost data: nothing is published again.
        self.assertFalse(self.refresher.ensure_published())

    def test_the_source_is_made_at_the_first_refresh(self):
        self.useFixture(fixtures.MockPatch(
            'flavor_exporter.worker.refresh.make_source',
            return_value=self.source))
        refresher = refresh.Refresher(self.conf, self.store,
                                      client=object())
        self.assertTrue(refresher.refresh())
        self.assertEqual(1, self.source.calls)

    def test_an_unchanged_cloud_is_published_again_without_computing(self):
        self.assertTrue(self.refresher.refresh())
        first = self.store.reader.current()
        computed = []
        compute = engine.compute
        self.useFixture(fixtures.MockPatch(
            'flavor_exporter.capacity.engine.compute',
            side_effect=lambda *a, **k: computed.append(1) or compute(
                *a, **k)))
        self.assertTrue(self.refresher.refresh())
        second = self.store.reader.current()
        self.assertEqual([], computed)
        self.assertEqual(first[pub.SEQUENCE] + 1, second[pub.SEQUENCE])
        self.assertEqual(first[pub.MANIFEST], second[pub.MANIFEST])
        self.assertEqual(7, self.v3_list()['flavors'][1]['total'])
        # A cloud that changed is computed again.
        self.source.hosts = (2, 0)
        self.assertTrue(self.refresher.refresh())
        self.assertEqual([1], computed)
        self.assertEqual(14, {f['name']: f for f in self.v3_list()[
            'flavors']}['small']['total'])

    def test_unreadable_hosts_within_the_bound_are_published(self):
        self.source.hosts = (9, 1)  # 10 %: the default bound
        self.assertTrue(self.refresher.refresh())
        listed = self.v3_list()
        # The names are published apart: the API shows them only to
        # those who may see hosts.
        self.assertEqual((True, 1), (listed[pub.PARTIAL],
                                     listed[pub.UNREADABLE_COUNT]))
        self.assertNotIn(pub.UNREADABLE_HOSTS, listed)
        pointer = self.store.reader.current()
        names = json.loads(self.store.reader.document(pointer,
                                                      pub.UNREADABLE))
        self.assertEqual({'x0': 'resource provider x0: answered 500'},
                         names)
        small = listed['flavors'][1]
        self.assertEqual('small', small['name'])
        self.assertEqual(9 * 7, small['total'])
        self.assertEqual(1, pointer[pub.UNREADABLE_COUNT])
        hosts = json.loads(self.store.reader.document(
            pointer, pub.v3_flavor_hosts('f1')))
        self.assertEqual(1, hosts[pub.EXCLUDED][engine.UNREADABLE])
        status = self.store.reader.status()
        self.assertEqual(names, status[pub.UNREADABLE_HOSTS])
        self.assertEqual(1, status[pub.UNREADABLE_COUNT])

    def test_unreadable_hosts_beyond_the_bound_fail_the_refresh(self):
        self.assertTrue(self.refresher.refresh())
        good = self.store.reader.current()
        self.source.hosts = (8, 2)
        self.assertFalse(self.refresher.refresh())
        self.assertEqual(good, self.store.reader.current())
        status = self.store.reader.status()
        self.assertEqual(1, status['consecutive_failures'])
        self.assertIn(
            '2 of 10 hosts unreadable, more than '
            '[capacity] max_unreadable_hosts_percent=10 allows; the last '
            'good data stays published. First: x0: resource provider x0: '
            'answered 500; x1: resource provider x1: answered 500',
            status['last_error']['message'])
        # The status still describes the data served: the last good one.
        self.assertEqual(0, status[pub.UNREADABLE_COUNT])
        self.flags(group='capacity', max_unreadable_hosts_percent=20)
        self.assertTrue(self.refresher.refresh())
        self.flags(group='capacity', max_unreadable_hosts_percent=0)
        self.source.hosts = (100, 1)
        self.assertFalse(self.refresher.refresh())

    def test_failure_keeps_last_good_generation(self):
        self.assertTrue(self.refresher.refresh())
        good = self.store.reader.current()
        for error in (openstack.CloudError('compute GET /x answered 500'),
                      TimeoutError('read timed out'),
                      KeyError('id')):
            self.source.error = error
            self.assertFalse(self.refresher.refresh())
            self.assertEqual(good, self.store.reader.current())
        status = self.store.reader.status()
        self.assertEqual(3, status['consecutive_failures'])
        self.assertIn('KeyError', status['last_error']['message'])
        self.source.error = None
        self.assertTrue(self.refresher.refresh())
        self.assertEqual(0, self.store.reader.status()['consecutive_failures'])
        self.assertNotEqual(good['generation'],
                            self.store.reader.current()['generation'])

    def test_a_failure_not_to_record_leaves_the_status_alone(self):
        self.assertTrue(self.refresher.refresh())
        recorded = self.store.reader.status()
        self.source.error = openstack.CloudError('no credentials')
        self.assertFalse(self.refresher.refresh(record_failure=False))
        self.assertEqual(recorded, self.store.reader.status())

    def test_failure_is_one_error_line(self):
        logs = self.useFixture(fixtures.FakeLogger(
            name='flavor_exporter.worker.refresh', level=logging.INFO,
            format='%(levelname)s %(message)s'))
        # A chain as keystoneauth raises it: the root cause is last.
        try:
            try:
                raise ConnectionRefusedError(111, 'Connection refused')
            except OSError as refused:
                raise openstack.CloudError(
                    'placement GET /resource_providers failed') from refused
        except openstack.CloudError as exc:
            self.source.error = exc
        self.assertFalse(self.refresher.refresh())
        lines = logs.output.splitlines()
        self.assertEqual(
            ['ERROR Capacity refresh failed, the last good data stays '
             'published: placement GET /resource_providers failed (cause: '
             '[Errno 111] Connection refused); check that the service is '
             'up and reachable from this host'], lines)
        self.assertNotIn('Traceback', logs.output)
        self.assertEqual(
            lines[0].split('published: ', 1)[1],
            self.store.reader.status()['last_error']['message'])

    def test_a_failure_the_caller_reports_is_not_logged_as_an_error(self):
        self.source.error = RuntimeError('Placement answered 500')
        with self.assertLogs(refresh.LOG.logger, 'DEBUG') as logs:
            self.assertFalse(self.refresher.refresh(log_failure=False))
        self.assertEqual([], [line for line in logs.output
                              if line.startswith('ERROR')])
        self.assertIn('Placement answered 500', self.refresher.last_error)

    def test_failure_traceback_at_debug(self):
        logs = self.useFixture(fixtures.FakeLogger(
            name='flavor_exporter.worker.refresh', level=logging.DEBUG))
        self.source.error = KeyError('id')
        self.assertFalse(self.refresher.refresh())
        self.assertIn('Traceback', logs.output)
        self.assertIn("KeyError: 'id'", logs.output)

    def test_cache_failure_does_not_raise(self):
        broken = publisher.Publisher(BrokenBackend(), 'test', 600)
        refresher = refresh.Refresher(self.conf, broken, client=object(),
                                      source=self.source)
        self.assertFalse(refresher.refresh())

    def test_lost_cache_is_refilled_with_last_good_data(self):
        self.assertFalse(self.refresher.ensure_published())
        self.assertTrue(self.refresher.refresh())
        before = self.store.reader.current()
        self.assertFalse(self.refresher.ensure_published())
        self.backend._items.clear()  # what a memcached restart does
        self.assertTrue(self.refresher.ensure_published())
        after = self.store.reader.current()
        self.assertEqual(before['timestamp'], after['timestamp'])
        self.assertEqual(1, self.source.calls)
        self.assertEqual(2, len(self.v3_list()['flavors']))

    def test_problems_are_published_in_the_status(self):
        self.source.problems = ['server vm1 on host3: flavor unreadable']
        self.assertTrue(self.refresher.refresh())
        status = self.store.reader.status()
        self.assertEqual(['server vm1 on host3: flavor unreadable'],
                         status['problems'])
        self.assertEqual(1, status['problem_count'])
        # A failed refresh keeps those of the data still published.
        self.source.error = TimeoutError('read timed out')
        self.assertFalse(self.refresher.refresh())
        self.assertEqual(1, self.store.reader.status()['problem_count'])
        self.source.error = None
        self.source.problems = []
        self.assertTrue(self.refresher.refresh())
        status = self.store.reader.status()
        self.assertEqual(([], 0), (status['problems'],
                                   status['problem_count']))

    def test_published_problems_are_bounded(self):
        self.source.problems = ['problem %d' % i for i in range(250)]
        self.assertTrue(self.refresher.refresh())
        status = self.store.reader.status()
        self.assertEqual(refresh.PROBLEMS_PUBLISHED, len(status['problems']))
        self.assertEqual('problem 0', status['problems'][0])
        self.assertEqual(250, status['problem_count'])

    def test_given_options_are_used_as_given(self):
        # Commands parse [pci] alias once, at start, and hand it down.
        self.flags(group='pci', alias=['{"name": '])
        refresher = refresh.Refresher(self.conf, self.store, client=object(),
                                      source=self.source,
                                      options=engine.Options())
        self.assertTrue(refresher.refresh())


class TestEngineOptions(base.TestCase):

    def test_aliases_parsed(self):
        self.flags(group='pci', alias=[
            '{"name": "V100", "vendor_id": "10de", "product_id": "1db4"}'])
        options = refresh.engine_options(self.conf)
        self.assertEqual(['V100'], list(options.aliases))
        self.assertEqual('CUSTOM_PCI_10DE_1DB4',
                         options.aliases['V100'].placement_resource_class)

    def test_bad_alias_names_the_option(self):
        self.flags(group='pci', alias=['{"name": '])
        exc = self.assertRaises(exceptions.InvalidOption,
                                refresh.engine_options, self.conf)
        self.assertTrue(str(exc).startswith('[pci] alias {"name": : not '
                                            'valid JSON'), str(exc))
        self.assertNotIn('\n', str(exc))

    def test_refresher_without_options_refuses_a_bad_alias(self):
        self.flags(group='pci', alias=['{"name": "x"}'])
        exc = self.assertRaises(exceptions.InvalidOption, refresh.Refresher,
                                self.conf)
        self.assertEqual("[pci] alias 'x' needs vendor_id and product_id, "
                         "or resource_class", str(exc))


class BrokenBackend(cache.MemoryBackend):

    def get(self, key):
        raise cache.CacheError('memcached is gone')

    def gets_replica(self, replica, key):
        raise cache.CacheError('memcached is gone')

    def set_many(self, values, ttl):
        raise cache.CacheError('memcached is gone')
