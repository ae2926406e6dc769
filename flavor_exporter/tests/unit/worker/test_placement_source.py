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
"""The Placement source against a canned cloud.

FakeCloud keeps the state of a small cloud and answers every GET the source
makes with documents shaped like Placement 1.14 (allocation candidates
1.29) and Nova 2.53/2.75/2.41/2.47 answer them (see the api-ref samples);
fakes.FakeClient stands in for CloudClient and records every call, so that
call counts are exact.
"""

import copy
import json
import logging
import os
import threading
from unittest import mock
import uuid as uuid_mod

from flavor_exporter.capacity import model
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.worker import fakes
from flavor_exporter.worker import openstack
from flavor_exporter.worker import placement_providers
from flavor_exporter.worker import placement_source
from flavor_exporter.worker import source as source_mod

PAYLOADS = os.path.join(os.path.dirname(__file__), 'payloads')

GPU_ALIAS = ('{"name": "V100", "vendor_id": "10de", "product_id": "1db4",'
             ' "device_type": "type-PCI"}')


def _uuid(label):
    """A stable UUID per label, so that failures name the same ids."""
    return str(uuid_mod.uuid5(uuid_mod.NAMESPACE_URL, label))


def _inventory(total, reserved=0, max_unit=None, ratio=1.0, min_unit=1,
               step_size=1):
    return {'allocation_ratio': ratio, 'max_unit': max_unit or total,
            'min_unit': min_unit, 'reserved': reserved,
            'step_size': step_size, 'total': total}


class FakeCloud:
    """State of a small cloud and the JSON its APIs answer with."""

    def __init__(self):
        self.providers = {}  # uuid -> dict
        self.hypervisors = []
        self.services = []
        self.aggregates = []
        self.flavors = []
        self.servers = []
        # What GET /allocation_candidates raises instead of answering.
        self.candidates_error = None

    # ----------------------------------------------------------- building

    def add_provider(self, name, parent=None, inventories=None, usages=None,
                     traits=(), generation=1, uuid=None):
        uuid = uuid or _uuid('rp-' + name)
        root = self.providers[parent]['root'] if parent else uuid
        self.providers[uuid] = {
            'name': name, 'uuid': uuid, 'parent': parent, 'root': root,
            'generation': generation,
            'inventories': copy.deepcopy(inventories or {}),
            'usages': dict(usages or {}), 'traits': list(traits)}
        return uuid

    def add_compute(self, node, service_host=None, vcpus=64,
                    memory_mb=257000, disk_gb=1800, usages=None,
                    traits=('COMPUTE_NODE', 'HW_CPU_X86_AVX2'),
                    status='enabled', state='up', forced_down=False,
                    with_service=True):
        """A compute node: hypervisor, service and root provider."""
        service_host = service_host or node
        uuid = self.add_provider(
            node,
            inventories={
                'VCPU': _inventory(vcpus, ratio=4.0),
                'MEMORY_MB': _inventory(memory_mb, reserved=512),
                'DISK_GB': _inventory(disk_gb)},
            usages=usages or {'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0},
            traits=traits)
        self.hypervisors.append(self._hypervisor(
            uuid, node, service_host, status, state))
        if with_service and not any(s['host'] == service_host
                                    for s in self.services):
            self.services.append({
                'binary': 'nova-compute', 'disabled_reason': None,
                'forced_down': forced_down, 'host': service_host,
                'id': _uuid('service-' + service_host), 'state': state,
                'status': status, 'updated_at': '2026-11-29T17:00:00.000000',
                'zone': 'nova'})
        return uuid

    @staticmethod
    def _hypervisor(uuid, node, service_host, status, state):
        # GET /os-hypervisors/detail at 2.53 (api-ref sample).
        return {
            'cpu_info': {'arch': 'x86_64', 'model': 'Nehalem',
                         'vendor': 'Intel', 'features': ['pge', 'clflush'],
                         'topology': {'cores': 1, 'threads': 1,
                                      'sockets': 4}},
            'current_workload': 0, 'state': state, 'status': status,
            'disk_available_least': 0, 'host_ip': '192.0.2.10',
            'free_disk_gb': 1028, 'free_ram_mb': 7680,
            'hypervisor_hostname': node, 'hypervisor_type': 'fake',
            'hypervisor_version': 1000, 'id': uuid, 'local_gb': 1028,
            'local_gb_used': 0, 'memory_mb': 8192, 'memory_mb_used': 512,
            'running_vms': 0,
            'service': {'host': service_host,
                        'id': _uuid('service-' + service_host),
                        'disabled_reason': None},
            'vcpus': 2, 'vcpus_used': 0}

    def add_vgpu_child(self, root, address, total=16, used=0):
        """A physical GPU of a libvirt compute, as Nova reports VGPUs."""
        node = self.providers[root]['name']
        return self.add_provider(
            '%s_pci_%s' % (node, address.replace(':', '_').replace('.', '_')),
            parent=root, inventories={'VGPU': _inventory(total)},
            usages={'VGPU': used},
            traits=['CUSTOM_NVIDIA_11'])

    def add_pci_child(self, root, address, used=0,
                      rc='CUSTOM_PCI_10DE_1DB4'):
        """A PCI device reported to Placement ([pci] report_in_placement)."""
        node = self.providers[root]['name']
        return self.add_provider(
            '%s_%s' % (node, address), parent=root,
            inventories={rc: _inventory(1)}, usages={rc: used},
            traits=['COMPUTE_MANAGED_PCI_DEVICE'])

    def add_aggregate(self, name, hosts, metadata=None):
        agg_id = len(self.aggregates) + 1
        metadata = dict(metadata or {})
        self.aggregates.append({
            'availability_zone': metadata.get('availability_zone'),
            'created_at': '2026-11-29T17:00:00.000000', 'deleted': False,
            'deleted_at': None, 'hosts': list(hosts), 'id': agg_id,
            'metadata': metadata, 'name': name, 'updated_at': None,
            'uuid': _uuid('agg-' + name)})

    def add_flavor(self, name, vcpus=1, ram=512, disk=1, extra_specs=None):
        flavor_id = str(len(self.flavors) + 1)
        self.flavors.append({
            'OS-FLV-DISABLED:disabled': False, 'disk': disk,
            'OS-FLV-EXT-DATA:ephemeral': 0, 'id': flavor_id,
            'links': [{'href': 'http://nova/v2.1/flavors/' + flavor_id,
                       'rel': 'self'}],
            'name': name, 'os-flavor-access:is_public': True, 'ram': ram,
            'swap': 0, 'vcpus': vcpus, 'rxtx_factor': 1.0,
            'description': None, 'extra_specs': dict(extra_specs or {})})

    def add_server(self, host, node, flavor_name, extra_specs=None):
        # GET /servers/detail at 2.47: the flavor is embedded.
        server_id = _uuid('server-%d' % len(self.servers))
        self.servers.append({
            'id': server_id, 'name': 'vm%d' % len(self.servers),
            'status': 'ACTIVE', 'OS-EXT-SRV-ATTR:host': host,
            'OS-EXT-SRV-ATTR:hypervisor_hostname': node,
            'OS-EXT-AZ:availability_zone': 'nova',
            'flavor': {'original_name': flavor_name, 'vcpus': 8,
                       'ram': 16384, 'disk': 40, 'ephemeral': 0, 'swap': 0,
                       'extra_specs': dict(extra_specs or {})}})

    def bump(self, uuid):
        self.providers[uuid]['generation'] += 1

    def remove_provider(self, uuid):
        del self.providers[uuid]

    # ---------------------------------------------------------- answering

    def answer(self, service, path, params):
        if service == 'placement':
            return self._placement(path, params)
        return self._compute(path, params)

    @staticmethod
    def _capacity(inv):
        try:
            return int((inv['total'] - inv['reserved'])
                       * inv['allocation_ratio'])
        except (KeyError, TypeError, ValueError):
            return 0  # tests of malformed inventories

    def _fits(self, rp, rc, amount):
        inv = rp['inventories'].get(rc)
        if inv is None:
            return False
        return (rp['usages'].get(rc, 0) + amount <= self._capacity(inv)
                and inv['min_unit'] <= amount <= inv['max_unit']
                and amount % inv['step_size'] == 0)

    def fill(self, uuid, classes=None):
        """Use all of a provider's classes (or those named)."""
        rp = self.providers[uuid]
        for rc in classes or rp['inventories']:
            rp['usages'][rc] = self._capacity(rp['inventories'][rc])

    def _candidates(self, params):
        """GET /allocation_candidates?resources=RC:N at 1.29.

        Every provider of each tree where one provider can take the
        amount is summarized with all its classes (api-ref sample).
        """
        if self.candidates_error is not None:
            raise self.candidates_error
        rc, amount = params['resources'].split(':')
        takers = [rp for rp in self.providers.values()
                  if self._fits(rp, rc, int(amount))]
        roots = {rp['root'] for rp in takers}
        return {
            'allocation_requests': [
                {'allocations': {rp['uuid']: {
                    'resources': {rc: int(amount)}}}} for rp in takers],
            'provider_summaries': {
                rp['uuid']: {
                    'resources': {
                        cls: {'capacity': self._capacity(inv),
                              'used': rp['usages'].get(cls, 0)}
                        for cls, inv in rp['inventories'].items()},
                    'traits': copy.deepcopy(rp['traits']),
                    'parent_provider_uuid': rp['parent'],
                    'root_provider_uuid': rp['root']}
                for rp in self.providers.values() if rp['root'] in roots}}

    def _placement(self, path, params):
        if path == '/allocation_candidates':
            return self._candidates(params)
        parts = path.strip('/').split('/')
        if parts == ['resource_providers']:
            return {'resource_providers': [
                {'generation': rp['generation'], 'uuid': rp['uuid'],
                 'name': rp['name'],
                 'parent_provider_uuid': rp['parent'],
                 'root_provider_uuid': rp['root'],
                 'links': [{'href': '/resource_providers/' + rp['uuid'],
                            'rel': 'self'}]}
                for rp in self.providers.values()]}
        rp = self.providers.get(parts[1]) if len(parts) == 3 else None
        if rp is None:
            raise openstack.CloudError('placement GET %s answered 404'
                                       % path)
        body = {'resource_provider_generation': rp['generation']}
        body[parts[2]] = copy.deepcopy(rp[parts[2]])
        return body

    def _compute(self, path, params):
        if path == '/os-hypervisors/detail':
            return {'hypervisors': self.hypervisors}
        if path == '/flavors/detail':
            assert params.get('is_public') == 'None', params
            return {'flavors': self.flavors}
        if path == '/os-services':
            return {'services': self.services}
        if path == '/os-aggregates':
            return {'aggregates': self.aggregates}
        if path == '/servers/detail':
            assert params.get('all_tenants'), params
            return {'servers': self.servers}
        raise openstack.CloudError('compute GET %s answered 404' % path)


class PlacementSourceTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = FakeCloud()
        self.client = fakes.FakeClient(answer=self.cloud.answer)
        # The calls counted here are those of the capacity numbers; set
        # checks add the hypervisors to every usage reading
        # (test_set_checks_read_the_hypervisors_with_usages).
        self.flags(group='checks', enabled=False)
        self.source = placement_source.PlacementSource(self.conf)

    def collect(self):
        start = self.client.call_count
        snapshot = self.source.collect(self.client)
        self.assertEqual(self.client.call_count - start, snapshot.api_calls)
        return snapshot

    @staticmethod
    def unreadable(snapshot):
        return {h.name: h.unreadable for h in snapshot.hosts
                if h.unreadable}

    @staticmethod
    def host(snapshot, node):
        for host in snapshot.hosts:
            if host.node == node:
                return host
        raise AssertionError('no host %s in %s'
                             % (node, [h.node for h in snapshot.hosts]))


class TestTrees(PlacementSourceTestCase):
    """Roots become hosts; VGPU and PCI children follow their root."""

    def setUp(self):
        super().setUp()
        cloud = self.cloud
        self.gpu = cloud.add_compute(
            'gpu1.example.org', service_host='gpu1',
            usages={'VCPU': 8, 'MEMORY_MB': 16384, 'DISK_GB': 40})
        self.vgpu_a = cloud.add_vgpu_child(self.gpu, '0000:81:00.0', used=4)
        self.vgpu_b = cloud.add_vgpu_child(self.gpu, '0000:82:00.0')
        self.pci = cloud.add_compute('pci1')
        self.dev_a = cloud.add_pci_child(self.pci, '0000:3b:00.0', used=1)
        self.dev_b = cloud.add_pci_child(self.pci, '0000:3c:00.0')
        cloud.add_flavor('m1.small')
        cloud.add_flavor('g1.v100', vcpus=8, ram=16384, disk=40,
                         extra_specs={'pci_passthrough:alias': 'V100:1'})

    def test_hosts_and_providers(self):
        snapshot = self.collect()
        self.assertEqual('placement', snapshot.source)
        self.assertEqual([], snapshot.problems)
        self.assertEqual(['gpu1.example.org', 'pci1'],
                         [h.node for h in snapshot.hosts])
        gpu = self.host(snapshot, 'gpu1.example.org')
        self.assertEqual('gpu1', gpu.name)
        self.assertTrue(gpu.enabled)
        self.assertTrue(gpu.up)
        self.assertEqual('nova', gpu.availability_zone)
        self.assertEqual([self.gpu, self.vgpu_a, self.vgpu_b],
                         [p.uuid for p in gpu.providers])
        root, child, _ = gpu.providers
        self.assertIsNone(root.parent_uuid)
        self.assertEqual(self.gpu, child.parent_uuid)
        self.assertEqual(
            model.Inventory(total=64, reserved=0, min_unit=1, max_unit=64,
                            step_size=1, allocation_ratio=4.0),
            root.inventories['VCPU'])
        self.assertEqual(
            model.Inventory(total=257000, reserved=512, max_unit=257000),
            root.inventories['MEMORY_MB'])
        self.assertEqual(256, root.inventories['VCPU'].capacity)
        self.assertEqual({'VCPU': 8, 'MEMORY_MB': 16384, 'DISK_GB': 40},
                         root.usages)
        self.assertEqual(frozenset({'COMPUTE_NODE', 'HW_CPU_X86_AVX2'}),
                         root.traits)
        self.assertEqual(1, root.generation)
        self.assertEqual({'VGPU': model.Inventory(total=16, max_unit=16)},
                         child.inventories)
        self.assertEqual({'VGPU': 4}, child.usages)
        self.assertEqual(frozenset({'CUSTOM_NVIDIA_11'}), child.traits)

        pci = self.host(snapshot, 'pci1')
        self.assertEqual([self.pci, self.dev_a, self.dev_b],
                         [p.uuid for p in pci.providers])
        device = pci.providers[1]
        self.assertEqual('pci1_0000:3b:00.0', device.name)
        self.assertEqual({'CUSTOM_PCI_10DE_1DB4': 1}, device.usages)
        self.assertEqual(frozenset({'COMPUTE_MANAGED_PCI_DEVICE'}),
                         device.traits)
        self.assertEqual(
            ['m1.small', 'g1.v100'], [f.name for f in snapshot.flavors])
        self.assertEqual({'pci_passthrough:alias': 'V100:1'},
                         snapshot.flavors[1].extra_specs)

    def test_first_collect_calls(self):
        snapshot = self.collect()
        # 1 provider list + 1 allocation candidates query (usages and
        # traits of both trees) + inventories of the 6 providers +
        # hypervisors, flavors, services, aggregates; no servers (no GPU
        # aggregate).
        self.assertEqual(1 + 1 + 6 + 4, snapshot.api_calls)
        paths = self.client.paths()
        # The usage query is asked beside the listing, the first calls.
        self.assertEqual({'/resource_providers', '/allocation_candidates'},
                         set(paths[:2]))
        candidates = paths.index('/allocation_candidates')
        self.assertEqual({'resources': 'VCPU:1'},
                         self.client.requests[candidates][3])
        for uuid in (self.gpu, self.vgpu_a, self.vgpu_b, self.pci,
                     self.dev_a, self.dev_b):
            self.assertEqual(1, paths.count(
                '/resource_providers/%s/inventories' % uuid))
        self.assertFalse([p for p in paths
                          if p.endswith(('/usages', '/traits'))])
        self.assertNotIn('/servers/detail', paths)
        self.assertEqual({'api_calls': 12, 'providers': 6,
                          'providers_fetched': 6, 'providers_reused': 0,
                          'usages_read': 0, 'usages_summarized': 6},
                         self.source.last_stats)

    def test_microversions(self):
        self.collect()
        versions = {(service, path.split('/')[1]): microversion
                    for service, path, microversion, _
                    in self.client.requests}
        self.assertEqual('1.14', versions['placement', 'resource_providers'])
        self.assertEqual('1.29',
                         versions['placement', 'allocation_candidates'])
        self.assertEqual('2.53', versions['compute', 'os-hypervisors'])
        self.assertEqual({'1.14', '1.29'}, {mv for service, _, mv, _
                                            in self.client.requests
                                            if service == 'placement'})

    def test_a_notified_collect_reads_what_changed(self):
        first = self.collect()
        for scope, read in (
                ({'flavors'}, {'/flavors/detail'}),
                ({'services'}, {'/os-services'}),
                ({'aggregates'}, {'/os-aggregates'}),
                ({'usages'}, set())):
            start = self.client.call_count
            snapshot = self.source.collect(self.client, frozenset(scope))
            nova = {p for p in self.client.paths(start)
                    if not p.startswith(('/allocation_candidates',
                                         '/resource_providers'))}
            self.assertEqual(read, nova, scope)
            # Placement announces nothing: read every time.
            self.assertIn('/allocation_candidates',
                          self.client.paths(start))
            self.assertEqual(
                [(h.name, h.enabled, h.availability_zone) for h in
                 first.hosts],
                [(h.name, h.enabled, h.availability_zone) for h in
                 snapshot.hosts])
            self.assertEqual([f.id for f in first.flavors],
                             [f.id for f in snapshot.flavors])

    def test_second_collect_reuses_unchanged_providers(self):
        first = self.collect()
        start = self.client.call_count
        second = self.collect()
        # Inventories and traits are not read again; usages are, from the
        # allocation candidates (see
        # test_usage_drop_without_generation_change); the hypervisors
        # are not listed again while the compute nodes stay the same.
        self.assertEqual(1 + 1 + 3, second.api_calls)
        paths = self.client.paths(start)
        self.assertEqual(1, paths.count('/allocation_candidates'))
        self.assertFalse([p for p in paths
                          if p.startswith('/resource_providers/')])
        self.assertEqual(
            [[(p.uuid, p.inventories, p.usages, p.traits, p.generation)
              for p in h.providers] for h in first.hosts],
            [[(p.uuid, p.inventories, p.usages, p.traits, p.generation)
              for p in h.providers] for h in second.hosts])
        self.assertEqual({'api_calls': 5, 'providers': 6,
                          'providers_fetched': 0, 'providers_reused': 6,
                          'usages_read': 0, 'usages_summarized': 6},
                         self.source.last_stats)

    def test_set_checks_read_the_hypervisors_with_usages(self):
        self.flags(group='checks', enabled=True)
        self.collect()
        start = self.client.call_count
        second = self.collect()
        self.assertEqual(1 + 1 + 3 + 1, second.api_calls)
        self.assertIn('/os-hypervisors/detail', self.client.paths(start))
        figures = second.hosts[0].figures
        # The api-ref sample's figures, as the scheduler weighs them.
        self.assertEqual(model.SchedulerFigures(
            free_ram_mb=7680, free_disk_gb=1028, disk_available_least=0,
            vcpus=2, vcpus_used=0, io_ops=0, hypervisor_version=1000),
            figures)

    def test_access_lists_are_kept_between_collects(self):
        self.cloud.add_flavor('private')
        flavor = self.cloud.flavors[-1]
        flavor['os-flavor-access:is_public'] = False
        path = '/flavors/%s/os-flavor-access' % flavor['id']
        self.client.bodies[path] = {'flavor_access': [
            {'flavor_id': flavor['id'], 'tenant_id': 'p1'}]}
        first = self.collect()
        start = self.client.call_count
        second = self.collect()
        self.assertNotIn(path, self.client.paths(start))
        self.assertEqual([('p1',)] * 2, [
            [f.projects for f in snapshot.flavors if f.name == 'private'][0]
            for snapshot in (first, second)])
        # [worker] flavor_access_max_age = 0: read at every refresh.
        self.flags(group='worker', flavor_access_max_age=0)
        source = placement_source.PlacementSource(self.conf)
        for _ in range(2):
            start = self.client.call_count
            source.collect(self.client)
            self.assertIn(path, self.client.paths(start))

    def test_generation_change_reads_that_provider_only(self):
        self.collect()
        rp = self.cloud.providers[self.vgpu_b]
        rp['inventories']['VGPU'] = _inventory(8)
        rp['traits'].append('CUSTOM_NVIDIA_12')
        self.cloud.bump(self.vgpu_b)
        start = self.client.call_count
        snapshot = self.collect()
        # Its traits come with the allocation candidates.
        self.assertEqual(1 + 1 + 1 + 3, snapshot.api_calls)
        reread = {p for p in self.client.paths(start)
                  if p.startswith('/resource_providers/')}
        self.assertEqual({'/resource_providers/%s/inventories' % self.vgpu_b},
                         reread)
        child = self.host(snapshot, 'gpu1.example.org').providers[2]
        self.assertEqual(8, child.inventories['VGPU'].total)
        self.assertEqual(frozenset({'CUSTOM_NVIDIA_11', 'CUSTOM_NVIDIA_12'}),
                         child.traits)
        self.assertEqual(2, child.generation)

    def test_usage_drop_without_generation_change(self):
        # Nova deletes a server's allocations with DELETE /allocations/{id}
        # ([DEFAULT] reclaim_instance_interval = 0) and Placement does not
        # increment the provider generation then.
        self.collect()
        self.cloud.providers[self.vgpu_a]['usages'] = {'VGPU': 0}
        self.cloud.providers[self.gpu]['usages'] = {
            'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0}
        snapshot = self.collect()
        gpu = self.host(snapshot, 'gpu1.example.org')
        self.assertEqual({'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0},
                         gpu.providers[0].usages)
        self.assertEqual({'VGPU': 0}, gpu.providers[1].usages)

    def test_nova_is_asked_without_waiting_for_placement(self):
        # Nova and Placement are services of their own: Nova's listings
        # are asked while Placement builds its answers. Here Placement's
        # listing is answered only once Nova was asked for all of them.
        self.flags(group='checks', enabled=True)  # a poll lists hypervisors
        asked = {path: threading.Event() for path in (
            '/os-hypervisors/detail', '/flavors/detail', '/os-services',
            '/os-aggregates')}
        waited = []

        def answer(service, path, params):
            if path in asked:
                asked[path].set()
            if path == '/resource_providers':
                waited.append(all(event.wait(5) for event in asked.values()))
            return self.cloud.answer(service, path, params)
        self.client = fakes.FakeClient(answer=answer)
        snapshot = self.collect()
        self.assertEqual([True], waited)
        self.assertEqual(['gpu1', 'pci1'],
                         sorted(host.name for host in snapshot.hosts
                                if not host.unreadable))
        self.assertEqual([], snapshot.problems)

    def test_unchanged_providers_are_the_last_collects_objects(self):
        # What keeps a warm refresh cheap: nothing is made again of a
        # provider whose generation and usages stayed, and comparing the
        # snapshots finds the same objects.
        first = self.collect()
        before = {p.uuid: p for h in first.hosts for p in h.providers}
        self.cloud.providers[self.vgpu_a]['usages'] = {'VGPU': 1}
        self.cloud.providers[self.dev_b]['traits'] = ['CUSTOM_NEW']
        self.cloud.bump(self.dev_b)
        second = self.collect()
        after = {p.uuid: p for h in second.hosts for p in h.providers}
        self.assertEqual(set(before), set(after))
        for uuid in set(before) - {self.vgpu_a, self.dev_b}:
            self.assertIs(before[uuid], after[uuid])
        self.assertIsNot(before[self.vgpu_a], after[self.vgpu_a])
        self.assertEqual({'VGPU': 4}, before[self.vgpu_a].usages)
        self.assertEqual({'VGPU': 1}, after[self.vgpu_a].usages)
        self.assertIsNot(before[self.dev_b], after[self.dev_b])
        self.assertEqual(frozenset(['CUSTOM_NEW']), after[self.dev_b].traits)
        self.assertEqual(before[self.dev_b].generation + 1,
                         after[self.dev_b].generation)
        # A source of its own (a new leader) makes every object anew, the
        # same figures.
        other = placement_source.PlacementSource(self.conf).collect(
            self.client)
        fresh = {p.uuid: p for h in other.hosts for p in h.providers}
        self.assertEqual(after, fresh)
        self.assertFalse(any(fresh[uuid] is after[uuid] for uuid in fresh))

    def test_calls_do_not_grow_with_flavors(self):
        first = self.collect().api_calls
        for i in range(500):
            self.cloud.add_flavor('extra%d' % i)
        other = placement_source.PlacementSource(self.conf)
        snapshot = other.collect(self.client)
        self.assertEqual(502, len(snapshot.flavors))
        self.assertEqual(first, snapshot.api_calls)

    def test_disappeared_provider(self):
        self.collect()
        self.cloud.remove_provider(self.dev_b)
        snapshot = self.collect()
        self.assertEqual([self.pci, self.dev_a],
                         [p.uuid for p in self.host(snapshot,
                                                    'pci1').providers])
        self.assertEqual([], snapshot.problems)
        # Forgotten, not just hidden: back with its old generation, it is
        # read in full again.
        self.cloud.add_pci_child(self.pci, '0000:3c:00.0')
        start = self.client.call_count
        self.collect()
        self.assertEqual(
            ['/resource_providers/%s/inventories' % self.dev_b],
            [p for p in self.client.paths(start) if self.dev_b in p])

    def test_disappeared_host(self):
        self.collect()
        for uuid in (self.dev_a, self.dev_b, self.pci):
            self.cloud.remove_provider(uuid)
        self.cloud.hypervisors = [h for h in self.cloud.hypervisors
                                  if h['id'] != self.pci]
        self.cloud.services = [s for s in self.cloud.services
                               if s['host'] != 'pci1']
        snapshot = self.collect()
        self.assertEqual(['gpu1.example.org'],
                         [h.node for h in snapshot.hosts])
        self.assertEqual([], snapshot.problems)
        self.assertEqual(1 + 1 + 4, snapshot.api_calls)

    def test_new_host_read_in_full(self):
        self.collect()
        new = self.cloud.add_compute('new1')
        start = self.client.call_count
        snapshot = self.collect()
        self.assertEqual(1 + 1 + 1 + 4, snapshot.api_calls)
        self.assertEqual(['/resource_providers/%s/inventories' % new],
                         [p for p in self.client.paths(start) if new in p])
        self.assertEqual(3, len(snapshot.hosts))
        self.assertEqual({'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0},
                         self.host(snapshot, 'new1').root.usages)


class TestScale(PlacementSourceTestCase):
    """Exact calls per refresh on N single-provider hosts."""

    def add_hosts(self, hosts):
        for i in range(hosts):
            self.cloud.add_compute('cn%02d' % i)
            self.cloud.add_flavor('f%d' % i)

    def test_n_hosts(self):
        hosts = 10
        self.add_hosts(hosts)
        self.assertEqual(hosts + 6, self.collect().api_calls)
        self.assertEqual(5, self.collect().api_calls)

    def test_n_full_hosts(self):
        # No allocation candidate at all: every usage is read on its own.
        hosts = 10
        self.add_hosts(hosts)
        for uuid in self.cloud.providers:
            self.cloud.fill(uuid)
        self.assertEqual(3 * hosts + 6, self.collect().api_calls)
        self.assertEqual(hosts + 5, self.collect().api_calls)

    def test_placement_without_candidates_microversion(self):
        # Placement before 1.29 (Queens) refuses the query with a 406.
        hosts = 10
        self.add_hosts(hosts)
        self.cloud.candidates_error = openstack.CloudError(
            'placement GET /allocation_candidates answered 406',
            status=406)
        snapshot = self.collect()
        self.assertEqual([], snapshot.problems)
        self.assertEqual(3 * hosts + 6, snapshot.api_calls)
        self.assertEqual(hosts + 5, self.collect().api_calls)

    def test_slow_way_said_once_a_warning_then_debug(self):
        self.add_hosts(2)
        self.cloud.candidates_error = openstack.CloudError(
            'placement GET /allocation_candidates answered 406',
            status=406)
        with mock.patch.object(source_mod.LOG, 'log') as log:
            self.collect()
            self.collect()
            self.cloud.candidates_error = None
            self.collect()
        self.assertEqual([logging.WARNING, logging.DEBUG, logging.INFO],
                         [call.args[0] for call in log.call_args_list])
        self.assertIn('one provider at a time', log.call_args_list[0].args[3])


class TestUsagesFromCandidates(PlacementSourceTestCase):
    """Usages from one allocation candidates query, the rest one by one."""

    def setUp(self):
        super().setUp()
        self.free = self.cloud.add_compute(
            'free1', usages={'VCPU': 3, 'MEMORY_MB': 2048, 'DISK_GB': 0})
        self.full = self.cloud.add_compute('full1')
        self.device = self.cloud.add_pci_child(self.full, '0000:3b:00.0')
        self.cloud.fill(self.full)
        self.cloud.fill(self.device)

    def paths(self, start, uuid):
        return sorted(p.rsplit('/', 1)[1] for p in self.client.paths(start)
                      if uuid in p)

    def test_full_host_read_on_its_own(self):
        snapshot = self.collect()
        self.assertEqual(['inventories'], self.paths(0, self.free))
        for uuid in (self.full, self.device):
            self.assertEqual(['inventories', 'traits', 'usages'],
                             self.paths(0, uuid))
        self.assertEqual({'VCPU': 3, 'MEMORY_MB': 2048, 'DISK_GB': 0},
                         self.host(snapshot, 'free1').root.usages)
        full = self.host(snapshot, 'full1')
        self.assertEqual({'VCPU': 256, 'MEMORY_MB': 256488,
                          'DISK_GB': 1800}, full.root.usages)
        self.assertEqual(frozenset({'COMPUTE_NODE', 'HW_CPU_X86_AVX2'}),
                         full.root.traits)
        self.assertEqual({'CUSTOM_PCI_10DE_1DB4': 1},
                         full.providers[1].usages)
        self.assertEqual(1 + 1 + 3 + 2 * 2 + 4, snapshot.api_calls)
        self.assertEqual(1, self.source.last_stats['usages_summarized'])

        start = self.client.call_count
        second = self.collect()
        self.assertEqual([], self.paths(start, self.free))
        self.assertEqual(['usages'], self.paths(start, self.full))
        self.assertEqual(1 + 1 + 2 + 3, second.api_calls)

        # A server of the full host deleted: its tree is a candidate again.
        self.cloud.providers[self.full]['usages']['VCPU'] = 100
        start = self.client.call_count
        third = self.collect()
        self.assertEqual(1 + 1 + 3, third.api_calls)
        self.assertEqual(100, self.host(third, 'full1').root.usages['VCPU'])

    def test_a_notified_collect_reads_the_hosts_named(self):
        self.collect()
        # A server started on free1: full1's usages are kept.
        start = self.client.call_count
        snapshot = self.source.collect(self.client, frozenset(['usages']),
                                       frozenset(['free1']))
        self.assertEqual([], self.paths(start, self.full))
        self.assertEqual(2, self.source.last_stats['usages_kept'])
        self.assertEqual(256, self.host(snapshot, 'full1').root.usages[
            'VCPU'])
        # Something on full1 itself: read again.
        start = self.client.call_count
        self.source.collect(self.client, frozenset(['usages']),
                            frozenset(['full1']))
        self.assertEqual(['usages'], self.paths(start, self.full))
        # A server that moved (any host), or a poll: every tree read.
        for scope, hosts in ((frozenset(['usages']), None), (None, None)):
            start = self.client.call_count
            self.source.collect(self.client, scope, hosts)
            self.assertEqual(['usages'], self.paths(start, self.full))
        # A flavor changed: no usage can have.
        start = self.client.call_count
        self.source.collect(self.client, frozenset(['flavors']), None)
        self.assertEqual([], self.paths(start, self.full))

    def test_unusable_summary_read_on_its_own(self):
        body = self.cloud.answer('placement', '/allocation_candidates',
                                 {'resources': 'VCPU:1'})
        body['provider_summaries'][self.free]['resources']['VCPU'][
            'used'] = 'three'
        self.client.bodies['/allocation_candidates'] = body
        snapshot = self.collect()
        self.assertEqual([], snapshot.problems)
        self.assertEqual(['inventories', 'traits', 'usages'],
                         self.paths(0, self.free))
        self.assertEqual(3, self.host(snapshot, 'free1').root.usages['VCPU'])

    def test_summary_without_a_class_makes_the_host_unreadable(self):
        # A class missing is not known to be unused: counting it free
        # would show a device in use as available.
        body = self.cloud.answer('placement', '/allocation_candidates',
                                 {'resources': 'VCPU:1'})
        del body['provider_summaries'][self.free]['resources']['DISK_GB']
        self.client.bodies['/allocation_candidates'] = body
        snapshot = self.collect()
        self.assertEqual(
            {'free1': 'resource provider free1 (%s): unusable allocation '
             'candidates summary (no used amount of DISK_GB)' % self.free},
            self.unreadable(snapshot))
        self.assertEqual([], self.host(snapshot, 'free1').providers)
        self.assertIsNone(self.host(snapshot, 'full1').unreadable)
        # Only the usages were bad: the next refresh reads them again and
        # counts the host, its inventories from the cache.
        del self.client.bodies['/allocation_candidates']
        start = self.client.call_count
        snapshot = self.collect()
        self.assertEqual({}, self.unreadable(snapshot))
        self.assertEqual([], self.paths(start, self.free))

    def test_usages_without_a_class_make_the_host_unreadable(self):
        # Read one by one (no summaries): the same rule.
        self.client.bodies['/allocation_candidates'] = {'error': 'odd'}
        for usages in ({}, {'VCPU': 3}):
            self.client.bodies['/resource_providers/%s/usages'
                               % self.device] = {
                'resource_provider_generation': 1, 'usages': usages}
            snapshot = self.collect()
            self.assertEqual(['full1'], list(self.unreadable(snapshot)))
            self.assertIn('unusable usages answer (no used amount of '
                          'CUSTOM_PCI_10DE_1DB4)',
                          self.unreadable(snapshot)['full1'])

    def test_unreadable_candidates_read_one_by_one(self):
        self.client.bodies['/allocation_candidates'] = {'error': 'odd'}
        snapshot = self.collect()
        self.assertEqual([], snapshot.problems)
        self.assertEqual(1 + 1 + 3 * 3 + 4, snapshot.api_calls)

    def test_failing_candidates_fail_the_refresh(self):
        self.cloud.candidates_error = openstack.CloudError(
            'placement GET /allocation_candidates answered 503', status=503)
        self.assertRaises(openstack.CloudError, self.collect)

    def test_probe_class_free_on_most_trees(self):
        # Dedicated CPU hosts without VCPU: the first refresh asks for
        # VCPU and reads them one by one; the next ones ask for the class
        # the most trees had free: memory (disk ties, VCPU and PCPU do
        # not), on which the full host is full too.
        for name in ('ded1', 'ded2', 'ded3'):
            uuid = self.cloud.add_compute(name)
            rp = self.cloud.providers[uuid]
            rp['inventories']['PCPU'] = rp['inventories'].pop('VCPU')
            rp['usages']['PCPU'] = rp['usages'].pop('VCPU')
        self.cloud.fill(self.cloud.providers[_uuid('rp-ded1')]['uuid'],
                        ['DISK_GB'])
        first = self.collect()
        # free1 summarized, the 5 other providers read one by one.
        self.assertEqual(1 + 1 + 1 + 3 * 5 + 4, first.api_calls)
        start = self.client.call_count
        snapshot = self.collect()
        [params] = [params for _, path, _, params
                    in self.client.requests[start:]
                    if path == '/allocation_candidates']
        self.assertEqual({'resources': 'MEMORY_MB:1'}, params)
        # full1's 2 providers' usages.
        self.assertEqual(1 + 1 + 2 + 3, snapshot.api_calls)
        self.assertEqual({'PCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0},
                         self.host(snapshot, 'ded2').root.usages)

    def test_probe_class(self):
        inv = model.Inventory
        providers = {
            'a': model.Provider('a', 'a', inventories={
                'VCPU': inv(4), 'DISK_GB': inv(10)},
                usages={'VCPU': 4, 'DISK_GB': 0}),
            'b': model.Provider('b', 'b', inventories={
                'VCPU': inv(4), 'DISK_GB': inv(10, step_size=5)},
                usages={'VCPU': 0}),
            'b1': model.Provider('b1', 'b1', parent_uuid='b', inventories={
                'VGPU': inv(4), 'CUSTOM_X': inv(4, min_unit=2)}),
        }
        wanted = [placement_providers.Summary(
            uuid, uuid, 1, providers[uuid].parent_uuid,
            providers[uuid].parent_uuid or uuid) for uuid in providers]
        # VCPU free on b, DISK_GB on a (b's takes steps of 5), VGPU on b's
        # tree; CUSTOM_X not by one unit: a tie that VCPU wins.
        self.assertEqual('VCPU',
                         placement_providers.probe_class(wanted, providers))
        providers['a'].usages['VCPU'] = 0
        self.assertEqual('VCPU',
                         placement_providers.probe_class(wanted, providers))
        providers['a'].usages['VCPU'] = 4
        providers['b'].usages['VCPU'] = 4
        self.assertEqual('DISK_GB',
                         placement_providers.probe_class(wanted, providers))
        self.assertEqual('VCPU',
                         placement_providers.probe_class(wanted, {}))


class TestParseProviderSummaries(base.BaseTestCase):

    def test_captured_answer(self):
        # Placement 16, GET /allocation_candidates?resources=VCPU:1 at
        # 1.29 on the pci_placement test cloud (pgpu-1 and pgpu-2 with two
        # PCI devices as children, one in use by a server, and cpu-1),
        # and the GET /resource_providers/{uuid}/usages and traits of its
        # providers, made right after.
        body = _payload('placement-allocation-candidates-1.29.json')
        per_provider = _payload(
            'placement-allocation-candidates-per-provider.json')
        parsed = placement_providers.parse_provider_summaries(body)
        self.assertEqual(
            {uuid: (read['usages']['usages'],
                    frozenset(read['traits']['traits']))
             for uuid, read in per_provider.items()}, parsed)
        by_name = {per_provider[uuid]['name']: entry
                   for uuid, entry in parsed.items()}
        self.assertEqual({'VCPU': 8, 'MEMORY_MB': 16384, 'DISK_GB': 20},
                         by_name['pgpu-1.example.org'][0])
        self.assertEqual(
            1, sum(by_name['pgpu-1.example.org_0000:%s:00.0' % bus][0][
                'CUSTOM_PCI_10DE_20B0'] for bus in ('81', '82')))
        self.assertEqual(
            frozenset({'COMPUTE_MANAGED_PCI_DEVICE', 'OWNER_NOVA'}),
            by_name['pgpu-2.example.org_0000:81:00.0'][1])

    def test_unusable_entries_left_out(self):
        good = {'resources': {'VGPU': {'capacity': 16, 'used': 2}},
                'traits': ['CUSTOM_NVIDIA_11']}
        empty = {'resources': {}, 'traits': []}
        body = {'provider_summaries': {
            'good': good, 'empty': empty,
            'no-traits': {'resources': {}},
            'no-resources': {'traits': []},
            'negative': {'resources': {'VCPU': {'used': -1}},
                         'traits': []},
            'boolean': {'resources': {'VCPU': {'used': True}},
                        'traits': []},
            'no-used': {'resources': {'VCPU': {'capacity': 4}},
                        'traits': []},
            'odd': 'text'}}
        self.assertEqual(
            {'good': ({'VGPU': 2}, frozenset({'CUSTOM_NVIDIA_11'})),
             'empty': ({}, frozenset())},
            placement_providers.parse_provider_summaries(body))

    def test_no_summaries(self):
        for body in ({}, [], {'provider_summaries': []}):
            self.assertRaises(placement_providers._Malformed,
                              placement_providers.parse_provider_summaries,
                              body)


class TestHostState(PlacementSourceTestCase):

    def test_disabled_trait(self):
        self.cloud.add_compute(
            'cn1', traits=['COMPUTE_NODE', 'COMPUTE_STATUS_DISABLED'])
        self.cloud.add_compute('cn2')
        snapshot = self.collect()
        self.assertFalse(self.host(snapshot, 'cn1').enabled)
        self.assertTrue(self.host(snapshot, 'cn1').up)
        self.assertTrue(self.host(snapshot, 'cn2').enabled)

    def test_service_state(self):
        self.cloud.add_compute('disabled', status='disabled')
        self.cloud.add_compute('down', state='down')
        self.cloud.add_compute('forced', forced_down=True)
        snapshot = self.collect()
        self.assertEqual(
            [('disabled', False, True), ('down', True, False),
             ('forced', True, False)],
            [(h.node, h.enabled, h.up) for h in snapshot.hosts])

    def test_service_missing_from_os_services(self):
        # The hypervisor carries the state of the same service.
        self.cloud.add_compute('cn1', state='down', with_service=False)
        host = self.collect().hosts[0]
        self.assertEqual((True, False), (host.enabled, host.up))

    def test_node_and_service_host_differ(self):
        self.cloud.add_compute('cn1.example.org', service_host='cn1')
        self.cloud.add_aggregate('az1', ['cn1'],
                                 {'availability_zone': 'az1'})
        snapshot = self.collect()
        host = snapshot.hosts[0]
        self.assertEqual(('cn1', 'cn1.example.org', 'az1'),
                         (host.name, host.node, host.availability_zone))
        self.assertEqual([], snapshot.problems)

    def test_ironic_nodes_share_a_service_host(self):
        for node in ('node-a', 'node-b'):
            self.cloud.add_compute(node, service_host='ironic1')
        self.cloud.add_aggregate('baremetal', ['ironic1'],
                                 {'baremetal': 'true'})
        snapshot = self.collect()
        self.assertEqual(
            [('ironic1', 'node-a', ['baremetal']),
             ('ironic1', 'node-b', ['baremetal'])],
            [(h.name, h.node, [a.name for a in h.aggregates])
             for h in snapshot.hosts])

    def test_availability_zones(self):
        self.flags(group='capacity', default_availability_zone='zone0')
        for node in ('cn1', 'cn2', 'cn3'):
            self.cloud.add_compute(node)
        self.cloud.add_aggregate('ssd', ['cn1', 'cn2'], {'ssd': 'true'})
        self.cloud.add_aggregate('az-east', ['cn2', 'cn3'],
                                 {'availability_zone': 'east'})
        snapshot = self.collect()
        self.assertEqual(
            [('cn1', 'zone0', ['ssd']), ('cn2', 'east', ['ssd', 'az-east']),
             ('cn3', 'east', ['az-east'])],
            [(h.node, h.availability_zone, [a.name for a in h.aggregates])
             for h in snapshot.hosts])
        self.assertEqual({'ssd': 'true'},
                         snapshot.hosts[0].aggregates[0].metadata)
        self.assertEqual(_uuid('agg-ssd'),
                         snapshot.hosts[0].aggregates[0].uuid)


class TestProblems(PlacementSourceTestCase):
    """What cannot be used is named: a host unreadable, or a failed call."""

    def setUp(self):
        super().setUp()
        self.cn1 = self.cloud.add_compute('cn1')

    def test_root_provider_without_hypervisor(self):
        shared = self.cloud.add_provider(
            'shared-storage', inventories={'DISK_GB': _inventory(10000)},
            traits=['MISC_SHARES_VIA_AGGREGATE'])
        stale = self.cloud.add_provider(
            'deleted-node', inventories={'VCPU': _inventory(8)})
        self.cloud.add_vgpu_child(stale, '0000:81:00.0')
        snapshot = self.collect()
        self.assertEqual(['cn1'], [h.node for h in snapshot.hosts])
        self.assertEqual(2, len(snapshot.problems))
        self.assertIn('shared-storage (%s): root provider with no '
                      'hypervisor' % shared, snapshot.problems[0]
                      + snapshot.problems[1])
        self.assertIn('deleted-node (%s): root provider with no '
                      'hypervisor' % stale, snapshot.problems[0]
                      + snapshot.problems[1])
        self.assertIn('tree of 2 provider(s) skipped',
                      ' '.join(snapshot.problems))
        # Not read at all: they cost no calls (the stale tree is in the
        # allocation candidates, and left out).
        self.assertEqual(1 + 1 + 1 + 4, snapshot.api_calls)

    def test_hypervisor_without_provider(self):
        ghost = _uuid('ghost')
        self.cloud.hypervisors.append(self.cloud._hypervisor(
            ghost, 'ghost.example.org', 'ghost', 'enabled', 'up'))
        snapshot = self.collect()
        self.assertEqual(['cn1', 'ghost.example.org'],
                         [h.node for h in snapshot.hosts])
        why = "no resource provider %s in Placement's listing" % ghost
        self.assertEqual({'ghost': why}, self.unreadable(snapshot))
        self.assertEqual(
            ['hypervisor ghost.example.org (host ghost): unreadable, '
             'excluded from every flavor: ' + why], snapshot.problems)

    def test_hypervisor_whose_provider_is_not_a_root(self):
        child = self.cloud.add_vgpu_child(self.cn1, '0000:81:00.0')
        self.cloud.hypervisors.append(self.cloud._hypervisor(
            child, 'odd', 'odd', 'enabled', 'up'))
        snapshot = self.collect()
        self.assertEqual(['cn1', 'odd'], [h.node for h in snapshot.hosts])
        self.assertEqual(['odd'], list(self.unreadable(snapshot)))
        self.assertEqual(1, len(snapshot.problems))
        self.assertIn('is not a root provider', snapshot.problems[0])

    def test_hypervisor_without_service_host(self):
        # The entry is named and skipped; the census finds its host.
        self.cloud.hypervisors[0]['service'] = None
        snapshot = self.collect()
        self.assertEqual(['cn1'], list(self.unreadable(snapshot)))
        self.assertEqual([], snapshot.hosts[0].providers)
        self.assertIn('names no compute service host, skipped',
                      snapshot.problems[0])
        self.assertIn('compute service host cn1: unreadable, excluded from '
                      'every flavor: os-hypervisors lists no compute node',
                      '\n'.join(snapshot.problems))

    def test_hypervisor_without_service_host_of_a_host_with_nodes(self):
        # Every service host has a node: which one the entry is a further
        # node of is unknown, so no number can be trusted.
        self.cloud.add_compute('cn2', service_host='cn1')
        self.cloud.hypervisors[1]['service'] = {'host': 7}
        error = self.assertRaises(openstack.CloudError, self.collect)
        self.assertIn('1 entries name no compute service host, and only 0 '
                      'compute service host(s) lack a node', str(error))

    def test_hypervisor_without_id_makes_its_host_unreadable(self):
        del self.cloud.hypervisors[0]['id']
        snapshot = self.collect()
        self.assertEqual({'cn1': "its os-hypervisors entry has no id or "
                          "node name (id=None, node='cn1')"},
                         self.unreadable(snapshot))

    def test_aggregate_host_without_hypervisor(self):
        self.cloud.add_aggregate('gold', ['cn1', 'retired7'],
                                 {'gold': 'true'})
        snapshot = self.collect()
        self.assertEqual(
            ['aggregate gold: host retired7 has no hypervisor, skipped'],
            snapshot.problems)
        self.assertEqual(['gold'],
                         [a.name for a in snapshot.hosts[0].aggregates])

    def test_inventory_without_total(self):
        # Counting the host without its VGPU child would publish a lower
        # VGPU count: the whole host is unreadable instead, and named.
        child = self.cloud.add_vgpu_child(self.cn1, '0000:81:00.0')
        del self.cloud.providers[child]['inventories']['VGPU']['total']
        snapshot = self.collect()
        [host] = snapshot.hosts
        self.assertEqual([], host.providers)
        self.assertIn(child, host.unreadable)
        self.assertIn('unusable inventories answer (inventory of VGPU has '
                      'no total)', host.unreadable)
        self.assertEqual(['hypervisor cn1 (host cn1): unreadable, excluded '
                          'from every flavor: %s' % host.unreadable],
                         snapshot.problems)

    def test_malformed_provider_is_read_again(self):
        # A bad answer may be passing trouble: it is not kept until the
        # generation moves (maybe never), it is asked again next time.
        child = self.cloud.add_vgpu_child(self.cn1, '0000:81:00.0')
        self.cloud.providers[child]['inventories']['VGPU']['step_size'] = 0
        first = self.collect()
        start = self.client.call_count
        second = self.collect()
        self.assertEqual(first.problems, second.problems)
        self.assertIn('VGPU step_size is 0', second.problems[0])
        # Allocation candidates (usages and traits) and the bad child's
        # inventories again, with the same generation.
        self.assertEqual(1 + 1 + 3 + 1, second.api_calls)
        self.assertIn('/resource_providers/%s/inventories' % child,
                      self.client.paths(start))
        self.cloud.providers[child]['inventories']['VGPU']['step_size'] = 1
        third = self.collect()
        self.assertEqual([], third.problems)
        self.assertEqual(2, len(third.hosts[0].providers))
        self.assertIsNone(third.hosts[0].unreadable)

    def test_unusable_root_makes_the_host_unreadable(self):
        self.cloud.add_vgpu_child(self.cn1, '0000:81:00.0')
        self.cloud.providers[self.cn1]['inventories']['VCPU'][
            'allocation_ratio'] = 'four'
        snapshot = self.collect()
        [host] = snapshot.hosts
        self.assertEqual('cn1', host.name)
        self.assertEqual([], host.providers)
        self.assertEqual("resource provider cn1 (%s): unusable inventories "
                         "answer (VCPU allocation_ratio is 'four')"
                         % self.cn1, host.unreadable)
        self.assertEqual(1, len(snapshot.problems))

    def test_unusable_grandparent_names_only_what_failed(self):
        child = self.cloud.add_vgpu_child(self.cn1, '0000:81:00.0')
        grandchild = self.cloud.add_provider(
            'cn1_grandchild', parent=child,
            inventories={'CUSTOM_X': _inventory(2)})
        self.cloud.providers[child]['traits'] = 'CUSTOM_NVIDIA_11'
        snapshot = self.collect()
        [host] = snapshot.hosts
        self.assertEqual([], host.providers)
        self.assertIn('%s): unusable traits answer (no "traits" list)'
                      % child, host.unreadable)
        self.assertNotIn(grandchild, host.unreadable)
        self.assertEqual(1, len(snapshot.problems))

    def test_malformed_usages(self):
        child = self.cloud.add_vgpu_child(self.cn1, '0000:81:00.0')
        self.cloud.providers[child]['usages'] = {'VGPU': -1}
        snapshot = self.collect()
        self.assertEqual([], snapshot.hosts[0].providers)
        self.assertIn('unusable usages answer (VGPU usage is -1',
                      snapshot.hosts[0].unreadable)
        self.assertIn('VGPU usage is -1', snapshot.problems[0])
        # Usages are read again next time: once right, the child is back
        # without its inventories being read again.
        self.cloud.providers[child]['usages'] = {'VGPU': 2}
        start = self.client.call_count
        snapshot = self.collect()
        self.assertEqual([], snapshot.problems)
        self.assertEqual({'VGPU': 2}, snapshot.hosts[0].providers[1].usages)
        self.assertNotIn('/resource_providers/%s/inventories' % child,
                         self.client.paths(start))

    def test_unreadable_provider_listing_entry(self):
        # Its tree is known from its root: that host is unreadable.
        cn2 = self.cloud.add_compute('cn2')
        child = self.cloud.add_vgpu_child(cn2, '0000:81:00.0')
        body = self.cloud.answer('placement', '/resource_providers', {})
        [entry] = [e for e in body['resource_providers']
                   if e['uuid'] == child]
        entry['generation'] = None
        self.client.bodies['/resource_providers'] = body
        snapshot = self.collect()
        self.assertEqual([self.cn1],
                         [p.uuid for p in snapshot.hosts[0].providers])
        self.assertEqual({'cn2': 'unreadable entry in the resource provider '
                          'listing (provider %s generation None)' % child},
                         self.unreadable(snapshot))
        self.assertEqual(1, len(snapshot.problems))
        # Nothing of the broken tree is read.
        self.assertFalse([p for p in self.client.paths() if cn2 in p])

    def test_unreadable_root_entry_of_the_provider_listing(self):
        body = self.cloud.answer('placement', '/resource_providers', {})
        body['resource_providers'][0]['generation'] = 'one'
        self.client.bodies['/resource_providers'] = body
        snapshot = self.collect()
        self.assertIn("generation 'one'", self.unreadable(snapshot)['cn1'])

    def test_provider_listing_entry_of_no_known_tree_is_a_cloud_error(self):
        body = self.cloud.answer('placement', '/resource_providers', {})
        for entry in ({'uuid': 'not-a-uuid', 'generation': 1},
                      'garbage'):
            body['resource_providers'].append(entry)
            self.client.bodies['/resource_providers'] = body
            error = self.assertRaises(openstack.CloudError, self.collect)
            self.assertIn('an entry names no provider tree', str(error))
            self.assertEqual(200, error.status)
            body['resource_providers'].pop()

    def test_provider_missing_from_the_listing(self):
        # A listing cut short: the host is unreadable, not left out.
        cn2 = self.cloud.add_compute('cn2')
        body = self.cloud.answer('placement', '/resource_providers', {})
        body['resource_providers'] = [e for e in body['resource_providers']
                                      if e['uuid'] != cn2]
        self.client.bodies['/resource_providers'] = body
        snapshot = self.collect()
        self.assertEqual({'cn2': "no resource provider %s in Placement's "
                          "listing" % cn2}, self.unreadable(snapshot))

    def test_provider_listing_without_list_is_a_cloud_error(self):
        self.client.bodies['/resource_providers'] = {'error': 'odd'}
        self.assertRaises(openstack.CloudError, self.collect)

    def test_cloud_error_aborts_and_keeps_the_cache(self):
        child = self.cloud.add_vgpu_child(self.cn1, '0000:81:00.0')
        self.collect()
        self.cloud.bump(child)
        inventories = '/resource_providers/%s/inventories' % child
        self.client.bodies[inventories] = openstack.CloudError('503')
        self.assertRaises(openstack.CloudError, self.collect)
        del self.client.bodies[inventories]
        snapshot = self.collect()
        self.assertEqual(1 + 1 + 1 + 3, snapshot.api_calls)
        self.assertEqual(2, snapshot.hosts[0].providers[1].generation)

    def test_error_answer_for_one_provider_makes_its_host_unreadable(self):
        # A 500 (or a 200 that is not JSON: status 200) for one provider is
        # that host's problem; the refresh goes on, the host is named, and
        # nothing of the answer is cached: the next refresh asks again.
        child = self.cloud.add_vgpu_child(self.cn1, '0000:81:00.0')
        self.collect()
        self.cloud.bump(child)
        inventories = '/resource_providers/%s/inventories' % child
        for status in (500, 200):
            self.client.bodies[inventories] = openstack.CloudError(
                'placement GET %s answered %d' % (inventories, status),
                status=status)
            snapshot = self.collect()
            [host] = snapshot.hosts
            self.assertEqual([], host.providers)
            self.assertEqual('resource provider cn1_pci_0000_81_00_0 (%s): '
                             'placement GET %s answered %d'
                             % (child, inventories, status), host.unreadable)
        del self.client.bodies[inventories]
        snapshot = self.collect()
        self.assertIsNone(snapshot.hosts[0].unreadable)
        self.assertEqual(2, snapshot.hosts[0].providers[1].generation)

    def test_failed_first_refresh_caches_nothing(self):
        self.client.bodies['/os-aggregates'] = openstack.CloudError('503')
        self.assertRaises(openstack.CloudError, self.collect)
        del self.client.bodies['/os-aggregates']
        self.assertEqual(1 + 1 + 1 + 4, self.collect().api_calls)


class TestGpuAggregates(PlacementSourceTestCase):
    """GPU host aggregates for clouds that keep PCI out of Placement."""

    def setUp(self):
        super().setUp()
        self.flags(group='pci', alias=[GPU_ALIAS])
        self.cloud.add_compute('gpu1.example.org', service_host='gpu1')
        self.cloud.add_compute('gpu2.example.org', service_host='gpu2')
        self.cloud.add_compute('cpu1')
        self.cloud.add_flavor('g1.v100', vcpus=8, ram=16384, disk=40,
                              extra_specs={'pci_passthrough:alias':
                                           'V100:1'})

    def test_pools_with_server_usage(self):
        self.cloud.add_aggregate('v100', ['gpu1', 'gpu2'],
                                 {'gpu': 'True', 'gpu_count': '4',
                                  'gpu_type': 'V100'})
        spec = {'pci_passthrough:alias': 'V100:1'}
        self.cloud.add_server('gpu1', 'gpu1.example.org', 'g1.v100', spec)
        self.cloud.add_server('gpu1', 'gpu1.example.org', 'g2.v100',
                              {'pci_passthrough:alias': 'V100:2'})
        self.cloud.add_server('gpu2', 'gpu2.example.org', 'g1.v100', spec)
        self.cloud.add_server('cpu1', 'cpu1', 'm1.small')
        snapshot = self.collect()
        self.assertEqual([], snapshot.problems)
        self.assertEqual(
            [('cpu1', []),
             ('gpu1.example.org', [model.GpuPool('V100', 4, used=3)]),
             ('gpu2.example.org', [model.GpuPool('V100', 4, used=1)])],
            [(h.node, h.gpu_pools) for h in snapshot.hosts])
        # The servers, then the SOFT_DELETED ones (nova.servers_on_hosts).
        self.assertEqual(2, self.client.paths().count('/servers/detail'))
        self.assertEqual(1 + 1 + 3 + 4 + 2, snapshot.api_calls)
        # Servers are listed on every refresh: usage has no generation.
        self.assertEqual(1 + 1 + 3 + 2, self.collect().api_calls)

    def test_server_whose_flavor_cannot_be_read_is_a_problem(self):
        self.cloud.add_aggregate('v100', ['gpu1'],
                                 {'gpu': 'True', 'gpu_count': '4',
                                  'gpu_type': 'V100'})
        self.cloud.add_server('gpu1', 'gpu1.example.org', 'g1.v100',
                              {'pci_passthrough:alias': 'V100:1'})
        self.cloud.add_server('gpu1', 'gpu1.example.org', 'g.broken',
                              {'pci_passthrough:alias': 'V100'})
        snapshot = self.collect()
        self.assertEqual([model.GpuPool('V100', 4, used=1)],
                         self.host(snapshot, 'gpu1.example.org').gpu_pools)
        self.assertEqual(1, len(snapshot.problems))
        self.assertIn("flavor 'g.broken': pci_passthrough:alias: "
                      "'V100' is not NAME:COUNT", snapshot.problems[0])
        self.assertIn('not counted as used', snapshot.problems[0])

    def test_no_servers_call_without_gpu_aggregates(self):
        self.cloud.add_aggregate('ssd', ['gpu1'], {'ssd': 'true'})
        self.cloud.add_aggregate('notgpu', ['gpu2'],
                                 {'gpu': 'False', 'gpu_count': '4',
                                  'gpu_type': 'V100'})
        self.cloud.add_server('gpu1', 'gpu1.example.org', 'g1.v100',
                              {'pci_passthrough:alias': 'V100:1'})
        snapshot = self.collect()
        self.assertNotIn('/servers/detail', self.client.paths())
        self.assertEqual([[], [], []],
                         [h.gpu_pools for h in snapshot.hosts])

    def test_no_servers_call_for_gpu_aggregate_of_no_known_host(self):
        self.cloud.add_aggregate('v100', ['retired'],
                                 {'gpu': 'True', 'gpu_count': '4',
                                  'gpu_type': 'V100'})
        snapshot = self.collect()
        self.assertNotIn('/servers/detail', self.client.paths())
        self.assertEqual(
            ['aggregate v100: host retired has no hypervisor, skipped'],
            snapshot.problems)

    def test_malformed_gpu_aggregate(self):
        self.cloud.add_aggregate('broken', ['gpu1'],
                                 {'gpu': 'True', 'gpu_count': 'many',
                                  'gpu_type': 'V100'})
        snapshot = self.collect()
        self.assertNotIn('/servers/detail', self.client.paths())
        self.assertEqual(1, len(snapshot.problems))
        self.assertIn('aggregate broken', snapshot.problems[0])

    def test_malformed_gpu_aggregate_reported_once(self):
        self.cloud.add_aggregate('v100', ['gpu1'],
                                 {'gpu': 'True', 'gpu_count': '2',
                                  'gpu_type': 'V100'})
        self.cloud.add_aggregate('broken', ['gpu2'],
                                 {'gpu': 'True', 'gpu_type': 'V100'})
        snapshot = self.collect()
        self.assertEqual(1, len(snapshot.problems))
        self.assertIn('aggregate broken', snapshot.problems[0])
        self.assertEqual([model.GpuPool('V100', 2)],
                         self.host(snapshot, 'gpu1.example.org').gpu_pools)


def _payload(name):
    with open(os.path.join(PAYLOADS, name)) as payload:
        return json.load(payload)


class TestCapturedPayloads(base.TestCase):
    """A PCI-in-Placement tree as Placement 16 really returns it."""

    def test_collect(self):
        providers = _payload('placement-resource-providers.json')
        root_uuid, child_uuid = [
            rp['uuid'] for rp in providers['resource_providers']]
        bodies = {'/resource_providers': providers,
                  '/os-hypervisors/detail': _payload(
                      'nova-hypervisors-detail-2.53.json')}
        for uuid, prefix in ((root_uuid, ''), (child_uuid, 'child-')):
            for what in ('inventories', 'usages', 'traits'):
                bodies['/resource_providers/%s/%s' % (uuid, what)] = (
                    _payload('placement-%s%s.json' % (prefix, what)))
        # Nova's flavors, services and aggregates: none.
        # No allocation candidates either: both are read one by one.
        client = fakes.FakeClient(bodies, answer=FakeCloud().answer)
        snapshot = placement_source.PlacementSource(self.conf).collect(client)
        self.assertEqual([], snapshot.problems)
        self.assertEqual(1 + 1 + 3 * 2 + 4, snapshot.api_calls)
        host = snapshot.hosts[0]
        self.assertEqual(('compute1', 'compute1.example.org'),
                         (host.name, host.node))
        # The captured root carries COMPUTE_STATUS_DISABLED.
        self.assertFalse(host.enabled)
        root, device = host.providers
        self.assertEqual((root_uuid, None, 3),
                         (root.uuid, root.parent_uuid, root.generation))
        self.assertEqual(
            model.Inventory(total=1000, reserved=0, min_unit=1,
                            max_unit=1000, step_size=1,
                            allocation_ratio=4.0),
            root.inventories['VCPU'])
        self.assertEqual(512, root.inventories['MEMORY_MB'].reserved)
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 10},
                         root.usages)
        self.assertIn('COMPUTE_NODE', root.traits)
        self.assertEqual((child_uuid, root_uuid),
                         (device.uuid, device.parent_uuid))
        self.assertEqual('compute1.example.org_0000:81:00.0', device.name)
        self.assertEqual(
            {'CUSTOM_PCI_10DE_1DB4': model.Inventory(total=1, max_unit=1)},
            device.inventories)
        self.assertEqual({'CUSTOM_PCI_10DE_1DB4': 1}, device.usages)
        self.assertEqual(frozenset({'COMPUTE_MANAGED_PCI_DEVICE'}),
                         device.traits)


class TestPlacementAvailable(base.TestCase):

    def test_catalog(self):
        self.assertTrue(placement_source.placement_available(
            fakes.FakeClient()))
        self.assertFalse(placement_source.placement_available(
            fakes.FakeClient(services=('compute',))))
