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
"""The shared cache of resource providers, against a real memcached.

Entries are keyed by provider and generation; whatever the store holds, a
collect's snapshot is the one Placement's answers give (the canned cloud
of test_placement_source), and only the calls differ.
"""

import json

import fixtures

from flavor_exporter.capacity import model
from flavor_exporter.publication import cache
from flavor_exporter.publication import publisher as publisher_mod
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.worker import fakes
from flavor_exporter.tests.unit.worker import test_placement_source as tps
from flavor_exporter.tests.unit.worker import test_refresh
from flavor_exporter.worker import openstack
from flavor_exporter.worker import placement_source
from flavor_exporter.worker import provider_store
from flavor_exporter.worker import refresh
from flavor_exporter.worker import source as source_mod
from testcloud import loopback

UUID = '5a8e4c52-0d6b-4f0e-9d36-2b8f8f3a1c01'
INVENTORIES = {
    'VCPU': model.Inventory(total=64, reserved=2, min_unit=1, max_unit=16,
                            step_size=1, allocation_ratio=4.0),
    'MEMORY_MB': model.Inventory(total=257000, reserved=512, min_unit=1,
                                 max_unit=257000, step_size=1,
                                 allocation_ratio=1.5),
    'CUSTOM_PCI_10DE_20B0': model.Inventory(total=2, max_unit=2,
                                            step_size=2),
}
TRAITS = frozenset({'COMPUTE_NODE', 'HW_CPU_X86_AVX2'})


class TestEncoding(base.BaseTestCase):

    def test_round_trip_is_exact(self):
        data = provider_store.encode(UUID, 7, INVENTORIES, TRAITS, 1000.9)
        self.assertEqual((INVENTORIES, TRAITS, 1000),
                         provider_store.decode(UUID, 7, data))

    def test_key_names_provider_and_generation(self):
        self.assertEqual('pfx:rp:%s:7' % UUID,
                         provider_store.key('pfx', UUID, 7))
        self.assertNotEqual(provider_store.key('pfx', UUID, 7),
                            provider_store.key('pfx', UUID, 8))

    def test_misses(self):
        good = json.loads(provider_store.encode(UUID, 7, INVENTORIES,
                                                TRAITS, 1000))

        def changed(index, value):
            entry = json.loads(json.dumps(good))
            entry[index] = value
            return json.dumps(entry).encode()

        def inventory(field, value):
            entry = json.loads(json.dumps(good))
            entry[4]['VCPU'][field] = value
            return json.dumps(entry).encode()

        for data in [b'', b'not json', b'{}', b'[1, 2]',
                     changed(0, provider_store.FORMAT + 1),
                     changed(1, 'another-uuid'),
                     changed(2, 8),
                     changed(3, -1),
                     changed(4, []),
                     changed(5, 'COMPUTE_NODE'),
                     changed(5, [1]),
                     inventory(0, 0),          # total below 1
                     inventory(0, True),       # a bool is no count
                     inventory(1, -1),         # reserved
                     inventory(2, 0),          # min_unit
                     inventory(3, 1.5),        # max_unit
                     inventory(4, 0),          # step_size
                     inventory(5, 4),          # ratio written as a float
                     inventory(5, 0.0)]:
            self.assertIsNone(provider_store.decode(UUID, 7, data), data)
        self.assertIsNone(provider_store.decode(
            UUID, 7, json.dumps(good[:5]).encode()))


class MemcachedTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.memcached = self.useFixture(loopback.MemcachedFixture())
        self.flags(group='document_cache',
                   memcache_servers=self.memcached.servers)
        self.backend = cache.MemcachedBackend(self.memcached.servers,
                                              socket_timeout=0.5)
        self.addCleanup(self.backend.close)


class TestProviderStore(MemcachedTestCase):

    def test_load_finds_what_was_saved_at_its_generation(self):
        store = provider_store.ProviderStore(self.backend, 'c1')
        other = '6b9f5d63-1e7c-4a1f-8e47-3c9a9a4b2d02'
        store.save({UUID: (7, INVENTORIES, TRAITS, 1000),
                    other: (1, {}, frozenset(), 1000)})
        self.assertEqual({UUID: (INVENTORIES, TRAITS, 1000),
                          other: ({}, frozenset(), 1000)},
                         store.load({UUID: 7, other: 1}))
        # Generation moved: a miss; another cloud's prefix: a miss.
        self.assertEqual({other: ({}, frozenset(), 1000)},
                         store.load({UUID: 8, other: 1}))
        self.assertEqual({}, provider_store.ProviderStore(
            self.backend, 'c2').load({UUID: 7, other: 1}))

    def test_batches(self):
        self.useFixture(fixtures.MockPatchObject(
            provider_store, 'BATCH', 3))
        store = provider_store.ProviderStore(self.backend, 'c1')
        entries = {'%08d-0000-4000-8000-000000000000' % i:
                   (i, INVENTORIES, TRAITS, 5) for i in range(10)}
        store.save(entries)
        self.assertEqual(
            {uuid: (INVENTORIES, TRAITS, 5) for uuid in entries},
            store.load({uuid: entry[0] for uuid, entry in entries.items()}))

    def test_nothing_in_the_sample_asks_no_more(self):
        self.useFixture(fixtures.MockPatchObject(provider_store, 'BATCH', 3))
        self.useFixture(fixtures.MockPatchObject(provider_store, 'SAMPLE',
                                                 2))
        asked = []
        get_many = self.backend.get_many
        self.useFixture(fixtures.MockPatchObject(
            self.backend, 'get_many',
            lambda keys: (asked.append(len(keys)), get_many(keys))[1]))
        store = provider_store.ProviderStore(self.backend, 'c1')
        wanted = {'%08d-0000-4000-8000-000000000000' % i: i
                  for i in range(10)}
        self.assertEqual({}, store.load(wanted))
        self.assertEqual([2], asked)
        # One entry in the sample: every key is asked, 2 + 3 + 3 + 2.
        uuid = sorted(wanted)[1]
        store.save({uuid: (1, INVENTORIES, TRAITS, 5)})
        self.assertEqual({uuid: (INVENTORIES, TRAITS, 5)},
                         store.load(wanted))
        self.assertEqual([2, 2, 3, 3, 2], asked)

    def test_damaged_entry_is_a_miss(self):
        store = provider_store.ProviderStore(self.backend, 'c1')
        store.save({UUID: (7, INVENTORIES, TRAITS, 1000)})
        self.backend.set_many({provider_store.key('c1', UUID, 7): b'[1,'},
                              60)
        self.assertEqual({}, store.load({UUID: 7}))

    def test_cache_down(self):
        store = provider_store.ProviderStore(self.backend, 'c1')
        store.save({UUID: (7, INVENTORIES, TRAITS, 1000)})
        self.memcached.stop()
        self.assertEqual({}, store.load({UUID: 7}))
        self.assertRaises(cache.CacheError, store.save,
                          {UUID: (7, INVENTORIES, TRAITS, 1000)})


class TestSourceWithStore(MemcachedTestCase):
    """Two workers in turn: the second starts from what the first read."""

    def setUp(self):
        super().setUp()
        self.flags(group='checks', enabled=False)
        self.cloud = tps.FakeCloud()
        gpu = self.cloud.add_compute('gpu1.example.org', service_host='gpu1',
                                     usages={'VCPU': 8})
        self.vgpu = self.cloud.add_vgpu_child(gpu, '0000:81:00.0', used=4)
        self.pci = self.cloud.add_compute('pci1')
        self.cloud.add_pci_child(self.pci, '0000:3b:00.0', used=1)
        self.cloud.add_flavor('m1.small')
        self.now = 10000000
        self.providers = 4

    def worker(self):
        """(source, client) of a new worker process sharing the cache."""
        store = provider_store.ProviderStore(self.backend, 'cloud')
        source = placement_source.PlacementSource(
            self.conf, store=store, clock=lambda: self.now)
        return source, fakes.FakeClient(answer=self.cloud.answer)

    @staticmethod
    def refresh(source, client):
        """A collect, then share() as the Refresher does once published."""
        snapshot = source.collect(client)
        source.share()
        return snapshot

    @staticmethod
    def view(snapshot):
        return [[(p.uuid, p.name, p.parent_uuid, p.inventories, p.usages,
                  p.traits, p.generation) for p in host.providers]
                for host in snapshot.hosts]

    @staticmethod
    def reads(client):
        return sorted(path for path in client.paths()
                      if path.startswith('/resource_providers/'))

    def test_a_new_leader_reads_no_provider_again(self):
        first, client = self.worker()
        cold = self.refresh(first, client)
        self.assertEqual(self.providers, len(self.reads(client)))
        self.assertEqual(0, first.last_stats['providers_shared'])

        second, client = self.worker()
        snapshot = self.refresh(second, client)
        self.assertEqual([], self.reads(client))
        self.assertEqual(self.view(cold), self.view(snapshot))
        self.assertEqual(
            {'providers': self.providers, 'providers_fetched': 0,
             'providers_reused': self.providers,
             'providers_shared': self.providers},
            {k: v for k, v in second.last_stats.items()
             if k.startswith('providers')})
        # Its own next refresh needs nothing from the store.
        client.requests.clear()
        self.refresh(second, client)
        self.assertEqual(0, second.last_stats['providers_shared'])

    def test_moved_generation_is_read_from_placement(self):
        first, client = self.worker()
        self.refresh(first, client)
        rp = self.cloud.providers[self.vgpu]
        rp['inventories']['VGPU'] = tps._inventory(8)
        rp['traits'].append('CUSTOM_NVIDIA_12')
        self.cloud.bump(self.vgpu)

        second, client = self.worker()
        snapshot = self.refresh(second, client)
        self.assertEqual(['/resource_providers/%s/inventories' % self.vgpu],
                         self.reads(client))
        child = [p for host in snapshot.hosts for p in host.providers
                 if p.uuid == self.vgpu][0]
        self.assertEqual(8, child.inventories['VGPU'].total)
        self.assertIn('CUSTOM_NVIDIA_12', child.traits)
        # What the second read is shared in turn.
        third, client = self.worker()
        self.assertEqual(self.view(snapshot),
                         self.view(self.refresh(third, client)))
        self.assertEqual([], self.reads(client))

    def test_damaged_entry_is_read_from_placement(self):
        first, client = self.worker()
        self.refresh(first, client)
        generation = self.cloud.providers[self.vgpu]['generation']
        self.backend.set_many(
            {provider_store.key('cloud', self.vgpu, generation): b'{'}, 60)
        second, client = self.worker()
        self.refresh(second, client)
        self.assertEqual(['/resource_providers/%s/inventories' % self.vgpu],
                         self.reads(client))

    def test_unusable_answer_is_not_shared(self):
        self.cloud.providers[self.vgpu]['inventories']['VGPU']['total'] = -1
        first, client = self.worker()
        self.assertIn('gpu1', tps.PlacementSourceTestCase.unreadable(
            self.refresh(first, client)))
        second, client = self.worker()
        self.refresh(second, client)
        self.assertEqual(['/resource_providers/%s/inventories' % self.vgpu],
                         self.reads(client))

    def test_failed_collect_shares_nothing(self):
        # Usages read one by one, the last one's unanswered (Placement
        # unreachable): the refresh fails after the others were read.
        self.cloud.candidates_error = openstack.CloudError(
            'placement GET /allocation_candidates answered 406', status=406)
        first, client = self.worker()
        client.bodies['/resource_providers/%s/usages' % self.pci] = (
            openstack.CloudError('placement unreachable'))
        self.assertRaises(openstack.CloudError, first.collect, client)
        first.share()
        self.assertIn('/resource_providers/%s/inventories' % self.vgpu,
                      client.paths())
        self.cloud.candidates_error = None
        second, client = self.worker()
        self.refresh(second, client)
        self.assertEqual(self.providers, len(self.reads(client)))

    def test_cache_down_costs_calls_only(self):
        first, client = self.worker()
        cold = self.refresh(first, client)
        self.memcached.stop()
        second, client = self.worker()
        with self.assertLogs(source_mod.LOG.logger, 'WARNING') as logs:
            snapshot = self.refresh(second, client)
        self.assertEqual(self.view(cold), self.view(snapshot))
        self.assertEqual(self.providers, len(self.reads(client)))
        self.assertIn('Could not write the resource providers to the '
                      'shared cache', '\n'.join(logs.output))

    def test_collect_alone_shares_nothing(self):
        first, client = self.worker()
        first.collect(client)
        second, client = self.worker()
        second.collect(client)
        self.assertEqual(self.providers, len(self.reads(client)))

    def test_entries_written_again_once_old(self):
        first, client = self.worker()
        self.refresh(first, client)
        written = []
        save = provider_store.ProviderStore.save
        self.useFixture(fixtures.MockPatchObject(
            provider_store.ProviderStore, 'save',
            lambda store, entries: (written.append(sorted(entries)),
                                    save(store, entries))))
        self.refresh(first, client)
        self.assertEqual([], written)
        self.now += provider_store.REWRITE_AFTER + 1
        self.refresh(first, client)
        self.assertEqual(1, len(written))
        self.assertEqual(self.providers, len(written[0]))
        # A new leader learns when they were written: not again.
        second, client = self.worker()
        self.refresh(second, client)
        self.assertEqual(1, len(written))


class TestRefresherStore(MemcachedTestCase):

    def test_shared_once_published(self):
        shared = []

        class Source(test_refresh.FakeSource):
            def share(self):
                shared.append(self.calls)

        source = Source()
        refresher = refresh.Refresher(
            self.conf, publisher_mod.Publisher(cache.MemoryBackend(), 'fe',
                                               60),
            client=object(), source=source)
        self.assertTrue(refresher.refresh())
        self.assertEqual([1], shared)
        source.error = openstack.CloudError('down')
        self.assertFalse(refresher.refresh())
        self.assertEqual([1], shared)

    def test_only_memcached_is_shared(self):
        shared = refresh.Refresher(self.conf, publisher_mod.Publisher(
            self.backend, 'fe', 60))
        self.assertIsInstance(shared.provider_store(),
                              provider_store.ProviderStore)
        alone = refresh.Refresher(self.conf, publisher_mod.Publisher(
            cache.MemoryBackend(), 'fe', 60))
        self.assertIsNone(alone.provider_store())
        self.assertIsNone(refresh.Refresher(self.conf).provider_store())
