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

"""GPU devices by type: names, counts, stranded devices and why.

The small clouds here are worked out by hand; test_random_clouds holds
the fast path (host groups, the engine's per-host numbers) to the host by
host definition.
"""

import collections

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity.gpus import gpu_devices
from flavor_exporter.capacity.gpus import gpus
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.capacity.request import request as request_mod
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity.fit import test_fast_path

Inv = model.Inventory
A100 = 'CUSTOM_PCI_10DE_20B0'
ALIASES = pci_alias.parse_aliases([
    '{"name": "A100", "vendor_id": "10de", "product_id": "20b0"}',
    '{"name": "V100", "vendor_id": "10de", "product_id": "1db4"}'])


def root(name, vcpus=16, used_vcpus=0, ram=65536, used_ram=0, extra=None):
    inventories = {'VCPU': Inv(vcpus, max_unit=vcpus),
                   'MEMORY_MB': Inv(ram), 'DISK_GB': Inv(1000)}
    inventories.update(extra or {})
    return model.Provider('rp-' + name, name,
                          inventories=inventories,
                          usages={'VCPU': used_vcpus, 'MEMORY_MB': used_ram})


def child(host, index, rc, total=1, used=0, traits=()):
    if rc.startswith('CUSTOM_PCI_'):
        # Nova's own PCI device providers carry it (see fit._pci_unit).
        traits = (fit.MANAGED_PCI_TRAIT,) + tuple(traits)
    return model.Provider('rp-%s-%d' % (host, index),
                          '%s_%d' % (host, index), parent_uuid='rp-' + host,
                          inventories={rc: Inv(total, max_unit=total)},
                          usages={rc: used}, traits=frozenset(traits))


def host(name, providers, zone='az1', pools=(), enabled=True, **kwargs):
    return model.Host(name, name, enabled=enabled, availability_zone=zone,
                      providers=providers, gpu_pools=list(pools), **kwargs)


def flavor(name, vcpus=4, ram=4096, **specs):
    return model.Flavor('id-' + name, name, vcpus=vcpus, ram=ram, disk=10,
                        extra_specs=specs)


def types(hosts, flavors, aliases=ALIASES):
    snapshot = model.Snapshot('placement', flavors, hosts)
    options = engine.Options(aliases=aliases)
    fast = engine.compute(snapshot, options).gpus
    # Every test holds the fast path to the definition too.
    assert fast == engine.reference_compute(snapshot, options).gpus
    return {t.name: t for t in fast}


def a100_host(name, used=(0, 0), zone='az1', **kwargs):
    return host(name, [root(name, **kwargs)] + [
        child(name, i, A100, used=u) for i, u in enumerate(used)],
        zone=zone)


A100_1 = flavor('a100.1', vcpus=8, **{'pci_passthrough:alias': 'A100:1'})


class TestTypes(base.BaseTestCase):

    def test_named_by_alias_else_by_class_and_custom_traits(self):
        found = types([host('h', [
            root('h', extra={'CUSTOM_FPGA': Inv(2)}),
            child('h', 0, A100),
            child('h', 1, 'VGPU', 4, traits=('CUSTOM_NVIDIA_11',
                                             'HW_GPU_API_VULKAN')),
            child('h', 2, 'VGPU', 2),
            child('h', 3, 'CUSTOM_PCI_10DE_1234'),
            child('h', 4, 'SRIOV_NET_VF', 8)])], [])
        # The root's custom class is the compute node's, not a device;
        # standard traits do not name a type, custom ones do.
        self.assertEqual(['A100', 'CUSTOM_PCI_10DE_1234', 'VGPU',
                          'VGPU:CUSTOM_NVIDIA_11'], sorted(found))
        self.assertEqual(gpu_devices.Kind('A100', A100, ()),
                         found['A100'].kind)
        self.assertEqual(gpu_devices.Kind('VGPU:CUSTOM_NVIDIA_11', 'VGPU',
                                          ('CUSTOM_NVIDIA_11',)),
                         found['VGPU:CUSTOM_NVIDIA_11'].kind)
        self.assertEqual({'placement'}, found['VGPU'].counted_from)

    def test_aggregate_pool_only_where_placement_lacks_the_class(self):
        pools = [model.GpuPool('A100', 2, used=1),
                 model.GpuPool('T4', 4, used=3)]
        found = types([
            host('legacy', [root('legacy')], pools=pools),
            host('both', [root('both'), child('both', 0, A100)],
                 pools=pools)], [])
        a100 = found['A100']
        # "both" has the class in Placement: its pool is not counted.
        self.assertEqual((3, 1, 2), (a100.devices.total, a100.devices.used,
                                     a100.devices.free))
        self.assertEqual({'placement', 'aggregates'}, a100.counted_from)
        # A pool no [pci] alias names has no class.
        self.assertEqual(gpu_devices.Kind('T4', None, ()), found['T4'].kind)
        self.assertEqual((8, 6, 2), (found['T4'].devices.total,
                                     found['T4'].devices.used,
                                     found['T4'].devices.free))

    def test_another_services_provider_of_an_alias_class(self):
        cyborg = child('h', 1, 'VGPU')
        cyborg.inventories = {A100: Inv(1)}
        cyborg.usages = {}
        found = types([host('h', [root('h'), child('h', 0, A100), cyborg],
                            pools=[model.GpuPool('A100', 2)])], [A100_1])
        # Not Nova's: PciPassthroughFilter refuses it to the alias, so it
        # is a type of its class, which no flavor requests; Nova's device
        # makes the aggregate's count idle, as in fit.
        self.assertEqual({'A100': (1, 0), A100: (1, 1)}, {
            name: (t.devices.free, t.devices.stranded)
            for name, t in found.items()})
        self.assertEqual({'placement'}, found['A100'].counted_from)

    def test_capacity_and_overcommitted_usage(self):
        reserved = child('h', 0, 'VGPU', 4)
        reserved.inventories['VGPU'] = Inv(4, reserved=1)
        over = child('h', 1, 'VGPU', 2, used=3)
        found = types([host('h', [root('h'), reserved, over])], [])
        devices = found['VGPU'].devices
        # Placement's capacity (4 - 1) + 2; free never below 0 per
        # provider.
        self.assertEqual((5, 3, 3), (devices.total, devices.used,
                                     devices.free))

    def test_unreadable_host_is_not_counted(self):
        hosts = [a100_host('a'), host('b', [], pools=[model.GpuPool(
            'A100', 2)], unreadable='resource provider rp-b: HTTP 500')]
        self.assertEqual(['a'], [row.host for row in types(
            hosts, [A100_1])['A100'].hosts])

    def test_zones(self):
        found = types([a100_host('a', zone='az1', used=(1, 0)),
                       a100_host('b', zone='az2'),
                       a100_host('c', zone='az2', used=(1, 1))], [A100_1])
        zones = {zone: (d.total, d.used, d.free, d.stranded)
                 for zone, d in found['A100'].zones.items()}
        self.assertEqual({'az1': (2, 1, 1, 0), 'az2': (4, 2, 2, 0)}, zones)


class TestStranded(base.BaseTestCase):

    def rows(self, found, name):
        return {row.host: (row.free, row.stranded, row.blocked_by)
                for row in found[name].hosts}

    def test_free_devices_where_cpu_or_ram_is_full(self):
        found = types([
            a100_host('cpu-full', used_vcpus=12),
            a100_host('ram-full', used_ram=63000),
            a100_host('fits', used=(1, 0))], [A100_1])
        self.assertEqual({'cpu-full': (2, 2, 'VCPU'),
                          'ram-full': (2, 2, 'MEMORY_MB'),
                          'fits': (1, 0, None)}, self.rows(found, 'A100'))
        devices = found['A100'].devices
        self.assertEqual((5, 4, {'VCPU': 2, 'MEMORY_MB': 2}),
                         (devices.free, devices.stranded,
                          dict(devices.stranded_by)))

    def test_too_few_devices_left_for_any_flavor(self):
        two = flavor('a100.2', **{'pci_passthrough:alias': 'A100:2'})
        four = flavor('a100.4', **{'pci_passthrough:alias': 'A100:4'})
        found = types([a100_host('one-left', used=(1, 0)),
                       a100_host('empty')], [two, four])
        # a100.2 is limited by the devices (one left) and a100.4 does not
        # fit a two-device host at all: a tie goes to the first by name.
        self.assertEqual({'one-left': (1, 1, A100), 'empty': (2, 0, None)},
                         self.rows(found, 'A100'))
        found = types([a100_host('empty')], [four])
        self.assertEqual({'empty': (2, 2, gpus.DOES_NOT_FIT)},
                         self.rows(found, 'A100'))

    def test_host_the_scheduler_does_not_consider(self):
        found = types([
            host('off', [root('off'), child('off', 0, A100)],
                 enabled=False),
            host('down', [root('down'), child('down', 0, A100)], up=False),
            host('fast', [root('fast'), child('fast', 0, A100)])],
            [flavor('picky', **{'pci_passthrough:alias': 'A100:1',
                                'aggregate_instance_extra_specs:ssd':
                                    'true'})])
        self.assertEqual({'off': (1, 1, 'compute service disabled'),
                          'down': (1, 1, 'compute service down'),
                          'fast': (1, 1, 'aggregate metadata does not '
                                         'match')},
                         self.rows(found, 'A100'))

    def test_no_flavor_requests_them(self):
        found = types([a100_host('a')], [flavor('plain')])
        self.assertEqual({'a': (2, 2, gpus.NO_FLAVOR)},
                         self.rows(found, 'A100'))

    def test_a_flavor_that_could_take_them_and_fits_is_enough(self):
        nvidia = ('CUSTOM_NVIDIA_11',)
        hosts = [host('h', [root('h', vcpus=4, used_vcpus=2),
                            child('h', 0, 'VGPU', 2, traits=nvidia),
                            child('h', 1, 'VGPU', 2)])]
        big = flavor('big.nvidia', vcpus=3, **{
            'resources:VGPU': '1', 'trait:CUSTOM_NVIDIA_11': 'required'})
        small = flavor('small.any', vcpus=2, **{'resources:VGPU': '1'})
        found = types(hosts, [big])
        # big.nvidia asks for the traited type only, and does not fit.
        self.assertEqual({'h': (2, 2, 'VCPU')},
                         self.rows(found, 'VGPU:CUSTOM_NVIDIA_11'))
        self.assertEqual({'h': (2, 2, gpus.NO_FLAVOR)},
                         self.rows(found, 'VGPU'))
        # small.any could take devices of both types, and fits.
        found = types(hosts, [big, small])
        self.assertEqual({'h': (2, 0, None)},
                         self.rows(found, 'VGPU:CUSTOM_NVIDIA_11'))
        self.assertEqual({'h': (2, 0, None)}, self.rows(found, 'VGPU'))

    def test_most_flavors_name_what_blocks(self):
        specs = {'pci_passthrough:alias': 'V100:1'}
        flavors = [flavor('cpu.%d' % i, vcpus=15 + i, ram=1024, **specs)
                   for i in range(2)]
        flavors.append(flavor('ram', vcpus=1, ram=8192, **specs))
        pools = [model.GpuPool('V100', 2)]
        found = types([host('v', [root('v', used_vcpus=2, used_ram=60000)],
                            pools=pools)], flavors)
        # Two flavors say VCPU, one MEMORY_MB (first by name in a tie).
        self.assertEqual({'v': (2, 2, 'VCPU')}, self.rows(found, 'V100'))
        self.assertEqual({'aggregates'}, found['V100'].counted_from)

    def test_flavors_with_one_request_count_once(self):
        specs = {'pci_passthrough:alias': 'A100:1'}
        cpu = flavor('cpu', vcpus=16, ram=1024, **specs)
        twin = flavor('cpu.twin', vcpus=16, ram=1024, **specs)
        ram = flavor('ram', vcpus=1, ram=65536, **specs)
        found = types([a100_host('a', used_vcpus=8, used_ram=1024)],
                      [cpu, twin, ram])
        # One request each, not two for VCPU: a tie, MEMORY_MB first.
        self.assertEqual({'a': (2, 2, 'MEMORY_MB')},
                         self.rows(found, 'A100'))


class TestFastPathMatchesReference(base.BaseTestCase):

    def test_random_clouds(self):
        options = engine.Options(aliases=test_fast_path.ALIASES)
        reasons = collections.Counter()
        # test_fast_path's clouds: fewer than it checks flavors on, as
        # each costs both paths again.
        for seed in range(120):
            cloud = test_fast_path.snapshot(seed)
            fast = engine.compute(cloud, options).gpus
            self.assertEqual(
                engine.reference_compute(cloud, options).gpus, fast,
                'seed %d' % seed)
            reasons.update(row.blocked_by for found in fast
                           for row in found.hosts if row.stranded)
        # The clouds reach what the test is about: devices stranded by a
        # class, by the host's state, and by no flavor at all.
        for reason in ('compute service disabled', gpus.NO_FLAVOR,
                       gpus.DOES_NOT_FIT):
            self.assertIn(reason, reasons)
        classes = {reason for reason in reasons if reason.isupper()}
        self.assertGreaterEqual(len(classes), 2, reasons)


class TestFlavorGpu(base.TestCase):
    """A flavor's GPUs named as the report's GPU types are."""

    KINDS = [gpu_devices.Kind('VGPU:CUSTOM_NVIDIA_11', 'VGPU',
                              ('CUSTOM_NVIDIA_11',)),
             gpu_devices.Kind('VGPU:CUSTOM_NVIDIA_12', 'VGPU',
                              ('CUSTOM_NVIDIA_12',)),
             gpu_devices.Kind('CUSTOM_FPGA', 'CUSTOM_FPGA', ()),
             gpu_devices.Kind('a100', 'CUSTOM_PCI_10DE_20B0', ())]

    def gpu(self, **specs):
        flavor = model.Flavor('f', 'f', vcpus=2, ram=1024, disk=10,
                              extra_specs=specs)
        return gpus.flavor_gpu(request_mod.build_request(flavor, {}),
                               self.KINDS)

    def test_none(self):
        self.assertIsNone(self.gpu())
        self.assertIsNone(self.gpu(**{'resources:CUSTOM_BAREMETAL': '1'}))

    def test_a_pci_alias_is_its_type(self):
        self.assertEqual(('a100', 2),
                         self.gpu(**{'pci_passthrough:alias': 'a100:2'}))
        self.assertEqual(('a100,t4', 3), self.gpu(
            **{'pci_passthrough:alias': 't4:1,a100:2'}))

    def test_vgpu_by_the_traits_of_its_group(self):
        self.assertEqual(('VGPU:CUSTOM_NVIDIA_11', 1), self.gpu(**{
            'resources1:VGPU': '1',
            'trait1:CUSTOM_NVIDIA_11': 'required'}))
        self.assertEqual(('VGPU:CUSTOM_NVIDIA_12', 2), self.gpu(**{
            'resources1:VGPU': '2',
            'trait1:CUSTOM_NVIDIA_11': 'forbidden'}))
        # Either type may serve it: one name, the class (any VGPU), not
        # a list of candidates.
        self.assertEqual(('VGPU', 1), self.gpu(**{'resources:VGPU': '1'}))

    def test_one_type_traited_or_not(self):
        # scenarios/gpu_types.yaml: untraited VGPUs beside traited ones.
        # The trait in the unnumbered group (Placement meets it anywhere
        # in the tree) still names the traited type only; the flavor
        # without it names the untraited type, as /v3/gpus/ names both.
        kinds = [gpu_devices.Kind('VGPU', 'VGPU', ()),
                 gpu_devices.Kind('VGPU:CUSTOM_NVIDIA_11', 'VGPU',
                                  ('CUSTOM_NVIDIA_11',))]

        def gpu(**specs):
            flavor = model.Flavor('f', 'f', vcpus=2, ram=1024, disk=10,
                                  extra_specs=specs)
            return gpus.flavor_gpu(request_mod.build_request(flavor, {}),
                                   kinds)
        self.assertEqual(('VGPU:CUSTOM_NVIDIA_11', 1), gpu(**{
            'resources:VGPU': '1', 'trait:CUSTOM_NVIDIA_11': 'required'}))
        self.assertEqual(('VGPU', 1), gpu(**{'resources:VGPU': '1'}))
        # A forbidden trait leaves one candidate: that type.
        self.assertEqual(('VGPU', 2), gpu(**{
            'resources1:VGPU': '2', 'trait1:CUSTOM_NVIDIA_11': 'forbidden'}))

    def test_vgpu_where_the_cloud_has_none(self):
        flavor = model.Flavor('f', 'f', vcpus=2, ram=1024, disk=10,
                              extra_specs={'resources:VGPU': '1'})
        self.assertEqual(('VGPU', 1), gpus.flavor_gpu(
            request_mod.build_request(flavor, {}), []))

    def test_a_device_class_of_a_child_provider(self):
        self.assertEqual(('CUSTOM_FPGA', 1),
                         self.gpu(**{'resources:CUSTOM_FPGA': '1'}))
