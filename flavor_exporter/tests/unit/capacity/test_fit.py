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

from flavor_exporter.capacity import fit
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request import PciDemand
from flavor_exporter.capacity.request import RequestGroup
from flavor_exporter.capacity.request import ResourceRequest
from flavor_exporter.tests import base

Inv = model.Inventory


def provider(uuid, parent=None, traits=(), usages=None, **inventories):
    return model.Provider(uuid=uuid, name=uuid, parent_uuid=parent,
                          inventories=inventories, usages=usages or {},
                          traits=frozenset(traits))


def host(*providers, pools=()):
    return model.Host(name='h', node='h.example.org',
                      providers=list(providers), gpu_pools=list(pools))


def compute_root(vcpus=28, ram=385534, disk=7392, usages=None, traits=()):
    return provider('root', traits=traits, usages=usages,
                    VCPU=Inv(vcpus, max_unit=vcpus, allocation_ratio=4.0),
                    MEMORY_MB=Inv(ram, reserved=512),
                    DISK_GB=Inv(disk))


def request(resources, *groups, pci=(), policy=None, required=(),
            forbidden=()):
    return ResourceRequest(
        groups=[RequestGroup(resources, frozenset(required),
                             frozenset(forbidden))] + list(groups),
        group_policy=policy, pci=list(pci))


BASIC = {'VCPU': 14, 'MEMORY_MB': 65535, 'DISK_GB': 51}


class TestRootOnly(base.BaseTestCase):

    def test_limited_by_the_scarcest_class(self):
        # VCPU 28*4/14 = 8, RAM (385534-512)/65535 = 5, disk 7392/51 = 144
        self.assertEqual((5, 'MEMORY_MB'),
                         fit.fit(request(BASIC), host(compute_root())))

    def test_usage_counts_unless_empty(self):
        root = compute_root(usages={'VCPU': 100, 'MEMORY_MB': 0})
        # (112 - 100) // 14 = 0 instances now, 5 when empty.
        self.assertEqual((0, 'VCPU'), fit.fit(request(BASIC), host(root)))
        self.assertEqual(5, fit.fit(request(BASIC), host(root),
                                    empty=True)[0])

    def test_overcommitted_host_is_zero_not_negative(self):
        root = compute_root(usages={'VCPU': 500})
        self.assertEqual(0, fit.fit(request(BASIC), host(root))[0])

    def test_max_unit_caps_one_allocation(self):
        # 29 vCPUs on a 28-core host never fit, whatever the ratio.
        self.assertEqual(0, fit.fit(request({'VCPU': 29}),
                                    host(compute_root()))[0])

    def test_step_size_and_min_unit(self):
        root = provider('root', CUSTOM_X=Inv(100, min_unit=4, step_size=4))
        self.assertEqual(0, fit.fit(request({'CUSTOM_X': 6}),
                                    host(root))[0])
        self.assertEqual(0, fit.fit(request({'CUSTOM_X': 2}),
                                    host(root))[0])
        self.assertEqual(12, fit.fit(request({'CUSTOM_X': 8}),
                                     host(root))[0])

    def test_missing_class_is_zero(self):
        self.assertEqual(0, fit.fit(request({'PCPU': 1}),
                                    host(compute_root()))[0])

    def test_required_and_forbidden_traits(self):
        root = compute_root(traits={'HW_CPU_X86_AVX2'})
        self.assertEqual(5, fit.fit(request(BASIC,
                                            required={'HW_CPU_X86_AVX2'}),
                                    host(root))[0])
        self.assertEqual(0, fit.fit(request(BASIC, required={'CUSTOM_Y'}),
                                    host(root))[0])
        self.assertEqual(0, fit.fit(request(BASIC,
                                            forbidden={'HW_CPU_X86_AVX2'}),
                                    host(root))[0])


class TestNested(base.BaseTestCase):

    def vgpu_host(self, used=(0, 0)):
        return host(compute_root(),
                    provider('pgpu0', 'root', usages={'VGPU': used[0]},
                             VGPU=Inv(4)),
                    provider('pgpu1', 'root', usages={'VGPU': used[1]},
                             VGPU=Inv(4)))

    def test_vgpu_children_add_up_without_double_counting(self):
        small = dict(VCPU=1, MEMORY_MB=1024, DISK_GB=1, VGPU=1)
        self.assertEqual((8, 'VGPU'), fit.fit(request(small),
                                              self.vgpu_host()))

    def test_vgpu_pair_must_come_from_one_parent_gpu(self):
        two = dict(VCPU=1, MEMORY_MB=1024, DISK_GB=1, VGPU=3)
        # 3 of 4 on each pGPU; the leftovers (1 + 1) cannot combine.
        self.assertEqual(2, fit.fit(request(two), self.vgpu_host())[0])
        self.assertEqual(1, fit.fit(request(two),
                                    self.vgpu_host(used=(2, 0)))[0])

    def pci_host(self, devices=4, used=0, traits=()):
        children = [provider('dev%d' % i, 'root', traits=traits,
                             usages={'CUSTOM_PCI_10DE_1DB4': int(i < used)},
                             CUSTOM_PCI_10DE_1DB4=Inv(1))
                    for i in range(devices)]
        return host(compute_root(), *children)

    def test_pci_devices_one_group_per_device(self):
        demand = PciDemand('V100', 2, 'CUSTOM_PCI_10DE_1DB4')
        req = request({'VCPU': 1, 'MEMORY_MB': 1}, pci=[demand])
        self.assertEqual((2, 'CUSTOM_PCI_10DE_1DB4'),
                         fit.fit(req, self.pci_host()))
        self.assertEqual(1, fit.fit(req, self.pci_host(used=1))[0])
        self.assertEqual(2, fit.fit(req, self.pci_host(used=1),
                                    empty=True)[0])

    def test_pci_alias_traits(self):
        demand = PciDemand('V100', 1, 'CUSTOM_PCI_10DE_1DB4',
                           frozenset({'CUSTOM_NVLINK'}))
        req = request({'VCPU': 1}, pci=[demand])
        self.assertEqual(0, fit.fit(req, self.pci_host())[0])
        self.assertEqual(4, fit.fit(req, self.pci_host(
            traits={'CUSTOM_NVLINK'}))[0])

    def test_isolated_numbered_groups(self):
        group = RequestGroup({'VGPU': 1}, suffix='1')
        other = RequestGroup({'VGPU': 1}, suffix='2')
        spread = request({'VCPU': 1}, group, other, policy='isolate')
        together = request({'VCPU': 1}, group, other, policy='none')
        tree = host(compute_root(),
                    provider('a', 'root', VGPU=Inv(3)),
                    provider('b', 'root', VGPU=Inv(1)))
        # isolate: each instance needs one VGPU on a and one on b.
        self.assertEqual(1, fit.fit(spread, tree)[0])
        self.assertEqual(2, fit.fit(together, tree)[0])

    def test_shared_class_between_groups_is_placed_one_by_one(self):
        numbered = RequestGroup({'VGPU': 2}, suffix='1')
        req = request({'VCPU': 1, 'VGPU': 1}, numbered)
        tree = host(compute_root(),
                    provider('a', 'root', VGPU=Inv(3)),
                    provider('b', 'root', VGPU=Inv(3)))
        # Each instance: 1 VGPU anywhere + 2 VGPU on one provider = 3.
        self.assertEqual(2, fit.fit(req, tree)[0])


class TestGpuAggregates(base.BaseTestCase):

    def test_pool_matches_alias_name(self):
        demand = PciDemand('V100', 1, None)
        req = request(BASIC, pci=[demand])
        pools = [model.GpuPool('V100', 2, used=1)]
        self.assertEqual((1, fit.GPU_POOL),
                         fit.fit(req, host(compute_root(), pools=pools)))
        self.assertEqual(2, fit.fit(req, host(compute_root(), pools=pools),
                                    empty=True)[0])

    def test_other_gpu_type_or_no_pool_does_not_fit(self):
        req = request(BASIC, pci=[PciDemand('A100', 1, None)])
        pools = [model.GpuPool('V100', 2)]
        self.assertEqual(0, fit.fit(req, host(compute_root(),
                                              pools=pools))[0])
        self.assertEqual(0, fit.fit(req, host(compute_root()))[0])

    def test_placement_devices_win_over_pools(self):
        demand = PciDemand('V100', 1, 'CUSTOM_PCI_10DE_1DB4')
        tree = host(compute_root(),
                    provider('d0', 'root', CUSTOM_PCI_10DE_1DB4=Inv(1)),
                    pools=[model.GpuPool('V100', 8)])
        self.assertEqual(1, fit.fit(request(BASIC, pci=[demand]), tree)[0])


class TestIsolatedPciDevices(base.BaseTestCase):

    def test_isolate_puts_each_device_group_on_its_own_provider(self):
        # One provider holding 2 units of the class: with isolate, a
        # 2-device instance needs two providers.
        tree = host(compute_root(),
                    provider('pf0', 'root', CUSTOM_PCI_X=Inv(2)),
                    provider('pf1', 'root', CUSTOM_PCI_X=Inv(1)))
        demand = PciDemand('X', 2, 'CUSTOM_PCI_X')
        self.assertEqual(1, fit.fit(request({'VCPU': 1}, pci=[demand],
                                            policy='isolate'), tree)[0])
        self.assertEqual(1, fit.fit(request({'VCPU': 1}, pci=[demand],
                                            policy='none'), tree)[0])
        four = host(compute_root(),
                    provider('pf0', 'root', CUSTOM_PCI_X=Inv(4)))
        self.assertEqual(0, fit.fit(request({'VCPU': 1}, pci=[demand],
                                            policy='isolate'), four)[0])
        self.assertEqual(2, fit.fit(request({'VCPU': 1}, pci=[demand],
                                            policy='none'), four)[0])
