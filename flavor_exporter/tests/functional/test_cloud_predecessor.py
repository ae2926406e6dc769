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

"""The test cloud behaves like Nova: the predecessor's example cloud.

scenarios/predecessor.yaml: cpu1 in "General Purpose" (gpu=False); gpu1
and gpu2 in "GPU V100" (gpu=True), each with two V100 (10de:1db4, not in
Placement); every host 28 cores, 385024 MB, 2000 GB; one "de.NBI GPU V100
medium" server (14 vCPU, 64 GB, 50 GB, V100:1) running on gpu1.

Capacity of one host as Placement computes it, int((total - reserved) *
allocation_ratio), with Nova 34's defaults:
  VCPU       28 * 4.0       = 112  (max_unit 28: no flavor above 28 vCPU)
  MEMORY_MB  385024 - 512   = 384512
  DISK_GB    2000 * 1.0     = 2000
"""

from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from testcloud import oracle
from testcloud import placement_view

NODES = {'cpu1': 'cpu1.denbi.example.org',
         'gpu1': 'gpu1.denbi.example.org',
         'gpu2': 'gpu2.denbi.example.org'}


class PredecessorCloudTest(base.BaseTestCase):
    """Shares one cloud; every test leaves it as it found it."""

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            'predecessor', shared=True)).cloud
        self.conn = self.cloud.connection()

    def _assert_unchanged_usage(self):
        before = placement_view.usages(self.conn)
        self.addCleanup(lambda: self.assertEqual(
            before, placement_view.usages(self.conn)))

    def _assert_no_valid_host(self, flavor, host):
        server = oracle.boot(self.conn, flavor, host=host)
        self.addCleanup(oracle.delete_servers, self.conn, [server])
        self.assertEqual('ERROR', server['status'])
        self.assertIn(oracle.NO_VALID_HOST, server['fault']['message'])

    def test_scheduler_runs_the_scenario_filters(self):
        # Read back from the running scheduler's host manager, not from the
        # configuration: Nova reads the option only when it starts.
        for filters in (self.cloud.enabled_filters,
                        self.cloud.state()['enabled_filters']):
            self.assertIn('PciPassthroughFilter', filters)
            self.assertIn('AggregateInstanceExtraSpecsFilter', filters)
            self.assertIn('ComputeFilter', filters)

    def test_only_the_scenario_flavors_exist(self):
        # Nova's preloaded m1.* flavors are gone; private ones are listed.
        flavors = {f.name: f for f in self.conn.compute.flavors(
            is_public=None)}
        self.assertEqual({
            'de.NBI GPU V100 medium', 'de.NBI GPU V100 large',
            'de.NBI 2 GPU V100 large', 'de.NBI large', 'de.NBI highcpu',
            'de.NBI medium', 'de.NBI private GPU'}, set(flavors))
        self.assertFalse(flavors['de.NBI private GPU'].is_public)
        self.assertEqual({'pci_passthrough:alias': 'V100:2',
                          'aggregate_instance_extra_specs:gpu': 'True'},
                         flavors['de.NBI 2 GPU V100 large'].extra_specs)

    def test_hypervisors_at_2_87_show_the_scenario_sizes(self):
        resp = self.conn.compute.get('/os-hypervisors/detail',
                                     microversion='2.87')
        hypervisors = {h['service']['host']: h
                       for h in resp.json()['hypervisors']}
        self.assertEqual(set(NODES), set(hypervisors))
        for host, hyp in hypervisors.items():
            # FQDN node, short service host, as on many production clouds.
            self.assertEqual(NODES[host], hyp['hypervisor_hostname'])
            self.assertEqual(28, hyp['vcpus'])
            self.assertEqual(385024, hyp['memory_mb'])
            self.assertEqual(2000, hyp['local_gb'])
        # memory_mb_used counts the 512 MB reserved for the host.
        self.assertEqual(14, hypervisors['gpu1']['vcpus_used'])
        self.assertEqual(512 + 65536, hypervisors['gpu1']['memory_mb_used'])
        self.assertEqual(512, hypervisors['gpu2']['memory_mb_used'])
        self.assertEqual(1, hypervisors['gpu1']['running_vms'])

    def test_hypervisors_at_2_88_lost_the_resource_fields(self):
        resp = self.conn.compute.get('/os-hypervisors/detail',
                                     microversion='2.88')
        for hyp in resp.json()['hypervisors']:
            self.assertNotIn('vcpus', hyp)
            self.assertNotIn('memory_mb', hyp)

    def test_placement_inventories_carry_nova_defaults(self):
        rps = placement_view.providers(self.conn)
        self.assertEqual(set(NODES.values()), set(rps))
        for name, rp in rps.items():
            inv = rp['inventories']
            self.assertEqual({'VCPU', 'MEMORY_MB', 'DISK_GB'}, set(inv))
            self.assertEqual((28, 0, 4.0, 28), (
                inv['VCPU']['total'], inv['VCPU']['reserved'],
                inv['VCPU']['allocation_ratio'], inv['VCPU']['max_unit']))
            self.assertEqual((385024, 512, 1.0), (
                inv['MEMORY_MB']['total'], inv['MEMORY_MB']['reserved'],
                inv['MEMORY_MB']['allocation_ratio']))
            self.assertEqual((2000, 0, 1.0), (
                inv['DISK_GB']['total'], inv['DISK_GB']['reserved'],
                inv['DISK_GB']['allocation_ratio']))
        self.assertEqual({'VCPU': 14, 'MEMORY_MB': 65536, 'DISK_GB': 50},
                         rps[NODES['gpu1']]['usages'])

    def test_aggregates_list_service_hosts_and_reach_placement(self):
        aggregates = {a.name: a for a in self.conn.compute.aggregates()}
        gpu = aggregates['GPU V100']
        self.assertEqual(['gpu1', 'gpu2'], sorted(gpu.hosts))
        self.assertEqual({'gpu': 'True', 'gpu_count': '2',
                          'gpu_type': 'V100'}, gpu.metadata)
        self.assertEqual({'gpu': 'False'},
                         aggregates['General Purpose'].metadata)
        rps = placement_view.providers(self.conn)
        self.assertEqual({gpu.uuid}, rps[NODES['gpu1']]['aggregates'])
        self.assertEqual({gpu.uuid}, rps[NODES['gpu2']]['aggregates'])

    def test_oracle_counts_gpu_flavors(self):
        self._assert_unchanged_usage()
        # medium (14 vCPU, 65536 MB, V100:1): per GPU host
        #   min(PCI 2, VCPU 112 // 14 = 8, RAM 384512 // 65536 = 5) = 2;
        #   gpu1 already runs one -> 1 + 2 = 3.
        self.assertEqual(3, oracle.boot_until_no_valid_host(
            self.conn, 'de.NBI GPU V100 medium'))
        # large (28 vCPU, 327680 MB, V100:1): RAM 384512 // 327680 = 1 per
        #   host; gpu1 has 384512 - 65536 = 318976 MB left -> 0 + 1 = 1.
        self.assertEqual(1, oracle.boot_until_no_valid_host(
            self.conn, 'de.NBI GPU V100 large'))
        # 2 GPU large (28 vCPU, 163840 MB, V100:2): PCI 2 // 2 = 1 per
        #   host; gpu1 has one free V100 -> 0 + 1 = 1.
        self.assertEqual(1, oracle.boot_until_no_valid_host(
            self.conn, 'de.NBI 2 GPU V100 large'))

    def test_oracle_is_repeatable(self):
        # Deleted servers give back their PCI devices and allocations, so
        # a second measurement sees the same cloud.
        first = oracle.fill(self.conn, 'de.NBI 2 GPU V100 large')
        second = oracle.fill(self.conn, 'de.NBI 2 GPU V100 large')
        self.assertEqual(first.count, second.count)
        self.assertEqual(first.hosts, second.hosts)

    def test_aggregate_extra_specs_filter_keeps_gpu_hosts_out(self):
        self._assert_unchanged_usage()
        # de.NBI large asks for gpu=False: only cpu1 matches.
        #   cpu1: min(VCPU 112 // 28 = 4, RAM 384512 // 65536 = 5) = 4.
        # gpu1 and gpu2 have room for 3 and 4 more in Placement.
        result = oracle.fill(self.conn, 'de.NBI large')
        self.assertEqual(4, result.count)
        self.assertEqual({'cpu1': 4}, dict(result.hosts))
        # Asking for gpu2 by name still runs the filters.
        self._assert_no_valid_host('de.NBI large', 'gpu2')

    def test_pci_flavor_only_lands_where_a_device_is_free(self):
        self._assert_unchanged_usage()
        # de.NBI private GPU: V100:1 and no aggregate spec, so only the PCI
        # filter keeps it off cpu1. gpu1 has 1 free V100, gpu2 2 -> 3.
        result = oracle.fill(self.conn, 'de.NBI private GPU', keep=True)
        self.addCleanup(oracle.delete_servers, self.conn, result.servers)
        self.assertEqual(3, result.count)
        self.assertEqual({'gpu1': 1, 'gpu2': 2}, dict(result.hosts))
        # With every V100 taken, gpu2 still has CPU and RAM for it, and
        # cpu1 never had a V100: both are filtered out.
        self._assert_no_valid_host('de.NBI private GPU', 'gpu2')
        self._assert_no_valid_host('de.NBI private GPU', 'cpu1')
