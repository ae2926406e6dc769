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
nova.pci.request and nova.objects.request_spec.
"""

import json

import testtools

from flavor_exporter.capacity import model
from flavor_exporter.capacity import request

A100 = json.dumps({'name': 'a100', 'vendor_id': '10de',
                   'product_id': '20b5'})
L4 = json.dumps({'name': 'l4', 'resource_class': 'nvidia-l4',
                 'traits': 'gpu-fast,HW_GPU_API_VULKAN'})


def make_flavor(extra_specs=None, vcpus=4, ram=8192, disk=20, ephemeral=0,
                swap=0, name='f1'):
    return model.Flavor(id='id-' + name, name=name, vcpus=vcpus, ram=ram,
                        disk=disk, ephemeral=ephemeral, swap=swap,
                        extra_specs=dict(extra_specs or {}))


def build(extra_specs=None, aliases=(), **kwargs):
    return request.build_request(make_flavor(extra_specs, **kwargs),
                                 request.parse_aliases(list(aliases)))


def groups_of(req):
    """{suffix: (resources, required, forbidden)} for short assertions."""
    return {g.suffix: (g.resources, set(g.required_traits),
                       set(g.forbidden_traits)) for g in req.groups}


def resources_of(req, suffix=''):
    return groups_of(req)[suffix][0]


class InvalidMixin:

    def assertInvalid(self, key, extra_specs, aliases=(), **kwargs):
        exc = self.assertRaises(request.InvalidExtraSpec, build, extra_specs,
                                aliases, **kwargs)
        self.assertEqual(key, exc.key)
        self.assertEqual(kwargs.get('name', 'f1'), exc.flavor_name)
        self.assertIn(key, str(exc))
        return exc


class TestStandardResources(testtools.TestCase):

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


class TestOverrides(testtools.TestCase, InvalidMixin):

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
        for rc in request.STANDARD_RESOURCE_CLASSES:
            req = build({'resources_s:' + rc: '1'})
            self.assertEqual({rc: 1}, resources_of(req, '_s'))


class TestGranularGroups(testtools.TestCase, InvalidMixin):

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


class TestCpuPolicy(testtools.TestCase, InvalidMixin):

    def test_shared(self):
        req = build({'hw:cpu_policy': 'shared'})
        self.assertEqual(4, resources_of(req)['VCPU'])
        self.assertIsNone(req.fallback)

    def test_empty_policy_is_unset(self):
        self.assertEqual(4, resources_of(build({'hw:cpu_policy': ''}))
                         ['VCPU'])

    def test_dedicated(self):
        req = build({'hw:cpu_policy': 'dedicated'}, vcpus=8)
        self.assertEqual({'PCPU': 8, 'MEMORY_MB': 8192, 'DISK_GB': 20},
                         resources_of(req))

    def test_dedicated_has_vcpu_fallback(self):
        # Nova's second query with enable_pinning_translate=False.
        req = build({'hw:cpu_policy': 'dedicated',
                     'hw:cpu_thread_policy': 'require',
                     'hw:emulator_threads_policy': 'isolate'}, vcpus=8)
        self.assertEqual({'PCPU': 9, 'MEMORY_MB': 8192, 'DISK_GB': 20},
                         resources_of(req))
        self.assertEqual(({'VCPU': 8, 'MEMORY_MB': 8192, 'DISK_GB': 20},
                          set(), set()), groups_of(req.fallback)[''])
        self.assertIsNone(req.fallback.fallback)

    def test_dedicated_with_emulator_isolate_adds_one_pcpu(self):
        req = build({'hw:cpu_policy': 'dedicated',
                     'hw:emulator_threads_policy': 'isolate'}, vcpus=4)
        self.assertEqual(5, resources_of(req)['PCPU'])
        self.assertNotIn('VCPU', resources_of(req))

    def test_emulator_share_adds_nothing(self):
        req = build({'hw:cpu_policy': 'dedicated',
                     'hw:emulator_threads_policy': 'share'}, vcpus=4)
        self.assertEqual(4, resources_of(req)['PCPU'])

    def test_mixed_with_mask(self):
        req = build({'hw:cpu_policy': 'mixed',
                     'hw:cpu_dedicated_mask': '0-1'}, vcpus=6)
        self.assertEqual({'VCPU': 4, 'PCPU': 2}, {
            rc: n for rc, n in resources_of(req).items()
            if rc in ('VCPU', 'PCPU')})
        self.assertIsNone(req.fallback)

    def test_mixed_with_exclusion_mask(self):
        # '^0' means every vCPU but 0 is dedicated.
        req = build({'hw:cpu_policy': 'mixed',
                     'hw:cpu_dedicated_mask': '^0'}, vcpus=4)
        self.assertEqual(1, resources_of(req)['VCPU'])
        self.assertEqual(3, resources_of(req)['PCPU'])

    def test_mixed_with_exclusion_range(self):
        req = build({'hw:cpu_policy': 'mixed',
                     'hw:cpu_dedicated_mask': '^0-1'}, vcpus=8)
        self.assertEqual(2, resources_of(req)['VCPU'])
        self.assertEqual(6, resources_of(req)['PCPU'])

    def test_mixed_mask_with_inline_exclusion(self):
        req = build({'hw:cpu_policy': 'mixed',
                     'hw:cpu_dedicated_mask': '1-3,^2'}, vcpus=4)
        self.assertEqual(2, resources_of(req)['VCPU'])
        self.assertEqual(2, resources_of(req)['PCPU'])

    def test_mixed_with_emulator_isolate(self):
        req = build({'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '^0',
                     'hw:emulator_threads_policy': 'isolate'}, vcpus=4)
        self.assertEqual(1, resources_of(req)['VCPU'])
        self.assertEqual(4, resources_of(req)['PCPU'])

    def test_mixed_with_realtime_mask(self):
        req = build({'hw:cpu_policy': 'mixed', 'hw:cpu_realtime': 'yes',
                     'hw:cpu_realtime_mask': '^0-1'}, vcpus=4)
        self.assertEqual(2, resources_of(req)['VCPU'])
        self.assertEqual(2, resources_of(req)['PCPU'])

    def test_mixed_needs_exactly_one_mask(self):
        self.assertInvalid('hw:cpu_dedicated_mask', {'hw:cpu_policy': 'mixed'})
        self.assertInvalid('hw:cpu_dedicated_mask', {
            'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '0',
            'hw:cpu_realtime': 'yes', 'hw:cpu_realtime_mask': '^0'})

    def test_mask_must_leave_shared_cpus(self):
        self.assertInvalid('hw:cpu_dedicated_mask', {
            'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '0-3'},
            vcpus=4)
        self.assertInvalid('hw:cpu_dedicated_mask', {
            'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '^0-3'},
            vcpus=4)

    def test_mask_outside_the_flavor(self):
        self.assertInvalid('hw:cpu_dedicated_mask', {
            'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '2-5'},
            vcpus=4)

    def test_malformed_mask(self):
        for mask in ('x', '3-1', '1-x', '^y'):
            self.assertInvalid('hw:cpu_dedicated_mask', {
                'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': mask})

    def test_mask_needs_mixed(self):
        for policy in ('dedicated', 'shared', None):
            specs = {'hw:cpu_dedicated_mask': '0'}
            if policy:
                specs['hw:cpu_policy'] = policy
            self.assertInvalid('hw:cpu_dedicated_mask', specs)

    def test_bad_policies(self):
        self.assertInvalid('hw:cpu_policy', {'hw:cpu_policy': 'pinned'})
        self.assertInvalid('hw:cpu_thread_policy', {
            'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'never'})
        self.assertInvalid('hw:emulator_threads_policy', {
            'hw:cpu_policy': 'dedicated',
            'hw:emulator_threads_policy': 'pinned'})

    def test_thread_policy_traits(self):
        isolate = build({'hw:cpu_policy': 'dedicated',
                         'hw:cpu_thread_policy': 'isolate'})
        self.assertEqual({'HW_CPU_HYPERTHREADING'}, groups_of(isolate)[''][2])
        require = build({'hw:cpu_policy': 'dedicated',
                         'hw:cpu_thread_policy': 'require'})
        self.assertEqual({'HW_CPU_HYPERTHREADING'}, groups_of(require)[''][1])
        prefer = build({'hw:cpu_policy': 'dedicated',
                        'hw:cpu_thread_policy': 'prefer'})
        self.assertEqual((set(), set()), groups_of(prefer)[''][1:])

    def test_thread_policy_needs_pinning(self):
        for thread in ('prefer', 'isolate', 'require'):
            self.assertInvalid('hw:cpu_thread_policy',
                               {'hw:cpu_thread_policy': thread})

    def test_emulator_isolate_needs_pinning(self):
        self.assertInvalid('hw:emulator_threads_policy', {
            'hw:emulator_threads_policy': 'isolate'})
        self.assertInvalid('hw:emulator_threads_policy', {
            'hw:cpu_policy': 'shared',
            'hw:emulator_threads_policy': 'isolate'})

    def test_hyperthreading_trait_needs_pinning(self):
        # numa_get_constraints turns the trait into a thread policy.
        self.assertInvalid('trait:HW_CPU_HYPERTHREADING', {
            'trait:HW_CPU_HYPERTHREADING': 'required'})
        req = build({'hw:cpu_policy': 'dedicated',
                     'trait:HW_CPU_HYPERTHREADING': 'forbidden'})
        self.assertEqual({'HW_CPU_HYPERTHREADING'}, groups_of(req)[''][2])

    def test_hyperthreading_trait_and_thread_policy_conflict(self):
        self.assertInvalid('hw:cpu_thread_policy', {
            'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'require',
            'trait:HW_CPU_HYPERTHREADING': 'required'})

    def test_explicit_pcpu(self):
        req = build({'resources:PCPU': '4',
                     'hw:cpu_thread_policy': 'isolate'}, vcpus=4)
        self.assertEqual(4, resources_of(req)['PCPU'])
        self.assertEqual({'HW_CPU_HYPERTHREADING'}, groups_of(req)[''][2])
        # Only hw:cpu_policy=dedicated makes Nova try the VCPU fallback.
        self.assertIsNone(req.fallback)

    def test_explicit_pcpu_must_match_vcpus(self):
        self.assertInvalid('resources:PCPU', {'resources:PCPU': '3'},
                           vcpus=4)
        self.assertInvalid('resources:PCPU', {
            'resources:PCPU': '4', 'hw:emulator_threads_policy': 'isolate'},
            vcpus=4)
        req = build({'resources:PCPU': '5',
                     'hw:emulator_threads_policy': 'isolate'}, vcpus=4)
        self.assertEqual(5, resources_of(req)['PCPU'])

    def test_explicit_pcpu_in_numbered_group_counts(self):
        self.assertInvalid('resources:PCPU', {'resources1:PCPU': '3'},
                           vcpus=4)

    def test_explicit_vcpu_and_pcpu_conflict(self):
        self.assertInvalid('resources:PCPU', {'resources:PCPU': '4',
                                              'resources:VCPU': '1'})

    def test_policy_and_explicit_cpu_resources_conflict(self):
        self.assertInvalid('hw:cpu_policy', {'hw:cpu_policy': 'dedicated',
                                             'resources:PCPU': '4'})
        self.assertInvalid('hw:cpu_policy', {'hw:cpu_policy': 'shared',
                                             'resources:VCPU': '4'})

    def test_explicit_zero_does_not_conflict(self):
        req = build({'hw:cpu_policy': 'dedicated', 'resources:VCPU': '0'})
        self.assertEqual(4, resources_of(req)['PCPU'])
        self.assertNotIn('VCPU', resources_of(req))

    def test_realtime(self):
        req = build({'hw:cpu_policy': 'dedicated', 'hw:cpu_realtime': 'yes',
                     'hw:cpu_realtime_mask': '^0'})
        self.assertEqual(4, resources_of(req)['PCPU'])

    def test_realtime_without_mask_needs_emulator_policy(self):
        self.assertInvalid('hw:cpu_realtime_mask', {
            'hw:cpu_policy': 'dedicated', 'hw:cpu_realtime': 'true'})
        req = build({'hw:cpu_policy': 'dedicated', 'hw:cpu_realtime': 'true',
                     'hw:emulator_threads_policy': 'isolate'})
        self.assertEqual(5, resources_of(req)['PCPU'])

    def test_realtime_needs_pinning(self):
        self.assertInvalid('hw:cpu_realtime', {
            'hw:cpu_realtime': 'yes', 'hw:cpu_realtime_mask': '^0'})

    def test_realtime_off_ignores_mask(self):
        req = build({'hw:cpu_realtime': 'no', 'hw:cpu_realtime_mask': 'x'})
        self.assertEqual(4, resources_of(req)['VCPU'])

    def test_realtime_mask_outside_flavor(self):
        self.assertInvalid('hw:cpu_realtime_mask', {
            'hw:cpu_policy': 'dedicated', 'hw:cpu_realtime': 'yes',
            'hw:cpu_realtime_mask': '7'}, vcpus=4)

    def test_named_group_pcpu_is_not_checked_against_the_policy(self):
        # numa_get_constraints only sums unsuffixed and numbered groups.
        req = build({'hw:cpu_policy': 'dedicated', 'resources_x:PCPU': '2'},
                    vcpus=4)
        self.assertEqual(4, resources_of(req)['PCPU'])
        self.assertEqual({'PCPU': 2}, resources_of(req, '_x'))


class TestHardwareFeatures(testtools.TestCase, InvalidMixin):

    def test_memory_encryption(self):
        req = build({'hw:mem_encryption': 'true'})
        base, required, _ = groups_of(req)['']
        self.assertEqual(1, base['MEM_ENCRYPTION_CONTEXT'])
        self.assertEqual({'HW_CPU_X86_AMD_SEV'}, required)
        self.assertTrue(any('uefi' in note for note in req.unsupported))

    def test_memory_encryption_model(self):
        req = build({'hw:mem_encryption': 'yes',
                     'hw:mem_encryption_model': 'amd-sev-snp'})
        self.assertEqual({'HW_CPU_X86_AMD_SEV_SNP'}, groups_of(req)[''][1])
        self.assertInvalid('hw:mem_encryption_model', {
            'hw:mem_encryption': 'yes', 'hw:mem_encryption_model': 'x'})

    def test_memory_encryption_off(self):
        req = build({'hw:mem_encryption': 'false',
                     'hw:mem_encryption_model': 'bogus'})
        self.assertNotIn('MEM_ENCRYPTION_CONTEXT', resources_of(req))

    def test_pmem(self):
        req = build({'hw:pmem': 'SMALL, SMALL,big-1,'})
        base = resources_of(req)
        self.assertEqual(2, base['CUSTOM_PMEM_NAMESPACE_SMALL'])
        self.assertEqual(1, base['CUSTOM_PMEM_NAMESPACE_BIG_1'])

    def test_vtpm(self):
        req = build({'hw:tpm_version': '2.0', 'hw:tpm_model': 'tpm-crb'})
        self.assertEqual({'COMPUTE_SECURITY_TPM_2_0',
                          'COMPUTE_SECURITY_TPM_CRB'}, groups_of(req)[''][1])
        self.assertEqual({'COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER'},
                         req.root_required)
        req = build({'hw:tpm_version': '1.2',
                     'hw:tpm_secret_security': 'host'})
        self.assertEqual({'COMPUTE_SECURITY_TPM_1_2',
                          'COMPUTE_SECURITY_TPM_TIS'}, groups_of(req)[''][1])
        self.assertEqual({'COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST'},
                         req.root_required)

    def test_vtpm_invalid(self):
        self.assertInvalid('hw:tpm_version', {'hw:tpm_version': '3.0'})
        self.assertInvalid('hw:tpm_model', {'hw:tpm_version': '1.2',
                                            'hw:tpm_model': 'tpm-crb'})
        self.assertInvalid('hw:tpm_model', {'hw:tpm_version': '2.0',
                                            'hw:tpm_model': 'x'})
        self.assertInvalid('hw:tpm_secret_security', {
            'hw:tpm_version': '2.0', 'hw:tpm_secret_security': 'x'})

    def test_tpm_model_alone_does_nothing(self):
        req = build({'hw:tpm_model': 'tpm-crb'})
        self.assertEqual(set(), groups_of(req)[''][1])

    def test_traits_from_other_specs(self):
        req = build({'os:secure_boot': 'required',
                     'hw:maxphysaddr_mode': 'emulate',
                     'hw:pci_numa_affinity_policy': 'socket'})
        self.assertEqual({'COMPUTE_SECURITY_UEFI_SECURE_BOOT',
                          'COMPUTE_ADDRESS_SPACE_EMULATED',
                          'COMPUTE_SOCKET_PCI_NUMA_AFFINITY'},
                         groups_of(req)[''][1])

    def test_optional_secure_boot_adds_nothing(self):
        self.assertEqual(set(), groups_of(build(
            {'os:secure_boot': 'optional'}))[''][1])

    def test_invalid_feature_values(self):
        self.assertInvalid('os:secure_boot', {'os:secure_boot': 'always'})
        self.assertInvalid('hw:maxphysaddr_mode', {
            'hw:maxphysaddr_mode': 'host'})
        self.assertInvalid('hw:pci_numa_affinity_policy', {
            'hw:pci_numa_affinity_policy': 'strict'})
        self.assertInvalid('hw:sound_model', {'hw:sound_model': 'hda'})
        self.assertInvalid('hw:ephemeral_encryption_format', {
            'hw:ephemeral_encryption': 'true',
            'hw:ephemeral_encryption_format': 'zip'})

    def test_root_required_from_request_filters(self):
        req = build({'hw:virtio_packed_ring': 'true',
                     'hw:ephemeral_encryption': 'true',
                     'hw:ephemeral_encryption_format': 'luks',
                     'hw:sound_model': 'virtio',
                     'accel:device_profile': 'fpga'})
        self.assertEqual({'COMPUTE_NET_VIRTIO_PACKED',
                          'COMPUTE_EPHEMERAL_ENCRYPTION',
                          'COMPUTE_EPHEMERAL_ENCRYPTION_LUKS',
                          'COMPUTE_SOUND_MODEL_VIRTIO',
                          'COMPUTE_ACCELERATORS'}, req.root_required)
        self.assertTrue(any('Cyborg' in note for note in req.unsupported))

    def test_numa_and_memory_checks(self):
        self.assertInvalid('hw:numa_nodes', {'hw:numa_nodes': '0'})
        self.assertInvalid('hw:numa_nodes', {'hw:numa_nodes': 'two'})
        self.assertInvalid('hw:mem_page_size', {'hw:mem_page_size': 'huge'})
        self.assertInvalid('hw:locked_memory', {'hw:locked_memory': 'true'})
        req = build({'hw:numa_nodes': '2', 'hw:mem_page_size': '2MB',
                     'hw:locked_memory': 'true'})
        self.assertEqual(8192, resources_of(req)['MEMORY_MB'])
        for size in ('any', 'large', 'small', '2048', '1GB'):
            build({'hw:mem_page_size': size})


class TestPciAliases(testtools.TestCase, InvalidMixin):

    def test_one_alias(self):
        req = build({'pci_passthrough:alias': 'a100:2'}, [A100])
        self.assertEqual([request.PciDemand('a100', 2, 'CUSTOM_PCI_10DE_20B5',
                                            frozenset())], req.pci)
        self.assertEqual(('a100', 2), req.gpu)
        # PCI devices are not part of the flavor's own groups.
        self.assertEqual([''], [g.suffix for g in req.groups])

    def test_alias_with_resource_class_and_traits(self):
        req = build({'pci_passthrough:alias': 'l4:1'}, [L4])
        self.assertEqual(
            [request.PciDemand('l4', 1, 'CUSTOM_NVIDIA_L4',
                               frozenset({'CUSTOM_GPU_FAST',
                                          'HW_GPU_API_VULKAN'}))], req.pci)

    def test_several_aliases(self):
        req = build({'pci_passthrough:alias': ' a100 : 2 , l4:1'},
                    [A100, L4])
        self.assertEqual([('a100', 2), ('l4', 1)],
                         [(d.alias, d.count) for d in req.pci])
        self.assertEqual(('a100,l4', 3), req.gpu)

    def test_same_alias_twice(self):
        # Nova makes one PCI request per entry.
        req = build({'pci_passthrough:alias': 'a100:1,a100:2'}, [A100])
        self.assertEqual([1, 2], [d.count for d in req.pci])
        self.assertEqual(('a100', 3), req.gpu)

    def test_vgpu_wins_over_pci_for_gpu(self):
        req = build({'pci_passthrough:alias': 'a100:1',
                     'resources:VGPU': '1'}, [A100])
        self.assertEqual(('VGPU', 1), req.gpu)

    def test_alias_not_configured(self):
        req = build({'pci_passthrough:alias': 'v100:1'})
        self.assertEqual([request.PciDemand('v100', 1, None)], req.pci)
        self.assertEqual(('v100', 1), req.gpu)
        self.assertTrue(any('v100' in n and '[pci] alias' in n
                            for n in req.unsupported))
        self.assertEqual([], req.pci_groups())

    def test_malformed(self):
        for value in ('a100', 'a100:', 'a100:x', 'a100:1.5', ':1',
                      'a100:1:2', '', 'a100:1,', 'a100:-1'):
            self.assertInvalid('pci_passthrough:alias',
                               {'pci_passthrough:alias': value}, [A100])

    def test_count_zero(self):
        self.assertInvalid('pci_passthrough:alias',
                           {'pci_passthrough:alias': 'a100:0'}, [A100])

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

    def test_numa_affinity_is_reported(self):
        req = build({'pci_passthrough:alias': 'a100:1',
                     'hw:cpu_policy': 'dedicated'}, [A100])
        self.assertTrue(any('PCI NUMA affinity (legacy)' in n
                            for n in req.unsupported))
        req = build({'hw:pci_numa_affinity_policy': 'required'})
        self.assertTrue(any('hw:pci_numa_affinity_policy' in n
                            for n in req.unsupported))

    def test_alias_with_alternatives_is_reported(self):
        aliases = [json.dumps({'name': 'qat', 'vendor_id': '8086',
                               'product_id': p, 'device_type': 'type-PCI'})
                   for p in ('0442', '0443')]
        req = build({'pci_passthrough:alias': 'qat:1'}, aliases)
        self.assertEqual('CUSTOM_PCI_8086_0442', req.pci[0].resource_class)
        self.assertTrue(any('2 specs' in n for n in req.unsupported))


class TestUnsupported(testtools.TestCase):

    def _notes(self, specs, **kwargs):
        return ' | '.join(build(specs, **kwargs).unsupported)

    def test_numa(self):
        notes = self._notes({'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-1',
                             'hw:numa_mem.0': '4096'})
        self.assertIn('hw:numa_cpus.0, hw:numa_mem.0, hw:numa_nodes', notes)
        self.assertIn('NUMATopologyFilter', notes)

    def test_pinning(self):
        self.assertIn('pinned CPUs', self._notes({'hw:cpu_policy': 'mixed',
                                                  'hw:cpu_dedicated_mask':
                                                  '0'}))
        self.assertIn('pinned CPUs', self._notes({'resources:PCPU': '4'}))
        self.assertNotIn('pinned', self._notes({'hw:cpu_policy': 'shared'}))

    def test_huge_pages_and_pmem(self):
        self.assertIn('hw:mem_page_size=large',
                      self._notes({'hw:mem_page_size': 'large'}))
        self.assertIn('vPMEM', self._notes({'hw:pmem': 'SMALL'}))

    def test_capabilities(self):
        self.assertIn('capabilities:cpu_info:arch, hw:maxphysaddr_bits: '
                      'ComputeCapabilitiesFilter',
                      self._notes({'capabilities:cpu_info:arch': 'x86_64',
                                   'hw:maxphysaddr_bits': '42'}))

    def test_plain_flavor_has_none(self):
        self.assertEqual('', self._notes({'hw:watchdog_action': 'reset'}))


class TestAggregateSpecs(testtools.TestCase):

    def test_scoped_and_unscoped(self):
        req = build({'aggregate_instance_extra_specs:gpu': 'true',
                     'ssd': '<or> yes <or> true',
                     'hw:cpu_policy': 'shared',
                     'resources:VGPU': '1'})
        self.assertEqual({'gpu': 'true', 'ssd': '<or> yes <or> true'},
                         req.aggregate_specs)


class TestParseAliases(testtools.TestCase):

    def test_empty(self):
        self.assertEqual({}, request.parse_aliases([]))
        self.assertEqual({}, request.parse_aliases(None))

    def test_basic(self):
        aliases = request.parse_aliases([A100, L4])
        self.assertEqual({'a100', 'l4'}, set(aliases))
        a100 = aliases['a100']
        self.assertEqual(('10de', '20b5', 'legacy', None),
                         (a100.vendor_id, a100.product_id, a100.numa_policy,
                          a100.device_type))
        self.assertEqual('CUSTOM_PCI_10DE_20B5', a100.placement_resource_class)
        self.assertEqual('CUSTOM_NVIDIA_L4',
                         aliases['l4'].placement_resource_class)

    def test_all_keys(self):
        alias = request.parse_aliases([json.dumps({
            'name': ' qat ', 'vendor_id': '8086', 'product_id': '0443',
            'device_type': 'type-VF', 'numa_policy': 'preferred',
            'capability_type': 'pci', 'live_migratable': 'yes',
            'resource_class': 'CUSTOM_QAT', 'traits': 'CUSTOM_FAST'})])['qat']
        self.assertEqual(
            request.PciAlias(name='qat', vendor_id='8086', product_id='0443',
                             device_type='type-VF', numa_policy='preferred',
                             resource_class='CUSTOM_QAT',
                             traits=frozenset({'CUSTOM_FAST'}),
                             live_migratable=True), alias)

    def test_resource_class_normalisation(self):
        # nova.compute.pci_placement_translator._normalize_resource_class
        for given, expected in (('nvidia-a100', 'CUSTOM_NVIDIA_A100'),
                                ('pgpu', 'PGPU'),
                                ('PCI_DEVICE', 'PCI_DEVICE'),
                                ('custom_gpu', 'CUSTOM_GPU'),
                                ('CUSTOM_my-gpu', 'CUSTOM_MY-GPU'),
                                ('a..b', 'CUSTOM_A_B')):
            alias = request.PciAlias(name='x', resource_class=given)
            self.assertEqual(expected, alias.placement_resource_class, given)

    def test_resource_class_from_ids_is_upper_case(self):
        alias = request.PciAlias(name='x', vendor_id='10de',
                                 product_id='1db4')
        self.assertEqual('CUSTOM_PCI_10DE_1DB4',
                         alias.placement_resource_class)
        self.assertIsNone(request.PciAlias(name='x').placement_resource_class)

    def test_traits_normalisation(self):
        # Split on ',' without stripping, as Nova does.
        traits = request.normalize_traits(
            'gpu-fast, HW_GPU_API_VULKAN,HW_GPU_API_VULKAN,CUSTOM_x')
        self.assertEqual({'CUSTOM_GPU_FAST', 'CUSTOM__HW_GPU_API_VULKAN',
                          'HW_GPU_API_VULKAN', 'CUSTOM_X'}, traits)
        self.assertEqual(frozenset(), request.normalize_traits(''))

    def test_traits_without_os_traits(self):
        self.patch(request, 'os_traits', None)
        self.assertEqual({'HW_GPU_API_VULKAN', 'CUSTOM_FOO'},
                         request.normalize_traits('HW_GPU_API_VULKAN,foo'))

    def test_same_name_same_type_are_alternatives(self):
        aliases = request.parse_aliases([
            json.dumps({'name': 'qat', 'vendor_id': '8086',
                        'product_id': p, 'device_type': 'type-PCI'})
            for p in ('0442', '0443', '0444')])
        qat = aliases['qat']
        self.assertEqual('0442', qat.product_id)
        self.assertEqual(['0443', '0444'],
                         [a.product_id for a in qat.alternatives])

    def _invalid(self, values, fragment, **kwargs):
        exc = self.assertRaises(ValueError, request.parse_aliases, values,
                                **kwargs)
        self.assertIn(fragment, str(exc))

    def test_same_name_needs_device_type(self):
        # Nova fails with KeyError('dev_type') when one is missing.
        both = [json.dumps({'name': 'q', 'vendor_id': '8086',
                            'product_id': p}) for p in ('0442', '0443')]
        self._invalid(both, 'device_type')
        one = [json.dumps({'name': 'q', 'vendor_id': '8086',
                           'product_id': '0442', 'device_type': 'type-PCI'}),
               json.dumps({'name': 'q', 'vendor_id': '8086',
                           'product_id': '0443'})]
        self._invalid(one, 'device_type')

    def test_same_name_different_device_type(self):
        self._invalid([json.dumps({'name': 'q', 'vendor_id': '8086',
                                   'product_id': '0442',
                                   'device_type': t})
                       for t in ('type-PF', 'type-VF')], 'device_type')

    def test_same_name_different_numa_policy(self):
        values = [
            json.dumps({'name': 'q', 'vendor_id': '8086',
                        'product_id': '0442', 'device_type': 'type-PF',
                        'numa_policy': 'required'}),
            json.dumps({'name': 'q', 'vendor_id': '8086',
                        'product_id': '0443', 'device_type': 'type-PF'})]
        self._invalid(values, 'NUMA policy')

    def test_pci_in_placement_refuses_alternatives(self):
        values = [json.dumps({'name': 'q', 'vendor_id': '8086',
                              'product_id': p, 'device_type': 'type-PCI'})
                  for p in ('0442', '0443')]
        self._invalid(values, 'one spec per alias', pci_in_placement=True)
        self.assertIn('q', request.parse_aliases(values,
                                                 pci_in_placement=False))

    def test_identification_rules(self):
        rc_only = [json.dumps({'name': 'g', 'resource_class': 'CUSTOM_G'})]
        self.assertIn('g', request.parse_aliases(rc_only))
        self.assertIn('g', request.parse_aliases(rc_only,
                                                 pci_in_placement=True))
        self._invalid(rc_only, 'vendor_id and product_id',
                      pci_in_placement=False)
        vendor_only = [json.dumps({'name': 'g', 'vendor_id': '10de'})]
        self._invalid(vendor_only, 'or resource_class')

    def test_bad_json(self):
        self._invalid(['{"name": "x",'], 'not valid JSON')
        self._invalid(['["x"]'], 'JSON object')

    def test_schema(self):
        for spec, fragment in (
                ({'vendor_id': '10de', 'product_id': '1db4'}, 'name'),
                ({'name': '', 'vendor_id': '10de'}, 'name'),
                ({'name': 'x' * 257, 'vendor_id': '10de'}, 'name'),
                ({'name': 'x', 'vendor_id': '10dex',
                  'product_id': '1db4'}, 'vendor_id'),
                ({'name': 'x', 'vendor_id': '10de',
                  'product_id': 'zzzz'}, 'product_id'),
                ({'name': 'x', 'vendor_id': 4318,
                  'product_id': '1db4'}, 'must be a string'),
                ({'name': 'x', 'vendor_id': '10de', 'product_id': '1db4',
                  'device_id': '1'}, 'unknown key'),
                ({'name': 'x', 'vendor_id': '10de', 'product_id': '1db4',
                  'device_type': 'type-VDPA'}, 'device_type'),
                ({'name': 'x', 'vendor_id': '10de', 'product_id': '1db4',
                  'numa_policy': 'strict'}, 'numa_policy'),
                ({'name': 'x', 'vendor_id': '10de', 'product_id': '1db4',
                  'capability_type': 'usb'}, 'capability_type'),
                ({'name': 'x', 'vendor_id': '10de', 'product_id': '1db4',
                  'live_migratable': 'maybe'}, 'live_migratable')):
            self._invalid([json.dumps(spec)], fragment)

    def test_error_names_the_alias(self):
        value = json.dumps({'name': 'x', 'vendor_id': 'nope'})
        self._invalid([value], value)
