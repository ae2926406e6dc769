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
"""Flavor -> Placement request, case by case as Nova 34 builds it.

Expected values come from nova.scheduler.utils.ResourceRequest
.from_request_spec, nova.virt.hardware.numa_get_constraints,
nova.pci.request and nova.objects.request_spec. CPU policies, the other
hw:* features, [pci] alias and the notes on what is not modelled have test
modules of their own, as the code has.
"""

from flavor_exporter.capacity.request import request
from flavor_exporter.capacity.request import vocabulary
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity import request_helpers as helpers

A100 = helpers.A100
L4 = helpers.L4
build = helpers.build
groups_of = helpers.groups_of
make_flavor = helpers.make_flavor
resources_of = helpers.resources_of


class TestStandardResources(base.BaseTestCase):

    def test_plain_flavor(self):
        req = build(vcpus=4, ram=8192, disk=20)
        self.assertEqual([''], [g.suffix for g in req.groups])
        self.assertEqual({'VCPU': 4, 'MEMORY_MB': 8192, 'DISK_GB': 20},
                         resources_of(req))
        self.assertIsNone(req.group_policy)
        self.assertEqual([], req.pci)
        self.assertEqual([], req.unsupported)
        self.assertEqual({}, req.aggregate_specs)
        self.assertIsNone(req.gpu)
        self.assertIsNone(req.fallback)
        self.assertEqual(frozenset(), req.root_required)

    def test_disk_adds_ephemeral_and_swap(self):
        req = build(disk=20, ephemeral=10, swap=2048)
        self.assertEqual(32, resources_of(req)['DISK_GB'])

    def test_swap_is_rounded_up_to_whole_gb(self):
        # compute_utils.convert_mb_to_ceil_gb: swap is in MB.
        for swap, gb in ((0, 0), (1, 1), (512, 1), (1024, 1), (1025, 2),
                         (2048, 2), (4097, 5)):
            req = build(disk=10, swap=swap)
            self.assertEqual(10 + gb, resources_of(req)['DISK_GB'],
                             'swap=%d' % swap)

    def test_zero_disk_flavor_requests_no_disk(self):
        req = build(disk=0)
        self.assertNotIn('DISK_GB', resources_of(req))

    def test_zero_root_disk_still_counts_ephemeral_and_swap(self):
        self.assertEqual(6, resources_of(build(disk=0, ephemeral=5,
                                               swap=100))['DISK_GB'])

    def test_extra_specs_none(self):
        f = make_flavor()
        f.extra_specs = None
        req = request.build_request(f, {})
        self.assertEqual({'VCPU': 4, 'MEMORY_MB': 8192, 'DISK_GB': 20},
                         resources_of(req))

    def test_aliases_none(self):
        req = request.build_request(make_flavor(), None)
        self.assertEqual(4, resources_of(req)['VCPU'])


class TestOverrides(base.BaseTestCase, helpers.InvalidMixin):

    def test_unnumbered_override(self):
        req = build({'resources:VCPU': '2', 'resources:MEMORY_MB': '1024',
                     'resources:DISK_GB': '7'})
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 7},
                         resources_of(req))

    def test_zero_drops_a_class(self):
        req = build({'resources:VCPU': '0', 'resources:DISK_GB': '0'})
        self.assertEqual({'MEMORY_MB': 8192}, resources_of(req))

    def test_baremetal_flavor(self):
        # The Ironic pattern: one custom class, standard classes zeroed.
        req = build({'resources:CUSTOM_BAREMETAL_GOLD': '1',
                     'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
                     'resources:DISK_GB': '0'})
        self.assertEqual({'': ({'CUSTOM_BAREMETAL_GOLD': 1}, set(), set())},
                         groups_of(req))

    def test_numbered_group_class_replaces_the_flavor_one(self):
        # Nova checks the merge of all groups before adding VCPU.
        req = build({'resources1:VCPU': '2', 'resources2:DISK_GB': '5',
                     'group_policy': 'none'})
        self.assertEqual({'MEMORY_MB': 8192}, resources_of(req))
        self.assertEqual({'VCPU': 2}, resources_of(req, '1'))
        self.assertEqual({'DISK_GB': 5}, resources_of(req, '2'))

    def test_zero_in_a_numbered_group_still_suppresses(self):
        req = build({'resources1:VCPU': '0'})
        self.assertEqual({'': ({'MEMORY_MB': 8192, 'DISK_GB': 20}, set(),
                               set())}, groups_of(req))

    def test_pcpu_anywhere_suppresses_vcpu(self):
        req = build({'resources:PCPU': '4'})
        self.assertEqual({'PCPU': 4, 'MEMORY_MB': 8192, 'DISK_GB': 20},
                         resources_of(req))

    def test_vgpu(self):
        req = build({'resources:VGPU': '1'})
        self.assertEqual(1, resources_of(req)['VGPU'])
        self.assertEqual(4, resources_of(req)['VCPU'])
        self.assertEqual(('VGPU', 1), req.gpu)

    def test_vgpu_in_named_group(self):
        req = build({'resources_gpu:VGPU': '2'})
        self.assertEqual({'VGPU': 2}, resources_of(req, '_gpu'))
        self.assertEqual(('VGPU', 2), req.gpu)

    def test_vgpu_zero_is_no_gpu(self):
        self.assertIsNone(build({'resources:VGPU': '0'}).gpu)

    def test_amount_must_be_an_integer(self):
        for value in ('two', '1.5', '', '1e3'):
            self.assertInvalid('resources:VGPU', {'resources:VGPU': value})

    def test_amount_may_carry_spaces(self):
        # int(' 2 ') is what Nova does with the value.
        self.assertEqual(2, resources_of(build({'resources:VGPU': ' 2 '}))
                         ['VGPU'])

    def test_negative_amount(self):
        self.assertInvalid('resources1:CUSTOM_X',
                           {'resources1:CUSTOM_X': '-1'})

    def test_bad_resource_class(self):
        for name in ('FOO', 'CUSTOM_lower', 'vcpu', 'CUSTOM_', 'CUSTOM_A-B',
                     ''):
            key = 'resources:' + name
            self.assertInvalid(key, {key: '1'})

    def test_every_standard_class_is_accepted(self):
        for rc in vocabulary.STANDARD_RESOURCE_CLASSES:
            req = build({'resources_s:' + rc: '1'})
            self.assertEqual({rc: 1}, resources_of(req, '_s'))


class TestGranularGroups(base.BaseTestCase, helpers.InvalidMixin):

    def test_numbered_and_named_groups(self):
        req = build({
            'resources1:CUSTOM_A': '1', 'trait1:CUSTOM_T1': 'required',
            'resources_gpu:VGPU': '1', 'trait_gpu:CUSTOM_FAST': 'forbidden',
            'resources-net:SRIOV_NET_VF': '2',
            'group_policy': 'isolate'})
        self.assertEqual(['', '-net', '1', '_gpu'],
                         [g.suffix for g in req.groups])
        self.assertEqual({
            '': ({'VCPU': 4, 'MEMORY_MB': 8192, 'DISK_GB': 20}, set(),
                 set()),
            '1': ({'CUSTOM_A': 1}, {'CUSTOM_T1'}, set()),
            '_gpu': ({'VGPU': 1}, set(), {'CUSTOM_FAST'}),
            '-net': ({'SRIOV_NET_VF': 2}, set(), set()),
        }, groups_of(req))
        self.assertEqual('isolate', req.group_policy)
        self.assertEqual(3, req.flavor_group_count)
        self.assertFalse(req.groups[0].granular)
        self.assertTrue(req.groups[1].granular)

    def test_unnumbered_traits(self):
        req = build({'trait:CUSTOM_A': 'required',
                     'trait:HW_CPU_X86_AVX2': 'required',
                     'trait:CUSTOM_B': 'forbidden'})
        self.assertEqual(({'VCPU': 4, 'MEMORY_MB': 8192, 'DISK_GB': 20},
                          {'CUSTOM_A', 'HW_CPU_X86_AVX2'}, {'CUSTOM_B'}),
                         groups_of(req)[''])

    def test_bad_trait_value(self):
        for value in ('yes', 'Required', '', 'true'):
            self.assertInvalid('trait:CUSTOM_A', {'trait:CUSTOM_A': value})

    def test_bad_trait_name(self):
        self.assertInvalid('trait1:custom_a', {'trait1:custom_a': 'required',
                                               'resources1:VGPU': '1'})
        self.assertInvalid('trait:', {'trait:': 'required'})

    def test_group_policy_values(self):
        self.assertEqual('none', build({'group_policy': 'none'}).group_policy)
        self.assertInvalid('group_policy', {'group_policy': 'Isolate'})
        self.assertInvalid('group_policy', {'group_policy': ''})

    def test_two_numbered_groups_need_a_policy(self):
        # Placement answers 400 without group_policy; Nova only fills in
        # 'none' when the flavor itself has at most one granular group.
        exc = self.assertInvalid('group_policy', {
            'resources1:CUSTOM_A': '1', 'resources2:CUSTOM_B': '1'})
        self.assertIn('2 granular groups', exc.reason)

    def test_one_numbered_group_needs_no_policy(self):
        req = build({'resources1:CUSTOM_A': '1'})
        self.assertIsNone(req.group_policy)
        self.assertIsNone(req.placement_group_policy())

    def test_zeroed_group_is_dropped(self):
        req = build({'resources1:CUSTOM_A': '0', 'resources2:CUSTOM_B': '1'})
        self.assertEqual(['', '2'], [g.suffix for g in req.groups])
        # Nova counts flavor groups before the zeros go.
        self.assertEqual(2, req.flavor_group_count)

    def test_group_with_traits_only_is_refused(self):
        # Placement 1.36: a resourceless group must be in same_subtree.
        self.assertInvalid('trait1:CUSTOM_A', {'trait1:CUSTOM_A': 'required'})
        self.assertInvalid('trait1:CUSTOM_A', {'trait1:CUSTOM_A': 'required',
                                               'resources1:CUSTOM_B': '0'})

    def test_traits_key_is_a_group_named_s(self):
        # 'traits:' matches trait$S with $S='s': a resourceless group.
        self.assertInvalid('traits:CUSTOM_A', {'traits:CUSTOM_A': 'required'})

    def test_unnumbered_traits_without_resources_is_refused(self):
        self.assertInvalid('trait:CUSTOM_A', {
            'trait:CUSTOM_A': 'required', 'resources:VCPU': '0',
            'resources:MEMORY_MB': '0', 'resources:DISK_GB': '0'})

    def test_nothing_requested_is_refused(self):
        self.assertInvalid('resources', {
            'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
            'resources:DISK_GB': '0'})

    def test_required_and_forbidden_in_one_group(self):
        self.assertInvalid('trait:COMPUTE_SOCKET_PCI_NUMA_AFFINITY', {
            'hw:pci_numa_affinity_policy': 'socket',
            'trait:COMPUTE_SOCKET_PCI_NUMA_AFFINITY': 'forbidden'})

    def test_required_and_forbidden_in_different_groups_is_fine(self):
        req = build({'trait:CUSTOM_A': 'forbidden',
                     'resources1:VGPU': '1', 'trait1:CUSTOM_A': 'required'})
        self.assertEqual({'CUSTOM_A'}, groups_of(req)['1'][1])

    def test_suffix_longer_than_64_is_not_a_group(self):
        key = 'resources%s:VGPU' % ('x' * 65)
        req = build({key: 'nonsense'})
        self.assertEqual([''], [g.suffix for g in req.groups])

    def test_other_namespaces_are_ignored(self):
        req = build({'quota:cpu_shares': '1024', 'hw:watchdog_action': 'x',
                     'resourcesX': '1'})
        self.assertEqual({'VCPU': 4, 'MEMORY_MB': 8192, 'DISK_GB': 20},
                         resources_of(req))


class TestPciGroups(base.BaseTestCase, helpers.InvalidMixin):
    """The one-device groups Nova adds with PCI in Placement."""

    def test_pci_groups_one_per_device(self):
        req = build({'pci_passthrough:alias': 'a100:2,l4:1'}, [A100, L4])
        groups = req.pci_groups()
        self.assertEqual(
            [({'CUSTOM_PCI_10DE_20B5': 1}, frozenset()),
             ({'CUSTOM_PCI_10DE_20B5': 1}, frozenset()),
             ({'CUSTOM_NVIDIA_L4': 1},
              frozenset({'CUSTOM_GPU_FAST', 'HW_GPU_API_VULKAN'}))],
            [(g.resources, g.required_traits) for g in groups])
        self.assertTrue(all(g.granular for g in groups))
        self.assertEqual(3, len({g.suffix for g in groups}))
        self.assertEqual(4, len(req.placement_groups(pci_in_placement=True)))
        self.assertEqual(1, len(req.placement_groups()))

    def test_pci_group_suffixes_avoid_flavor_suffixes(self):
        req = build({'pci_passthrough:alias': 'a100:1',
                     'resourcespci0-0:CUSTOM_X': '1'}, [A100])
        suffixes = [g.suffix for g in
                    req.placement_groups(pci_in_placement=True)]
        self.assertEqual(len(suffixes), len(set(suffixes)))

    def test_group_policy_defaults_to_none_for_pci_groups(self):
        req = build({'pci_passthrough:alias': 'a100:2'}, [A100])
        self.assertIsNone(req.group_policy)
        self.assertEqual('none', req.placement_group_policy(True))
        self.assertIsNone(req.placement_group_policy(False))

    def test_group_policy_default_with_one_flavor_group(self):
        req = build({'pci_passthrough:alias': 'a100:1',
                     'resources1:CUSTOM_X': '1'}, [A100])
        self.assertEqual('none', req.placement_group_policy(True))

    def test_one_pci_device_needs_no_policy(self):
        req = build({'pci_passthrough:alias': 'a100:1'}, [A100])
        self.assertIsNone(req.placement_group_policy(True))

    def test_flavor_policy_is_kept_with_pci(self):
        req = build({'pci_passthrough:alias': 'a100:2',
                     'group_policy': 'isolate'}, [A100])
        self.assertEqual('isolate', req.placement_group_policy(True))

    def test_two_flavor_groups_zeroed_away_still_count(self):
        # Nova counts the flavor's groups before zeros are stripped, so it
        # does not default the policy and Placement refuses the query.
        req = build({'pci_passthrough:alias': 'a100:1',
                     'resources1:CUSTOM_X': '0',
                     'resources2:CUSTOM_Y': '1'}, [A100])
        self.assertIsNone(req.placement_group_policy(False))
        exc = self.assertRaises(request.InvalidExtraSpec,
                                req.placement_group_policy, True)
        self.assertEqual('group_policy', exc.key)

    def test_pci_only_flavor(self):
        # All standard classes zeroed: the PCI groups alone are the query.
        req = build({'pci_passthrough:alias': 'a100:1',
                     'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
                     'resources:DISK_GB': '0'}, [A100])
        self.assertEqual([], req.groups)
        self.assertEqual(1, len(req.placement_groups(True)))


class TestAggregateSpecs(base.BaseTestCase):

    def test_scoped_and_unscoped(self):
        req = build({'aggregate_instance_extra_specs:gpu': 'true',
                     'ssd': '<or> yes <or> true',
                     'hw:cpu_policy': 'shared',
                     'resources:VGPU': '1'})
        self.assertEqual({'gpu': 'true', 'ssd': '<or> yes <or> true'},
                         req.aggregate_specs)
