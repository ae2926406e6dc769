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
"""The Placement source against a real Nova 34 + Placement 16.

What the snapshot holds is compared with what Placement answers to plain
GETs made here, independently of the source's own parsing; call counts are
those of the real CloudClient.
"""

from flavor_exporter.capacity import model
from flavor_exporter.publication import cache
from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.worker import openstack
from flavor_exporter.worker import placement_providers
from flavor_exporter.worker import placement_source
from flavor_exporter.worker import provider_store
from testcloud import loopback

NOVA_CALLS = 4  # hypervisors, flavors, services, aggregates: one page each
# The hypervisors are listed again only when the compute nodes change.
WARM_NOVA_CALLS = NOVA_CALLS - 1
# The provider listing and one allocation candidates query.
PLACEMENT_CALLS = 2


def _placement_view(conn):
    """{uuid: (name, parent, generation, inventories, usages, traits)}."""
    def get(path):
        response = conn.placement.get(path, microversion='1.14')
        response.raise_for_status()
        return response.json()

    view = {}
    for rp in get('/resource_providers')['resource_providers']:
        base_path = '/resource_providers/%s/' % rp['uuid']
        inventories = {
            rc: model.Inventory(
                total=inv['total'], reserved=inv['reserved'],
                min_unit=inv['min_unit'], max_unit=inv['max_unit'],
                step_size=inv['step_size'],
                allocation_ratio=inv['allocation_ratio'])
            for rc, inv in get(base_path + 'inventories')[
                'inventories'].items()}
        view[rp['uuid']] = (
            rp['name'], rp['parent_provider_uuid'], rp['generation'],
            inventories, get(base_path + 'usages')['usages'],
            frozenset(get(base_path + 'traits')['traits']))
    return view


def _snapshot_view(snapshot):
    return {p.uuid: (p.name, p.parent_uuid, p.generation, p.inventories,
                     p.usages, p.traits)
            for host in snapshot.hosts for p in host.providers}


class PlacementSourceFunctionalTest(base.TestCase):

    def setUp(self):
        super().setUp()
        # The calls counted are those of the capacity numbers; set checks
        # add the hypervisors to every usage reading (unit tests:
        # test_placement_source, test_set_checks_read_the_hypervisors...).
        self.flags(group='checks', enabled=False)

    def collect(self, source, client):
        start = client.call_count
        snapshot = source.collect(client)
        self.assertEqual(client.call_count - start, snapshot.api_calls)
        return snapshot


class TestPciInPlacement(PlacementSourceFunctionalTest):
    """PCI devices as child providers; the cloud is not changed."""

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            'pci_placement', shared=True)).cloud
        self.conn = self.cloud.connection()
        self.client = openstack.CloudClient(self.conn)

    def test_snapshot_is_what_placement_reports(self):
        snapshot = self.collect(
            placement_source.PlacementSource(self.conf), self.client)
        self.assertEqual([], snapshot.problems)
        self.assertEqual(_placement_view(self.conn),
                         _snapshot_view(snapshot))
        hypervisors = {h.id: h for h in self.conn.compute.hypervisors(
            details=True)}
        self.assertEqual(set(hypervisors),
                         {host.root.uuid for host in snapshot.hosts})
        for host in snapshot.hosts:
            self.assertEqual(hypervisors[host.root.uuid].name, host.node)
            self.assertEqual(self.cloud.hosts[host.name]['node'], host.node)
            self.assertTrue(host.enabled)
            self.assertTrue(host.up)
            self.assertEqual('nova', host.availability_zone)
        by_name = {host.name: host for host in snapshot.hosts}
        self.assertEqual(1, len(by_name['cpu-1'].providers))
        devices = by_name['pgpu-1'].providers[1:]
        self.assertEqual(['pgpu-1.example.org_0000:81:00.0',
                          'pgpu-1.example.org_0000:82:00.0'],
                         [p.name for p in devices])
        # The scenario's server holds one of the two devices.
        self.assertEqual(1, sum(p.usages['CUSTOM_PCI_10DE_20B0']
                                for p in devices))
        # Exactly the scenario's flavors (the cloud drops Nova's m1.*).
        self.assertEqual({'pci.a100.1', 'pci.a100.2', 'cpu.large'},
                         {f.name for f in snapshot.flavors})

    def test_second_refresh_calls(self):
        source = placement_source.PlacementSource(self.conf)
        providers = 3 + 4  # three roots, four PCI devices
        first = self.collect(source, self.client)
        # No GPU aggregate in this scenario: no servers listing. Every
        # tree has free VCPUs: usages and traits all come with the
        # allocation candidates, inventories are read once each.
        self.assertEqual(PLACEMENT_CALLS + providers + NOVA_CALLS,
                         first.api_calls)
        self.assertEqual(self.client.calls['placement'],
                         PLACEMENT_CALLS + providers)
        second = self.collect(source, self.client)
        self.assertEqual(PLACEMENT_CALLS + WARM_NOVA_CALLS, second.api_calls)
        self.assertEqual({'api_calls': second.api_calls,
                          'providers': providers, 'providers_fetched': 0,
                          'providers_reused': providers,
                          'usages_read': 0, 'usages_summarized': providers},
                         source.last_stats)
        self.assertEqual(_snapshot_view(first), _snapshot_view(second))


class TestServerDelete(PlacementSourceFunctionalTest):
    """Deleting a server frees its resources without a new generation."""

    def test_usage_drop_is_seen(self):
        cloud = self.useFixture(fe_fixtures.Cloud('pci_placement')).cloud
        conn = cloud.connection()
        client = openstack.CloudClient(conn)
        source = placement_source.PlacementSource(self.conf)
        before = self.collect(source, client)
        [server] = list(conn.compute.servers(all_projects=True))
        conn.compute.delete_server(server)
        conn.compute.wait_for_delete(server, wait=120)

        after = self.collect(source, client)
        self.assertEqual(_placement_view(conn), _snapshot_view(after))
        used_before = {p.uuid: p for h in before.hosts for p in h.providers}
        pgpu = [h for h in after.hosts if h.name == 'pgpu-1'][0]
        self.assertEqual({'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0},
                         pgpu.root.usages)
        self.assertEqual(0, sum(p.usages['CUSTOM_PCI_10DE_20B0']
                                for p in pgpu.providers[1:]))
        # The reason usages are read every refresh: Nova deleted the
        # allocations with DELETE /allocations/{uuid} and Placement left
        # every generation as it was.
        self.assertEqual(
            [used_before[p.uuid].generation for p in pgpu.providers],
            [p.generation for p in pgpu.providers])

    def test_provider_without_hypervisor(self):
        cloud = self.useFixture(fe_fixtures.Cloud('pci_placement')).cloud
        conn = cloud.connection()
        client = openstack.CloudClient(conn)
        source = placement_source.PlacementSource(self.conf)
        self.collect(source, client)
        response = conn.placement.post(
            '/resource_providers', microversion='1.20',
            json={'name': 'shared-disk'})
        response.raise_for_status()
        shared = response.json()['uuid']
        snapshot = self.collect(source, client)
        self.assertEqual(
            ['resource provider shared-disk (%s): root provider with no '
             'hypervisor (a sharing provider, or a compute node Nova no '
             'longer has), its tree of 1 provider(s) skipped' % shared],
            snapshot.problems)
        # Not read: the compute providers' usages come from the
        # allocation candidates.
        self.assertEqual(PLACEMENT_CALLS + NOVA_CALLS, snapshot.api_calls)


class TestGpuAggregates(PlacementSourceFunctionalTest):
    """GPU host aggregates of a cloud that keeps PCI out of Placement."""

    def test_pools_and_usage(self):
        cloud = self.useFixture(fe_fixtures.Cloud(
            'mixed_gpu', shared=True)).cloud
        self.flags(group='pci', alias=[
            '{"name": "V100", "vendor_id": "10de", "product_id": "1db4", '
            '"device_type": "type-PCI"}',
            '{"name": "A100", "vendor_id": "10de", "product_id": "20b0", '
            '"device_type": "type-PCI"}'])
        conn = cloud.connection()
        client = openstack.CloudClient(conn)
        source = placement_source.PlacementSource(self.conf)
        snapshot = self.collect(source, client)
        self.assertEqual([], snapshot.problems)
        # Per-host reserved memory and VCPU ratio as Placement has them.
        self.assertEqual(_placement_view(conn), _snapshot_view(snapshot))
        a100 = [h for h in snapshot.hosts if h.name == 'a100-1'][0]
        self.assertEqual((8192, 1.0),
                         (a100.root.inventories['MEMORY_MB'].reserved,
                          a100.root.inventories['VCPU'].allocation_ratio))
        self.assertEqual(
            [('a100-1', 'az-a100', [model.GpuPool('A100', 4, used=1)]),
             ('v100-1', 'az-v100', [model.GpuPool('V100', 2)]),
             ('v100-2', 'az-v100', [model.GpuPool('V100', 2)])],
            sorted((h.name, h.availability_zone, h.gpu_pools)
                   for h in snapshot.hosts))
        # Three roots, no device providers; the servers listings are
        # made (those running, those SOFT_DELETED).
        self.assertEqual(PLACEMENT_CALLS + 3 + NOVA_CALLS + 2,
                         snapshot.api_calls)
        self.assertEqual(2, client.calls['compute'] - NOVA_CALLS)
        # Server usage has no generation: listed on every refresh.
        self.assertEqual(PLACEMENT_CALLS + WARM_NOVA_CALLS + 2,
                         self.collect(source, client).api_calls)


class TestDisabledHost(PlacementSourceFunctionalTest):

    def test_disabled_service(self):
        cloud = self.useFixture(fe_fixtures.Cloud(
            'disabled_host', shared=True)).cloud
        client = openstack.CloudClient(cloud.connection())
        snapshot = self.collect(
            placement_source.PlacementSource(self.conf), client)
        self.assertEqual(
            [('host-1', True), ('host-2', True), ('host-3', False)],
            sorted((h.name, h.enabled) for h in snapshot.hosts))
        host3 = [h for h in snapshot.hosts if h.name == 'host-3'][0]
        self.assertIn(placement_source.DISABLED_TRAIT, host3.traits)


class TestUsagesTwoWays(PlacementSourceFunctionalTest):
    """Usages from allocation candidates are those read per provider.

    The source reads usages (and traits of changed providers) from one
    GET /allocation_candidates instead of one GET per provider; this proves
    on Placement 16 that both give the same figures, with allocations on
    roots and children, and that a full host's tree, which the candidates
    leave out, is read per provider.
    """

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            'usages_two_ways', shared=True)).cloud
        self.conn = self.cloud.connection()
        self.client = openstack.CloudClient(self.conn)
        self.view = _placement_view(self.conn)
        names = {view[0]: uuid for uuid, view in self.view.items()}
        self.full_tree = {names['full-1'],
                          names['full-1_0000:81:00.0']}

    def test_scenario_has_what_the_comparison_needs(self):
        by_name = {view[0]: view for view in self.view.values()}
        full = by_name['full-1']
        self.assertEqual(full[3]['VCPU'].capacity, full[4]['VCPU'])
        self.assertEqual({'CUSTOM_PCI_10DE_20B0': 1},
                         by_name['full-1_0000:81:00.0'][4])
        self.assertEqual(
            [0, 1], sorted(by_name['pgpu-1.example.org_0000:%s:00.0' % bus][
                4]['CUSTOM_PCI_10DE_20B0'] for bus in ('81', '82')))
        self.assertEqual(1, sum(view[4].get('VGPU', 0)
                                for view in self.view.values()))
        self.assertEqual({'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0},
                         by_name['cpu-1'][4])

    def test_summaries_are_the_per_provider_usages(self):
        # full-1 has no VCPU free, but memory.
        for resource_class, left_out in (('VCPU', self.full_tree),
                                         ('MEMORY_MB', set())):
            summaries = placement_providers.read_summaries(
                self.client, resource_class)
            self.assertEqual(set(self.view) - left_out, set(summaries))
            for uuid, (usages, traits) in summaries.items():
                name, _, _, _, per_provider, per_provider_traits = (
                    self.view[uuid])
                self.assertEqual((per_provider, per_provider_traits),
                                 (usages, traits), name)

    def test_snapshot_is_the_per_provider_view(self):
        source = placement_source.PlacementSource(self.conf)
        # Cold, VCPU asked for: full-1's tree is read per provider. Then
        # from the cache, asking for the class every tree had free
        # (memory or disk): everything from the candidates.
        for read_alone in (self.full_tree, set()):
            snapshot = self.collect(source, self.client)
            self.assertEqual([], snapshot.problems)
            self.assertEqual(self.view, _snapshot_view(snapshot))
            self.assertEqual(len(read_alone),
                             source.last_stats['usages_read'])
            self.assertEqual(len(self.view) - len(read_alone),
                             source.last_stats['usages_summarized'])


class TestSharedProviders(PlacementSourceFunctionalTest):
    """A new leader takes the providers from the shared memcached."""

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            'pci_placement', shared=True)).cloud
        self.memcached = self.useFixture(loopback.MemcachedFixture())

    def worker(self):
        """(source, client) of a worker process of its own."""
        backend = cache.MemcachedBackend(self.memcached.servers)
        self.addCleanup(backend.close)
        store = provider_store.ProviderStore(backend, 'flavor-exporter')
        return (placement_source.PlacementSource(self.conf, store=store),
                openstack.CloudClient(self.cloud.connection()))

    def test_new_leader_reads_no_provider(self):
        providers = 3 + 4  # three roots, four PCI devices
        leader, client = self.worker()
        first = self.collect(leader, client)
        leader.share()
        self.assertEqual(PLACEMENT_CALLS + providers,
                         client.calls['placement'])

        # The leader is gone: another worker's first collect reads the
        # listing and the allocation candidates, no provider.
        successor, client = self.worker()
        second = self.collect(successor, client)
        self.assertEqual(PLACEMENT_CALLS, client.calls['placement'])
        self.assertEqual(
            {'providers': providers, 'providers_fetched': 0,
             'providers_reused': providers, 'providers_shared': providers},
            {key: value for key, value in successor.last_stats.items()
             if key.startswith('providers')})
        self.assertEqual([], second.problems)
        self.assertEqual(_snapshot_view(first), _snapshot_view(second))
        self.assertEqual(_placement_view(self.cloud.connection()),
                         _snapshot_view(second))
