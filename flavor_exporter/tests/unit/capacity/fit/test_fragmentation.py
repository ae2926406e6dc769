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
"""Fragmentation: hand-counted clouds, and the fast path against the
host-by-host definition on the random clouds of test_fast_path."""

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.filters import tenancy
from flavor_exporter.capacity import model
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity.fit import test_fast_path


def host(name, zone, vcpus, used_vcpus, ram=65536, used_ram=0,
         gpus=None, aggregates=()):
    root = model.Provider(
        'rp-' + name, name,
        inventories={'VCPU': model.Inventory(vcpus),
                     'MEMORY_MB': model.Inventory(ram),
                     'DISK_GB': model.Inventory(1000)},
        usages={'VCPU': used_vcpus, 'MEMORY_MB': used_ram})
    return model.Host(name, name, availability_zone=zone, providers=[root],
                      gpu_pools=[model.GpuPool(*gpus)] if gpus else [],
                      aggregates=list(aggregates))


def figures(hosts, flavors, options=None):
    snapshot = model.Snapshot('placement', flavors, hosts)
    options = options or engine.Options()
    fast = engine.compute(snapshot, options)
    slow = engine.reference_compute(snapshot, options)
    return fast, slow


class TestHandCounted(base.BaseTestCase):

    def test_leftovers_pooled_per_zone(self):
        # 8-VCPU flavor. az1: three hosts with 4, 6 and 2 VCPUs free
        # (12: pooled 1, none fits now); az2: one host with 12 free
        # (pooled 1, 1 fits). Pooling never crosses a zone.
        hosts = [host('a', 'az1', 16, 12), host('b', 'az1', 16, 10),
                 host('c', 'az1', 16, 14), host('d', 'az2', 16, 4)]
        flavor = model.Flavor('f', 'f8', vcpus=8, ram=1024, disk=10)
        fast, slow = figures(hosts, [flavor])
        for report in (fast, slow):
            result = report.flavors[0]
            self.assertEqual(1, result.available)
            got = result.fragmentation
            self.assertEqual(2, got.pooled)
            self.assertEqual(1, got.fragmented)
            self.assertEqual({'az1': 1}, got.zones)
            # Closest to one more first: b (6 of 8), a (4), c (2).
            self.assertEqual(['b', 'a', 'c'],
                             [f.host for f in got.fragments])
            self.assertEqual({'DISK_GB': 1000, 'MEMORY_MB': 65536,
                              'VCPU': 6}, got.fragments[0].leftover)
            self.assertEqual(0.75, got.fragments[0].closeness)

    def test_the_scarcest_class_decides(self):
        # 12 VCPU free over two hosts but only 3 GiB of RAM: pooled 1.
        hosts = [host('a', 'az1', 8, 2, ram=4096, used_ram=2048),
                 host('b', 'az1', 8, 2, ram=4096, used_ram=3072)]
        flavor = model.Flavor('f', 'f', vcpus=8, ram=2048, disk=10)
        fast, slow = figures(hosts, [flavor])
        for report in (fast, slow):
            got = report.flavors[0].fragmentation
            self.assertEqual((1, 1), (got.pooled, got.fragmented))

    def test_gpu_pools_and_gpu_types(self):
        # 2 + 2 free a100s on hosts with room: a 4-GPU flavor fits
        # nowhere, pooled 1; a 1-GPU flavor fits all 4, nothing lost.
        hosts = [host('a', 'az1', 64, 0, gpus=('a100', 4, 2)),
                 host('b', 'az1', 64, 0, gpus=('a100', 4, 2))]
        four = model.Flavor('g4', 'gpu4', vcpus=8, ram=1024, disk=10,
                            extra_specs={'pci_passthrough:alias': 'a100:4'})
        one = model.Flavor('g1', 'gpu1', vcpus=8, ram=1024, disk=10,
                           extra_specs={'pci_passthrough:alias': 'a100:1'})
        fast, slow = figures(hosts, [four, one])
        for report in (fast, slow):
            by_name = {r.flavor.name: r.fragmentation
                       for r in report.flavors}
            self.assertEqual(1, by_name['gpu4'].fragmented)
            self.assertEqual(0, by_name['gpu1'].fragmented)
            self.assertEqual([], by_name['gpu1'].fragments)
            [a100] = report.gpus
            self.assertEqual(4, a100.fragmented)
            self.assertEqual({'gpu1': 0, 'gpu4': 1},
                             a100.fragmented_by_flavor)

    def test_hosts_the_flavor_may_not_use_add_nothing(self):
        # A host in an aggregate the flavor's metadata does not match
        # has free VCPUs that do not count.
        other = model.Aggregate('other', {'kind': 'other'})
        mine = model.Aggregate('mine', {'kind': 'mine'})
        hosts = [host('a', 'az1', 16, 10, aggregates=[mine]),
                 host('b', 'az1', 16, 10, aggregates=[other]),
                 host('c', 'az1', 16, 12, aggregates=[mine])]
        flavor = model.Flavor('f', 'f', vcpus=8, ram=1024, disk=10,
                              extra_specs={
                                  'aggregate_instance_extra_specs:kind':
                                  'mine'})
        fast, slow = figures(hosts, [flavor])
        for report in (fast, slow):
            got = report.flavors[0].fragmentation
            self.assertEqual((1, 1), (got.pooled, got.fragmented))
            self.assertEqual(['a', 'c'], [f.host for f in got.fragments])

    def test_reserved_hosts_are_not_pooled(self):
        # Tenant isolation: a host only project p may use is counted
        # apart (reserved), and so it is not pooled either.
        aggregate = model.Aggregate('p', {'filter_tenant_id': 'p'})
        hosts = [host('a', 'az1', 16, 12),
                 host('b', 'az1', 16, 12, aggregates=[aggregate])]
        flavor = model.Flavor('f', 'f', vcpus=8, ram=1024, disk=10)
        options = engine.Options(tenancy=tenancy.TenantIsolation(
            host_filter=True))
        fast, slow = figures(hosts, [flavor], options)
        for report in (fast, slow):
            got = report.flavors[0].fragmentation
            self.assertEqual((0, 0), (got.pooled, got.fragmented))


class TestFastMatchesReference(base.BaseTestCase):

    def test_random_clouds(self):
        seen = 0
        for seed in range(200):
            options = engine.Options(aliases=test_fast_path.ALIASES)
            cloud = test_fast_path.snapshot(seed)
            fast = engine.compute(cloud, options)
            slow = engine.reference_compute(cloud, options)
            for a, b in zip(slow.flavors, fast.flavors):
                self.assertEqual(a.fragmentation, b.fragmentation,
                                 'seed %d flavor %s' % (seed,
                                                        a.flavor.name))
                seen += bool(a.fragmentation and
                             a.fragmentation.fragmented)
            self.assertEqual(
                [(t.name, t.fragmented, t.fragmented_by_flavor)
                 for t in slow.gpus],
                [(t.name, t.fragmented, t.fragmented_by_flavor)
                 for t in fast.gpus], 'seed %d' % seed)
        # The random clouds are fragmented often enough to prove it.
        self.assertGreater(seen, 20)
