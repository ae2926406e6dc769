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

"""Pinned CPUs on the test cloud: PCPU inventory, NUMA cells, real pinning.

scenarios/pcpu.yaml: pcpu-1 and pcpu-2, each with shared CPUs 0-7 (VCPU 8)
and dedicated CPUs 8-15 (PCPU 8) in one NUMA cell; pcpu-1 runs one
pinned.medium (4 dedicated vCPUs). scenarios/pcpu_ram_overcommit.yaml: a
limit of pinned guests that Placement does not show.
"""

import uuid

from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from testcloud import oracle
from testcloud import placement_view
from testcloud import scenario

SHARED = list(range(0, 8))
DEDICATED = list(range(8, 16))


class PcpuScenarioParseTest(base.BaseTestCase):
    """The ``pcpus`` host key (no cloud started)."""

    HOST = {'name': 'h', 'vcpus': 4, 'memory_mb': 4096, 'local_gb': 10}

    def test_default_is_no_dedicated_cpus(self):
        self.assertEqual(0, scenario.parse({'hosts': [self.HOST]})
                         .hosts[0].pcpus)

    def test_pcpus(self):
        host = scenario.parse({'hosts': [dict(self.HOST, pcpus=6)]}).hosts[0]
        self.assertEqual((4, 6), (host.vcpus, host.pcpus))

    def test_dedicated_cpus_only(self):
        host = dict(self.HOST, vcpus=0, pcpus=6)
        self.assertEqual(0, scenario.parse({'hosts': [host]}).hosts[0].vcpus)

    def test_no_cpu_at_all_is_an_error(self):
        self.assertRaisesRegex(scenario.ScenarioError, 'at least one CPU',
                               scenario.parse,
                               {'hosts': [dict(self.HOST, vcpus=0)]})

    def test_negative_is_an_error(self):
        self.assertRaisesRegex(scenario.ScenarioError, 'negative',
                               scenario.parse,
                               {'hosts': [dict(self.HOST, pcpus=-1)]})

    def test_shipped_scenario(self):
        pcpu = scenario.load('pcpu')
        self.assertEqual([(8, 8), (8, 8)],
                         [(h.vcpus, h.pcpus) for h in pcpu.hosts])
        self.assertIn('NUMATopologyFilter', pcpu.enabled_filters)


class PcpuCloudTest(base.BaseTestCase):
    """A real Nova pins dedicated CPUs and counts them as PCPU."""

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            'pcpu', shared=True)).cloud
        self.conn = self.cloud.connection()
        before = placement_view.usages(self.conn)
        pinned_before = self.pinned()
        # The cloud is shared: whatever a test boots it must delete.
        self.addCleanup(lambda: self.assertEqual(
            (before, pinned_before),
            (placement_view.usages(self.conn), self.pinned())))

    def pinned(self):
        """{node: pinned host CPUs} as Nova's resource tracker saved them."""
        return {node: sorted(cpu for cell in cells or ()
                             for cpu in cell['pinned_cpus'])
                for node, cells in self.cloud.host_numa().items()}

    def boot(self, flavor, host):
        server = oracle.boot_servers(self.conn, flavor, 1, host=host)[0]
        self.addCleanup(oracle.delete_servers, self.conn, [server])
        return server

    def allocations(self, server):
        """{provider name: resources} of a server's allocations."""
        names = {rp['uuid']: name for name, rp
                 in placement_view.providers(self.conn).items()}
        resp = self.conn.placement.get('/allocations/%s' % server['id'])
        resp.raise_for_status()
        return {names[uuid]: alloc['resources']
                for uuid, alloc in resp.json()['allocations'].items()}

    def test_inventory_numa_cells_and_pre_booted_server(self):
        rps = placement_view.providers(self.conn)
        for node in ('pcpu-1.example.org', 'pcpu-2.example.org'):
            inventories = rps[node]['inventories']
            self.assertEqual(
                (8, 8, 1.0, 0),
                tuple(inventories['PCPU'][k] for k in (
                    'total', 'max_unit', 'allocation_ratio', 'reserved')))
            # VCPU counts the shared CPUs only.
            self.assertEqual((8, 8, 4.0), tuple(
                inventories['VCPU'][k] for k in (
                    'total', 'max_unit', 'allocation_ratio')))
        # The pre-booted pinned.medium: PCPU, not VCPU.
        self.assertEqual({'PCPU': 4, 'VCPU': 0, 'MEMORY_MB': 4096,
                          'DISK_GB': 20},
                         rps['pcpu-1.example.org']['usages'])
        self.assertEqual({'PCPU': 0, 'VCPU': 0, 'MEMORY_MB': 0,
                          'DISK_GB': 0},
                         rps['pcpu-2.example.org']['usages'])

        numa = self.cloud.host_numa()
        for node in ('pcpu-1.example.org', 'pcpu-2.example.org'):
            [cell] = numa[node]
            self.assertEqual((SHARED, DEDICATED, 16384),
                             (cell['cpuset'], cell['pcpuset'],
                              cell['memory']))
        pinned = numa['pcpu-1.example.org'][0]['pinned_cpus']
        self.assertEqual(4, len(pinned))
        self.assertLessEqual(set(pinned), set(DEDICATED))
        self.assertEqual([], numa['pcpu-2.example.org'][0]['pinned_cpus'])

    def test_dedicated_boot_pins_cpus_and_uses_pcpu(self):
        # pinned.isolate: 2 dedicated vCPUs plus one CPU for the emulator.
        server = self.boot('pinned.isolate', 'pcpu-2')
        self.assertEqual({'pcpu-2.example.org': {
            'PCPU': 3, 'MEMORY_MB': 2048, 'DISK_GB': 10}},
            self.allocations(server))
        usages = placement_view.usages(self.conn)['pcpu-2.example.org']
        self.assertEqual((3, 0), (usages['PCPU'], usages['VCPU']))

        topology = self.cloud.server_numa(server['id'])
        self.assertEqual('isolate', topology['emulator_threads_policy'])
        [cell] = topology['cells']
        self.assertEqual('dedicated', cell['cpu_policy'])
        self.assertEqual([0, 1], cell['pcpuset'])
        guest_cpus = sorted(cell['cpu_pinning'].values())
        self.assertEqual(2, len(set(guest_cpus)))
        self.assertEqual(1, len(cell['cpuset_reserved']))
        host_cpus = set(guest_cpus) | set(cell['cpuset_reserved'])
        self.assertEqual(3, len(host_cpus))
        self.assertLessEqual(host_cpus, set(DEDICATED))
        self.assertEqual(sorted(host_cpus),
                         self.pinned()['pcpu-2.example.org'])

        # The periodic update rebuilds the host's usage from its instances;
        # the pinning must survive it.
        self.cloud.run_periodics()
        self.assertEqual(sorted(host_cpus),
                         self.pinned()['pcpu-2.example.org'])

    def test_mixed_boot_pins_the_dedicated_mask_only(self):
        # mixed.medium: vCPUs 2-3 pinned (PCPU 2), 0-1 shared (VCPU 2).
        server = self.boot('mixed.medium', 'pcpu-2')
        self.assertEqual({'pcpu-2.example.org': {
            'PCPU': 2, 'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 10}},
            self.allocations(server))
        [cell] = self.cloud.server_numa(server['id'])['cells']
        self.assertEqual(('mixed', [0, 1], [2, 3]),
                         (cell['cpu_policy'], cell['cpuset'],
                          cell['pcpuset']))
        self.assertEqual(['2', '3'], sorted(cell['cpu_pinning']))
        pinned = sorted(cell['cpu_pinning'].values())
        self.assertLessEqual(set(pinned), set(DEDICATED))
        self.assertEqual(pinned, self.pinned()['pcpu-2.example.org'])

    def test_shared_boot_pins_nothing(self):
        server = self.boot('shared.large', 'pcpu-2')
        self.assertEqual({'pcpu-2.example.org': {
            'VCPU': 8, 'MEMORY_MB': 2048, 'DISK_GB': 10}},
            self.allocations(server))
        self.assertIsNone(self.cloud.server_numa(server['id']))
        self.assertEqual([], self.pinned()['pcpu-2.example.org'])

    def test_numa_topology_filter_runs(self):
        # Placement has room for this flavor on both hosts; only the
        # NUMATopologyFilter, which sees one NUMA cell per host, refuses a
        # guest with two NUMA nodes.
        name = 'two-nodes-%s' % uuid.uuid4().hex[:8]
        flavor = self.conn.compute.create_flavor(
            name=name, ram=2048, vcpus=2, disk=10)
        self.addCleanup(self.conn.compute.delete_flavor, flavor)
        self.conn.compute.create_flavor_extra_specs(
            flavor, {'hw:cpu_policy': 'dedicated', 'hw:numa_nodes': '2'})
        self.assertEqual(0, oracle.boot_until_no_valid_host(self.conn,
                                                            name))


class PinnedRamOvercommitTest(base.BaseTestCase):
    """scenarios/pcpu_ram_overcommit.yaml: the NUMA cell caps pinned RAM.

    Placement lets the host hand out 15360 MB (ratio 2.0), but a pinned
    guest must fit in the free memory of a NUMA cell, which is never
    overcommitted. Placement alone (what flavor-exporter's engine counts)
    says 7 for pinned.ram; Nova boots 4.
    """

    def test_pinned_guests_do_not_overcommit_ram(self):
        cloud = self.useFixture(fe_fixtures.Cloud('pcpu_ram_overcommit')).cloud
        conn = cloud.connection()
        inventory = placement_view.providers(conn)['ram-1']['inventories']
        memory = inventory['MEMORY_MB']
        self.assertEqual(7, int((memory['total'] - memory['reserved'])
                                * memory['allocation_ratio']) // 2048)
        self.assertEqual(8, inventory['PCPU']['total'])
        self.assertEqual(4, oracle.boot_until_no_valid_host(conn,
                                                            'pinned.ram'))
        # Shared guests have no NUMA topology: Placement decides.
        self.assertEqual(7, oracle.boot_until_no_valid_host(conn,
                                                            'shared.ram'))
