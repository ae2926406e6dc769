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
"""[pci] alias and a flavor's pci_passthrough:alias (pci_alias)."""

import json

from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.capacity.request import request
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity import request_helpers as helpers

A100 = helpers.A100
L4 = helpers.L4
build = helpers.build
resources_of = helpers.resources_of


class TestParseAliases(base.BaseTestCase):

    def test_empty(self):
        self.assertEqual({}, pci_alias.parse_aliases([]))
        self.assertEqual({}, pci_alias.parse_aliases(None))

    def test_basic(self):
        aliases = pci_alias.parse_aliases([A100, L4])
        self.assertEqual({'a100', 'l4'}, set(aliases))
        a100 = aliases['a100']
        self.assertEqual(('10de', '20b5', 'legacy', None),
                         (a100.vendor_id, a100.product_id, a100.numa_policy,
                          a100.device_type))
        self.assertEqual('CUSTOM_PCI_10DE_20B5', a100.placement_resource_class)
        self.assertEqual('CUSTOM_NVIDIA_L4',
                         aliases['l4'].placement_resource_class)

    def test_all_keys(self):
        alias = pci_alias.parse_aliases([json.dumps({
            'name': ' qat ', 'vendor_id': '8086', 'product_id': '0443',
            'device_type': 'type-VF', 'numa_policy': 'preferred',
            'capability_type': 'pci', 'live_migratable': 'yes',
            'resource_class': 'CUSTOM_QAT', 'traits': 'CUSTOM_FAST'})])['qat']
        self.assertEqual(
            pci_alias.PciAlias(
                name='qat', vendor_id='8086', product_id='0443',
                device_type='type-VF', numa_policy='preferred',
                resource_class='CUSTOM_QAT',
                traits=frozenset({'CUSTOM_FAST'}), live_migratable=True),
            alias)

    def test_resource_class_normalisation(self):
        # nova.compute.pci_placement_translator._normalize_resource_class
        for given, expected in (('nvidia-a100', 'CUSTOM_NVIDIA_A100'),
                                ('pgpu', 'PGPU'),
                                ('PCI_DEVICE', 'PCI_DEVICE'),
                                ('custom_gpu', 'CUSTOM_GPU'),
                                ('CUSTOM_my-gpu', 'CUSTOM_MY-GPU'),
                                ('a..b', 'CUSTOM_A_B')):
            alias = pci_alias.PciAlias(name='x', resource_class=given)
            self.assertEqual(expected, alias.placement_resource_class, given)

    def test_resource_class_from_ids_is_upper_case(self):
        alias = pci_alias.PciAlias(name='x', vendor_id='10de',
                                   product_id='1db4')
        self.assertEqual('CUSTOM_PCI_10DE_1DB4',
                         alias.placement_resource_class)
        self.assertIsNone(
            pci_alias.PciAlias(name='x').placement_resource_class)

    def test_traits_normalisation(self):
        # Split on ',' without stripping, as Nova does.
        traits = pci_alias.normalize_traits(
            'gpu-fast, HW_GPU_API_VULKAN,HW_GPU_API_VULKAN,CUSTOM_x')
        self.assertEqual({'CUSTOM_GPU_FAST', 'CUSTOM__HW_GPU_API_VULKAN',
                          'HW_GPU_API_VULKAN', 'CUSTOM_X'}, traits)
        self.assertEqual(frozenset(), pci_alias.normalize_traits(''))

    def test_standard_traits_are_those_of_os_traits(self):
        # A name in a standard namespace that os-traits does not list is
        # a custom trait to Nova, not a standard one.
        self.assertEqual({'HW_GPU_API_VULKAN', 'CUSTOM_HW_NOT_A_TRAIT',
                          'CUSTOM_FOO'},
                         pci_alias.normalize_traits(
                             'HW_GPU_API_VULKAN,HW_NOT_A_TRAIT,foo'))

    def test_same_name_same_type_are_alternatives(self):
        aliases = pci_alias.parse_aliases([
            json.dumps({'name': 'qat', 'vendor_id': '8086',
                        'product_id': p, 'device_type': 'type-PCI'})
            for p in ('0442', '0443', '0444')])
        qat = aliases['qat']
        self.assertEqual('0442', qat.product_id)
        self.assertEqual(['0443', '0444'],
                         [a.product_id for a in qat.alternatives])

    def _invalid(self, values, fragment, **kwargs):
        exc = self.assertRaises(ValueError, pci_alias.parse_aliases, values,
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
        self.assertIn('q', pci_alias.parse_aliases(
            values, pci_in_placement=False))

    def test_identification_rules(self):
        rc_only = [json.dumps({'name': 'g', 'resource_class': 'CUSTOM_G'})]
        self.assertIn('g', pci_alias.parse_aliases(rc_only))
        self.assertIn('g', pci_alias.parse_aliases(
            rc_only, pci_in_placement=True))
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


class TestRequestedCounts(base.BaseTestCase):

    def _fail(self, key, reason):
        raise ValueError(key, reason)

    def counts(self, value):
        return pci_alias.requested_counts({pci_alias.FLAVOR_KEY: value},
                                          self._fail)

    def test_unset(self):
        self.assertEqual([], pci_alias.requested_counts({}, self._fail))

    def test_pairs_in_order(self):
        # Names are stripped; int() takes the count as Nova does.
        self.assertEqual([('a100', 2), ('l4', 1), ('a100', 1)],
                         self.counts(' a100 : 2 , l4:1,a100:1'))

    def test_zero_is_a_count(self):
        # The API's pattern for the value takes any run of digits.
        self.assertEqual([('a100', 0), ('l4', 1)], self.counts('a100:0,l4:1'))

    def test_malformed(self):
        for value in ('a100', 'a100:', 'a100:x', 'a100:1.5', ':1',
                      'a100:1:2', '', 'a100:1,', 'a100:-1', 'a100: -1'):
            exc = self.assertRaises(ValueError, self.counts, value)
            self.assertEqual(pci_alias.FLAVOR_KEY, exc.args[0], value)


class TestDevicesByAlias(base.BaseTestCase):
    """What a server holds, read from its flavor's pci_passthrough:alias."""

    def devices(self, value):
        return pci_alias.devices_by_alias({pci_alias.FLAVOR_KEY: value})

    def test_no_alias_spec(self):
        self.assertEqual({}, pci_alias.devices_by_alias({}))
        self.assertEqual({}, pci_alias.devices_by_alias(
            {'hw:cpu_policy': 'dedicated'}))

    def test_counts_per_name(self):
        self.assertEqual({'a100': 3, 'l4': 1},
                         self.devices(' a100 : 2 , l4:1,a100:1'))

    def test_zero_holds_nothing(self):
        self.assertEqual({'l4': 1}, self.devices('a100:0,l4:1'))

    def test_other_specs_do_not_matter(self):
        # A flavor Nova would now refuse still gave its servers devices.
        self.assertEqual({'a100': 1}, pci_alias.devices_by_alias(
            {pci_alias.FLAVOR_KEY: 'a100:1', 'hw:cpu_policy': 'sometimes',
             'resources:FOO': 'x'}))

    def test_malformed_names_the_spec(self):
        for value in ('a100', 'a100:x', 'a100:-1', ':1'):
            exc = self.assertRaises(ValueError, self.devices, value)
            self.assertIn(pci_alias.FLAVOR_KEY, str(exc), value)
        exc = self.assertRaises(ValueError, self.devices, 'a100:two')
        self.assertEqual("pci_passthrough:alias: count of 'a100' is not an "
                         "integer", str(exc))


class TestFlavorAliases(base.BaseTestCase, helpers.InvalidMixin):
    """pci_passthrough:alias through build_request: the PciDemands."""

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
        # The engine notes it, knowing whether GPU host aggregates count
        # the alias (test_engine TestSourceNotes).
        self.assertEqual([], req.unsupported)
        self.assertEqual([], req.pci_groups())

    def test_malformed(self):
        for value in ('a100', 'a100:', 'a100:x', 'a100:1.5', ':1',
                      'a100:1:2', '', 'a100:1,', 'a100:-1'):
            self.assertInvalid('pci_passthrough:alias',
                               {'pci_passthrough:alias': value}, [A100])

    def test_count_zero_is_no_demand(self):
        # Nova's API takes \d+ and makes a PCI request for no device,
        # which becomes no Placement group.
        req = build({'pci_passthrough:alias': 'a100:0'}, [A100])
        self.assertEqual([], req.pci)
        self.assertIsNone(req.gpu)
        self.assertEqual([], req.pci_groups())
        self.assertEqual({'VCPU': 4, 'MEMORY_MB': 8192, 'DISK_GB': 20},
                         resources_of(req))
        # PciPassthroughFilter still wants a free device; that is a note.
        self.assertTrue(any("'a100' with count 0" in n
                            for n in req.unsupported))

    def test_count_zero_next_to_other_aliases(self):
        req = build({'pci_passthrough:alias': 'a100:0,l4:1'}, [A100, L4])
        self.assertEqual([('l4', 1)], [(d.alias, d.count) for d in req.pci])
        self.assertEqual(('l4', 1), req.gpu)

    def test_count_zero_of_an_alias_also_asked_for_is_not_noted(self):
        req = build({'pci_passthrough:alias': 'a100:0,a100:2'}, [A100])
        self.assertEqual([2], [d.count for d in req.pci])
        self.assertFalse(any('count 0' in n for n in req.unsupported))

    def test_count_zero_alone_does_not_fill_an_empty_query(self):
        self.assertInvalid('resources', {
            'pci_passthrough:alias': 'a100:0', 'resources:VCPU': '0',
            'resources:MEMORY_MB': '0', 'resources:DISK_GB': '0'}, [A100])

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
