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

"""The test cloud's GPU flavours: two PCI types, VGPUs, PCI in Placement.

Capacities are int((total - reserved) * allocation_ratio) per provider, with
Nova's defaults (VCPU 4.0, RAM 1.0 with 512 MB reserved, DISK 1.0) unless a
scenario host overrides them.
"""

from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from testcloud import oracle
from testcloud import placement_view


class _SharedCloudTest(base.BaseTestCase):
    scenario = None

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            self.scenario, shared=True)).cloud
        self.conn = self.cloud.connection()
        before = placement_view.usages(self.conn)
        # The cloud is shared: whatever a test boots it must delete.
        self.addCleanup(lambda: self.assertEqual(
            before, placement_view.usages(self.conn)))


class MixedGpuTest(_SharedCloudTest):
    """scenarios/mixed_gpu.yaml: V100 and A100 aggregates."""

    scenario = 'mixed_gpu'

    def test_per_host_inventory_overrides(self):
        rps = placement_view.providers(self.conn)
        a100 = rps['a100-1.gpu.example.org']['inventories']
        self.assertEqual(1.0, a100['VCPU']['allocation_ratio'])
        self.assertEqual(8192, a100['MEMORY_MB']['reserved'])
        v100 = rps['v100-1.gpu.example.org']['inventories']
        self.assertEqual(4.0, v100['VCPU']['allocation_ratio'])
        self.assertEqual(512, v100['MEMORY_MB']['reserved'])

    def test_availability_zones_from_aggregates(self):
        resp = self.conn.compute.get('/os-availability-zone/detail')
        zones = {z['zoneName']: sorted(z['hosts'] or {})
                 for z in resp.json()['availabilityZoneInfo']}
        self.assertEqual(['v100-1', 'v100-2'], zones['az-v100'])
        self.assertEqual(['a100-1'], zones['az-a100'])

    def test_oracle_counts_each_gpu_type(self):
        # V100 medium (8 vCPU, 32768 MB, V100:1), per V100 host:
        #   min(PCI 2, VCPU 128 // 8 = 16, RAM 261632 // 32768 = 7) = 2 -> 4.
        self.assertEqual(4, oracle.boot_until_no_valid_host(
            self.conn, 'GPU V100 medium'))
        # A100 large (24 vCPU, 131072 MB, A100:1) on a100-1 with VCPU
        #   ratio 1.0: min(PCI 4, VCPU 64 // 24 = 2,
        #   RAM (524288 - 8192) // 131072 = 3) = 2; one runs already -> 1.
        self.assertEqual(1, oracle.boot_until_no_valid_host(
            self.conn, 'GPU A100 large'))
        # A100 4x needs all four A100; one is taken -> 0.
        self.assertEqual(0, oracle.boot_until_no_valid_host(
            self.conn, 'GPU A100 4x'))
        # No host has a V100 and an A100.
        self.assertEqual(0, oracle.boot_until_no_valid_host(
            self.conn, 'GPU V100 and A100'))


class VgpuTest(_SharedCloudTest):
    """scenarios/vgpu.yaml: VGPU child providers."""

    scenario = 'vgpu'

    def test_vgpu_child_providers(self):
        rps = placement_view.providers(self.conn)
        children = {name: rp for name, rp in rps.items() if rp['parent']}
        by_parent = {}
        for name, rp in children.items():
            by_parent.setdefault(rp['parent'], []).append(
                rp['inventories']['VGPU']['total'])
        self.assertEqual({'vgpu-1': [4], 'vgpu-2': [2, 2]}, by_parent)
        self.assertNotIn('VGPU', rps['vgpu-1']['inventories'])
        used = [rp['usages']['VGPU'] for rp in children.values()
                if rp['parent'] == 'vgpu-1']
        self.assertEqual([1], used)

    def test_custom_resources_and_traits_on_the_root(self):
        rps = placement_view.providers(self.conn)
        plain = rps['plain-1']
        self.assertEqual(2, plain['inventories']['CUSTOM_FPGA']['total'])
        self.assertIn('CUSTOM_FAST_NET', plain['traits'])
        self.assertNotIn('CUSTOM_FAST_NET', rps['vgpu-1']['traits'])
        # Two CUSTOM_FPGA on plain-1 only.
        result = oracle.fill(self.conn, 'fpga.small')
        self.assertEqual({'plain-1': 2}, dict(result.hosts))

    def test_oracle_counts_vgpu_flavors(self):
        # vgpu.small (4 vCPU, 8192 MB, VGPU=1); CPU and RAM allow
        #   min(64 // 4 = 16, 65024 // 8192 = 7) = 7 per host.
        #   vgpu-1: 4 VGPU, 1 used -> 3; vgpu-2: 2 + 2 -> 4; total 7.
        self.assertEqual(7, oracle.boot_until_no_valid_host(
            self.conn, 'vgpu.small'))
        # vgpu.large (VGPU=2): one resource class comes from one provider.
        #   vgpu-1: (4 - 1) // 2 = 1; vgpu-2: 2 // 2 + 2 // 2 = 2 -> 3.
        self.assertEqual(3, oracle.boot_until_no_valid_host(
            self.conn, 'vgpu.large'))


class PciInPlacementTest(_SharedCloudTest):
    """scenarios/pci_placement.yaml: devices as child providers."""

    scenario = 'pci_placement'

    def test_devices_are_child_providers(self):
        rps = placement_view.providers(self.conn)
        devices = {name: rp for name, rp in rps.items() if rp['parent']}
        self.assertEqual({
            'pgpu-1.example.org_0000:81:00.0',
            'pgpu-1.example.org_0000:82:00.0',
            'pgpu-2.example.org_0000:81:00.0',
            'pgpu-2.example.org_0000:82:00.0'}, set(devices))
        for rp in devices.values():
            self.assertEqual({'CUSTOM_PCI_10DE_20B0'}, set(rp['inventories']))
            self.assertEqual(1, rp['inventories']['CUSTOM_PCI_10DE_20B0'][
                'total'])
        used = sum(rp['usages']['CUSTOM_PCI_10DE_20B0']
                   for rp in devices.values())
        self.assertEqual(1, used)

    def test_oracle_counts_pci_flavors(self):
        # pci.a100.1: 2 devices per GPU host, one used on pgpu-1 -> 3.
        self.assertEqual(3, oracle.boot_until_no_valid_host(
            self.conn, 'pci.a100.1'))
        # pci.a100.2: pgpu-1 has one free device -> 0; pgpu-2 -> 1.
        self.assertEqual(1, oracle.boot_until_no_valid_host(
            self.conn, 'pci.a100.2'))
