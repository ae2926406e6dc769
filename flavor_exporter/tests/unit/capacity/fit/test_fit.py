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

from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request.request import PciDemand
from flavor_exporter.capacity.request.request import RequestGroup
from flavor_exporter.capacity.request.request import ResourceRequest
from flavor_exporter.tests import base

Inv = model.Inventory


def provider(uuid, parent=None, traits=(), usages=None, **inventories):
    return model.Provider(uuid=uuid, name=uuid, parent_uuid=parent,
                          inventories=inventories, usages=usages or {},
                          traits=frozenset(traits))


def pci_device(uuid, parent='root', traits=(), usages=None, **inventories):
    """A device provider as Nova's PCI tracker makes it."""
    return provider(uuid, parent, traits={fit.MANAGED_PCI_TRAIT, *traits},
                    usages=usages, **inventories)


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

    def take(self, h, resources, prefer=()):
        frees = fit.free_amounts(h)
        return frees, fit.take_one(request(resources), h, frees, prefer)

    def test_take_one_fills_the_provider_it_started_on(self):
        # As Nova: the first candidate of an order Placement keeps for
        # a flavor, so the servers of one flavor stay on one pGPU.
        small = dict(VCPU=1, MEMORY_MB=1024, DISK_GB=1, VGPU=1)
        h = self.vgpu_host()
        frees, first = self.take(h, small)
        self.assertEqual(frozenset(), first.guessed)  # alike: no guess
        child, = first.keys - {'root'}
        second = fit.take_one(request(small), h, frees, first.keys)
        self.assertEqual(first.keys, second.keys)
        self.assertEqual(2, frees[child]['VGPU'])
        # The other pGPU is whole, for a flavor of 4.
        four = dict(VCPU=1, MEMORY_MB=1024, DISK_GB=1, VGPU=4)
        self.assertIsNotNone(fit.take_one(request(four), h, frees))

    def test_take_one_between_unlike_providers_is_a_guess(self):
        small = dict(VCPU=1, MEMORY_MB=1024, DISK_GB=1, VGPU=1)
        frees, taken = self.take(self.vgpu_host(used=(1, 0)), small)
        # The fullest, and said to be a guess.
        self.assertIn('pgpu0', taken.keys)
        self.assertEqual(frozenset({'VGPU'}), taken.guessed)
        # The provider the flavor's last server took from comes first:
        # Nova's usual choice, still one between unlike providers.
        frees, taken = self.take(self.vgpu_host(used=(1, 0)), small,
                                 prefer={'root', 'pgpu1'})
        self.assertEqual(frozenset({'root', 'pgpu1'}), taken.keys)
        self.assertEqual(frozenset({'VGPU'}), taken.guessed)

    def test_take_one_none_when_full(self):
        small = dict(VCPU=1, MEMORY_MB=1024, DISK_GB=1, VGPU=1)
        self.assertIsNone(self.take(self.vgpu_host(used=(4, 4)), small)[1])

    def pci_host(self, devices=4, used=0, traits=()):
        children = [pci_device('dev%d' % i, 'root', traits=traits,
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

    def test_pci_devices_only_from_novas_own_providers(self):
        # Another service's provider of the class (Cyborg's, one made by
        # hand) is refused by PciPassthroughFilter: not a device.
        demand = PciDemand('V100', 1, 'CUSTOM_PCI_10DE_1DB4')
        req = request({'VCPU': 1}, pci=[demand])
        foreign = provider('fpga', 'root', CUSTOM_PCI_10DE_1DB4=Inv(2))
        self.assertEqual(0, fit.fit(req, host(compute_root(), foreign))[0])
        self.assertEqual(1, fit.fit(req, host(
            compute_root(), foreign,
            pci_device('d0', CUSTOM_PCI_10DE_1DB4=Inv(1))))[0])

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
                    pci_device('d0', 'root', CUSTOM_PCI_10DE_1DB4=Inv(1)),
                    pools=[model.GpuPool('V100', 8)])
        self.assertEqual(1, fit.fit(request(BASIC, pci=[demand]), tree)[0])

    def test_two_aliases_two_pools(self):
        req = request(BASIC, pci=[PciDemand('V100', 1, None),
                                  PciDemand('A100', 1, None)])
        pools = [model.GpuPool('V100', 2), model.GpuPool('A100', 1)]
        self.assertEqual((1, fit.GPU_POOL),
                         fit.fit(req, host(compute_root(), pools=pools)))
        self.assertEqual(2, fit.fit(req, host(compute_root(), pools=[
            model.GpuPool('V100', 2), model.GpuPool('A100', 3)]))[0])


class TestIsolatedPciDevices(base.BaseTestCase):

    def test_isolate_puts_each_device_group_on_its_own_provider(self):
        # One provider holding 2 units of the class: with isolate, a
        # 2-device instance needs two providers.
        tree = host(compute_root(),
                    pci_device('pf0', 'root', CUSTOM_PCI_X=Inv(2)),
                    pci_device('pf1', 'root', CUSTOM_PCI_X=Inv(1)))
        demand = PciDemand('X', 2, 'CUSTOM_PCI_X')
        self.assertEqual(1, fit.fit(request({'VCPU': 1}, pci=[demand],
                                            policy='isolate'), tree)[0])
        self.assertEqual(1, fit.fit(request({'VCPU': 1}, pci=[demand],
                                            policy='none'), tree)[0])
        four = host(compute_root(),
                    pci_device('pf0', 'root', CUSTOM_PCI_X=Inv(4)))
        self.assertEqual(0, fit.fit(request({'VCPU': 1}, pci=[demand],
                                            policy='isolate'), four)[0])
        self.assertEqual(2, fit.fit(request({'VCPU': 1}, pci=[demand],
                                            policy='none'), four)[0])


def numbered(*resources, policy='none', unnumbered=None):
    """A request of numbered groups (and an unnumbered one, if given)."""
    groups = [RequestGroup(dict(r), suffix=str(i))
              for i, r in enumerate(resources, 1)]
    return ResourceRequest(
        groups=([RequestGroup(unnumbered)] if unnumbered else []) + groups,
        group_policy=policy)


# One VCPU from the compute node: what keeps Nova's candidates on a host.
ROOT = {'VCPU': 1}


class TestLimitsOnWhatOneInstanceTakes(base.BaseTestCase):
    """Placement sums one instance's groups per provider for max_unit.

    Each group alone must pass min_unit, max_unit and step_size; the sum
    an instance takes from one provider must pass max_unit (a sum of
    amounts that pass min_unit and step_size passes them too).
    """

    def flat(self, rc='VCPU', **limits):
        return host(provider('root', **{rc: Inv(16, **limits)}))

    def test_max_unit_identical_groups_flat(self):
        six = {'VCPU': 6}
        # 6 + 6 = 12 > 8 on the one provider: never, though 16 // 12 = 1.
        self.assertEqual(0, fit.fit(numbered(six, six),
                                    self.flat(max_unit=8))[0])
        self.assertEqual(1, fit.fit(numbered(six, six),
                                    self.flat(max_unit=12))[0])
        four = {'VCPU': 4}
        self.assertEqual((2, 'VCPU'), fit.fit(numbered(four, four),
                                              self.flat(max_unit=8)))

    def test_max_unit_different_groups_flat(self):
        req = numbered({'VCPU': 6}, {'VCPU': 4})
        self.assertEqual(0, fit.fit(req, self.flat(max_unit=8))[0])
        self.assertEqual(1, fit.fit(req, self.flat(max_unit=10))[0])

    def test_max_unit_unnumbered_and_numbered_flat(self):
        req = numbered({'VCPU': 6}, unnumbered={'VCPU': 4})
        self.assertEqual(0, fit.fit(req, self.flat(max_unit=8))[0])
        self.assertEqual(1, fit.fit(req, self.flat(max_unit=10))[0])

    def vgpu_tree(self, max_unit):
        # a: 8 VGPU, b: 2 VGPU; one allocation at most max_unit. The
        # requests below also take one VCPU from the root, or Nova would
        # keep no candidate of theirs (fit._root_rule).
        return host(compute_root(),
                    provider('a', 'root', VGPU=Inv(8, max_unit=max_unit)),
                    provider('b', 'root', VGPU=Inv(2, max_unit=2)))

    def test_max_unit_identical_groups_nested(self):
        two = {'VGPU': 2}
        # max_unit 2: an instance's two groups need a and b: b has room
        # for one instance. max_unit 4 on a: both groups fit on a.
        self.assertEqual((1, 'VGPU'),
                         fit.fit(numbered(two, two, unnumbered=ROOT),
                                 self.vgpu_tree(2)))
        self.assertEqual(2, fit.fit(numbered(two, two, unnumbered=ROOT),
                                    self.vgpu_tree(4))[0])

    def test_max_unit_different_groups_nested(self):
        req = numbered({'VGPU': 2}, {'VGPU': 1}, unnumbered=ROOT)
        # Sum 3 > 2 on a: every instance needs b too (2 left there).
        self.assertEqual(2, fit.fit(req, self.vgpu_tree(2))[0])
        # 3 on a is allowed: a 8 // 3 = 2, and b takes the 2 or the 1.
        self.assertEqual(3, fit.fit(req, self.vgpu_tree(3))[0])

    def test_isolate_with_and_without_max_unit(self):
        two = {'VGPU': 2}
        for max_unit in (2, 8):
            self.assertEqual(1, fit.fit(numbered(two, two, policy='isolate',
                                                 unnumbered=ROOT),
                                        self.vgpu_tree(max_unit))[0])
        req = numbered({'VGPU': 2}, {'VGPU': 1}, policy='isolate',
                       unnumbered=ROOT)
        self.assertEqual(2, fit.fit(req, self.vgpu_tree(8))[0])

    def test_max_unit_pci_device_groups(self):
        def tree(*maxes):
            return host(compute_root(), *[
                pci_device('pf%d' % i, 'root',
                           CUSTOM_PCI_X=Inv(4, max_unit=m))
                for i, m in enumerate(maxes)])
        demand = PciDemand('X', 2, 'CUSTOM_PCI_X')
        req = request({'VCPU': 1}, pci=[demand], policy='none')
        # One device per group; two on one PF exceed max_unit 1.
        self.assertEqual(0, fit.fit(req, tree(1))[0])
        self.assertEqual(2, fit.fit(req, tree(2))[0])
        self.assertEqual(4, fit.fit(req, tree(1, 1))[0])
        # A numbered group of the same class counts in the sum too.
        mixed = request({'VCPU': 1},
                        RequestGroup({'CUSTOM_PCI_X': 1}, suffix='1'),
                        pci=[PciDemand('X', 1, 'CUSTOM_PCI_X')],
                        policy='none')
        self.assertEqual(0, fit.fit(mixed, tree(1))[0])
        self.assertEqual(2, fit.fit(mixed, tree(2))[0])

    def test_min_unit_checks_each_group(self):
        tree = self.flat('CUSTOM_Y', min_unit=4)
        # 2 + 2 = 4 would pass, but each group of 2 is refused alone.
        self.assertEqual(0, fit.fit(numbered({'CUSTOM_Y': 2},
                                             {'CUSTOM_Y': 2}), tree)[0])
        self.assertEqual(2, fit.fit(numbered({'CUSTOM_Y': 4},
                                             {'CUSTOM_Y': 4}), tree)[0])
        self.assertEqual(0, fit.fit(numbered({'CUSTOM_Y': 2},
                                             {'CUSTOM_Y': 6}), tree)[0])
        self.assertEqual(1, fit.fit(numbered({'CUSTOM_Y': 4},
                                             {'CUSTOM_Y': 6}), tree)[0])

    def test_step_size_checks_each_group(self):
        tree = self.flat('CUSTOM_X', step_size=4)
        self.assertEqual(0, fit.fit(numbered({'CUSTOM_X': 2},
                                             {'CUSTOM_X': 2}), tree)[0])
        self.assertEqual(2, fit.fit(numbered({'CUSTOM_X': 4},
                                             {'CUSTOM_X': 4}), tree)[0])
        self.assertEqual(0, fit.fit(numbered({'CUSTOM_X': 4},
                                             {'CUSTOM_X': 6}), tree)[0])
        self.assertEqual(1, fit.fit(numbered({'CUSTOM_X': 4},
                                             {'CUSTOM_X': 8}), tree)[0])

    def test_isolated_groups_of_different_classes_share_a_provider(self):
        tree = host(compute_root(),
                    provider('a', 'root', VGPU=Inv(2), CUSTOM_X=Inv(2)))
        apart = numbered({'VGPU': 1}, {'CUSTOM_X': 1}, policy='isolate',
                         unnumbered=ROOT)
        together = numbered({'VGPU': 1}, {'CUSTOM_X': 1}, unnumbered=ROOT)
        self.assertEqual((0, None, True), fit.fit_certain(apart, tree))
        self.assertEqual(2, fit.fit(together, tree)[0])


class TestCopiesBound(base.BaseTestCase):

    def test_caps_limit_what_one_instance_takes_from_a_candidate(self):
        self.assertEqual(3, fit.copies_bound([4, 2], [2, 2], 2))
        self.assertEqual(2, fit.copies_bound([4, 2], [1, 1], 2))
        self.assertEqual(0, fit.copies_bound([9], [1], 2))
        self.assertEqual(4, fit.copies_bound([9], [2], 2))
        self.assertEqual(3, fit.copies_bound([5, 1, 1, 1], [1, 1, 1, 1], 2))


class TestUnnumberedRequiredTraits(base.BaseTestCase):
    """The providers one combination uses must have the traits together."""

    def tree(self, *child_traits):
        return host(compute_root(), *[
            provider('g%d' % i, 'root', traits=traits, VGPU=Inv(4))
            for i, traits in enumerate(child_traits)])

    def test_trait_only_one_class_can_bring_narrows_its_providers(self):
        req = request({'VCPU': 1, 'VGPU': 1}, required={'CUSTOM_T'})
        # Only g0 has the trait: VGPU must come from it.
        self.assertEqual((4, 'VGPU', True),
                         fit.fit_certain(req, self.tree({'CUSTOM_T'}, ())))
        self.assertEqual(8, fit.fit(req, self.tree({'CUSTOM_T'},
                                                   {'CUSTOM_T'}))[0])
        self.assertEqual(0, fit.fit(req, self.tree((), ()))[0])

    def test_trait_on_the_root_is_always_met(self):
        tree = host(compute_root(traits={'CUSTOM_T'}),
                    provider('g0', 'root', VGPU=Inv(4)))
        req = request({'VCPU': 1, 'VGPU': 1}, required={'CUSTOM_T'})
        self.assertEqual((4, 'VGPU', True), fit.fit_certain(req, tree))

    def test_trait_several_classes_could_bring_is_uncertain(self):
        tree = host(compute_root(),
                    provider('g0', 'root', traits={'CUSTOM_T'},
                             VGPU=Inv(4), CUSTOM_X=Inv(4)),
                    provider('g1', 'root', VGPU=Inv(4), CUSTOM_X=Inv(4)))
        req = request({'VCPU': 1, 'VGPU': 1, 'CUSTOM_X': 1},
                      required={'CUSTOM_T'})
        self.assertFalse(fit.fit_certain(req, tree)[2])


class TestRootProviderRule(base.BaseTestCase):
    """Nova keeps a host only through candidates taking from its root.

    SchedulerManager._schedule (Nova 29 and 34) hands each host the
    allocation candidates under its compute node's uuid.
    """

    def vgpu_host(self, root=None):
        return host(root or compute_root(),
                    provider('pgpu0', 'root', VGPU=Inv(4)),
                    provider('pgpu1', 'root', VGPU=Inv(4)))

    def test_child_classes_only_count_nothing(self):
        # Placement offers 8; Nova lands none.
        self.assertEqual((0, None, True),
                         fit.fit_certain(request({'VGPU': 1}),
                                         self.vgpu_host()))
        self.assertEqual(0, fit.fit(numbered({'VGPU': 1}, {'VGPU': 1}),
                                    self.vgpu_host(), empty=True)[0])

    def test_one_root_class_is_enough(self):
        root = provider('root', CUSTOM_X=Inv(16))
        self.assertEqual((8, 'VGPU'),
                         fit.fit(request({'VGPU': 1, 'CUSTOM_X': 1}),
                                 self.vgpu_host(root)))

    def test_pci_devices_only_count_nothing(self):
        tree = host(compute_root(), pci_device('pf0', CUSTOM_PCI_X=Inv(2)))
        demand = PciDemand('X', 1, 'CUSTOM_PCI_X')
        only = ResourceRequest(groups=[], pci=[demand])
        self.assertEqual(0, fit.fit(only, tree)[0])
        self.assertEqual(2, fit.fit(request({'VCPU': 1}, pci=[demand]),
                                    tree)[0])

    def test_gpu_pool_only_counts_nothing(self):
        # Not a Placement provider: Nova's query would be empty.
        only = ResourceRequest(groups=[], pci=[PciDemand('V100', 1, None)])
        self.assertEqual(0, fit.fit(only, host(compute_root(), pools=[
            model.GpuPool('V100', 2)]))[0])

    def test_a_class_root_and_child_hold_comes_from_the_root(self):
        # Placement offers X from the root (2) or the child (4); only the
        # candidates taking it from the root are kept: 2, not 6.
        tree = host(provider('root', CUSTOM_X=Inv(2)),
                    provider('c', 'root', CUSTOM_X=Inv(4)))
        self.assertEqual((2, 'CUSTOM_X', True),
                         fit.fit_certain(request({'CUSTOM_X': 1}), tree))
        found = fit.units(request({'CUSTOM_X': 1}), tree,
                          fit.free_amounts(tree))
        self.assertEqual(['root'], [key for key, _ in found[0].candidates])
        self.assertIsNone(found.root)
        self.assertTrue(fit.independent(found))

    def test_each_instance_puts_one_unit_on_the_root(self):
        # Two groups of X: Placement could place 4 (8 // 2); each
        # instance Nova keeps takes one at least from the root's 2. At
        # most 2, and fewer if the first candidate puts both on the root:
        # not certain.
        tree = host(provider('root', CUSTOM_X=Inv(2)),
                    provider('c', 'root', CUSTOM_X=Inv(6)))
        req = numbered({'CUSTOM_X': 1}, {'CUSTOM_X': 1})
        found = fit.units(req, tree, fit.free_amounts(tree))
        self.assertEqual('root', found.root)
        self.assertFalse(fit.independent(found))
        self.assertEqual((2, None, False), fit.fit_certain(req, tree))
        self.assertEqual(3, fit.fit(ResourceRequest(groups=[RequestGroup(
            {'CUSTOM_X': 2})]), host(provider('root', CUSTOM_X=Inv(7)),
                                     provider('c', 'root',
                                              CUSTOM_X=Inv(8))))[0])
