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
"""Notes on what the engine does not model (unmodelled)."""


from flavor_exporter.capacity import unmodelled
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity import request_helpers as helpers

build = helpers.build


class TestUnsupported(base.BaseTestCase):

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
        self.assertIn('pinned CPUs', self._notes({'resources_x:PCPU': '1'}))
        self.assertNotIn('pinned', self._notes({'hw:cpu_policy': 'shared'}))
        self.assertNotIn('pinned', self._notes({'resources1:PCPU': '0'}))

    def test_trait_named_pcpu_is_not_pinning(self):
        # A trait spelled like the class once crashed the PCPU check.
        self.assertEqual('', self._notes({'trait:PCPU': 'forbidden'}))

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


class TestNotes(base.BaseTestCase):

    def test_zero_count_aliases(self):
        aliases = {'a100': object()}
        lines = unmodelled.notes({}, False, [], aliases, ['a100', 'v100'])
        self.assertEqual(2, len(lines))
        self.assertIn("'a100' with count 0", lines[0])
        self.assertIn('PciPassthroughFilter', lines[0])
        self.assertNotIn('[pci] alias', lines[0])
        self.assertIn("'v100' with count 0", lines[1])
        self.assertIn('not in [pci] alias', lines[1])

    def test_nothing_to_say(self):
        self.assertEqual([], unmodelled.notes({}, False, [], {}))
