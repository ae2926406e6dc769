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
"""hw:cpu_policy and its companions, through build_request (cpu_policy)."""


from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity import request_helpers as helpers

build = helpers.build
groups_of = helpers.groups_of
resources_of = helpers.resources_of


class TestCpuPolicy(base.BaseTestCase, helpers.InvalidMixin):

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
