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


from flavor_exporter.capacity.request import unmodelled
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity import request_helpers as helpers

build = helpers.build


class TestUnsupported(base.BaseTestCase):

    def _notes(self, specs, **kwargs):
        return ' | '.join(build(specs, **kwargs).unsupported)

    def test_guest_numa_topologies_are_the_engines(self):
        # Modelled where the hosts' cells are known; numa_bounds says
        # where they are not (test_numa).
        for specs in ({'hw:numa_nodes': '2'}, {'hw:cpu_policy': 'dedicated'},
                      {'resources:PCPU': '4'}, {'hw:mem_page_size': 'large'}):
            request = build(specs)
            self.assertIsNotNone(request.numa, specs)
            self.assertEqual([], request.unsupported, specs)

    def test_pmem(self):
        self.assertIn('vPMEM', self._notes({'hw:pmem': 'SMALL'}))

    def test_pci_affinity_of_a_numa_guest(self):
        self.assertIn('PCI NUMA affinity (legacy)', self._notes(
            {'hw:numa_nodes': '1', 'pci_passthrough:alias': 'a100:1'},
            aliases=[helpers.A100]))

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
