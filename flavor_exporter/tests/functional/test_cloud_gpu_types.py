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

"""GPU devices by type against a real Nova (scenarios/gpu_types.yaml).

The cloud has all three kinds at once: V100 counted from a GPU host
aggregate (those computes do not report PCI to Placement), A100 and a T4
in Placement, VGPU children with and without a trait. The worker's
figures are held to what Nova and Placement say, read here without
flavor-exporter's code:

- the devices a type has per host are the scenario's;
- the devices in use are those the ACTIVE servers hold: their flavors'
  PCI aliases, and the VGPUs Placement allocated them;
- stranded devices are those Nova will not hand out: every flavor that
  could take them ends in NoValidHost on their host, while on a host
  with free devices not stranded one of them starts; and once every GPU
  flavor has been booted until NoValidHost, every device still free is
  reported stranded.
"""

import collections
import json

from flavor_exporter.publication import render
from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.worker import openstack
from flavor_exporter.worker import placement_source
from flavor_exporter.worker import refresh
from testcloud import oracle
from testcloud import placement_view
from testcloud import scenario as scenario_mod

SCENARIO = 'gpu_types'
# (type, host): devices, as the scenario describes the hosts.
DEVICES = {('V100', 'v100-1'): 2, ('V100', 'v100-2'): 2,
           ('A100', 'a100-1'): 2, ('A100', 'a100-2'): 2,
           ('CUSTOM_PCI_10DE_1EB8', 'a100-2'): 1,
           ('VGPU:CUSTOM_NVIDIA_11', 'vgpu-1'): 4, ('VGPU', 'vgpu-2'): 4}
# The scenario's flavors that could take each type's devices.
ASKING = {'V100': ('gpu.v100',), 'A100': ('gpu.a100', 'gpu.a100.large'),
          'VGPU:CUSTOM_NVIDIA_11': ('vgpu.nvidia11', 'vgpu.any'),
          'VGPU': ('vgpu.any',), 'CUSTOM_PCI_10DE_1EB8': ()}
GPU_FLAVORS = ('gpu.v100', 'gpu.a100', 'gpu.a100.large', 'vgpu.nvidia11',
               'vgpu.any')
# 2.47: a server embeds its flavor with the extra specs.
SERVERS_MICROVERSION = '2.47'


class GpuTypesTest(base.TestCase):

    def setUp(self):
        super().setUp()
        spec = scenario_mod.load(SCENARIO)
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            SCENARIO, shared=True)).cloud
        self.conn = self.cloud.connection()
        self.flags(group='pci', alias=[json.dumps(alias) for alias
                                       in spec.pci_aliases])
        before = placement_view.usages(self.conn)
        # The cloud is shared: whatever a test boots it must delete.
        self.addCleanup(lambda: self.assertEqual(
            before, placement_view.usages(self.conn)))

    def gpu_types(self):
        """{type name: capacity.gpus.GpuType} of a refresh, now."""
        refresher = refresh.Refresher(
            self.conf, client=openstack.CloudClient(self.conn),
            source=placement_source.PlacementSource(self.conf))
        return {found.name: found for found in refresher.compute().gpus}

    def held(self):
        """Counter of (type, host): devices the ACTIVE servers hold."""
        providers = {rp['uuid']: rp for rp in
                     placement_view.providers(self.conn).values()}
        held = collections.Counter()
        servers = self.conn.compute.get(
            '/servers/detail?all_tenants=1',
            microversion=SERVERS_MICROVERSION).json()['servers']
        for server in servers:
            if server['status'] != 'ACTIVE':
                continue
            host = server['OS-EXT-SRV-ATTR:host']
            aliases = server['flavor']['extra_specs'].get(
                'pci_passthrough:alias')
            for entry in aliases.split(',') if aliases else ():
                name, count = entry.split(':')
                held[name, host] += int(count)
            allocations = self.conn.placement.get(
                '/allocations/%s' % server['id']).json()['allocations']
            for uuid, allocation in allocations.items():
                vgpus = allocation['resources'].get('VGPU')
                if vgpus:
                    traits = sorted(t for t in providers[uuid]['traits']
                                    if t.startswith('CUSTOM_'))
                    name = 'VGPU:' + ','.join(traits) if traits else 'VGPU'
                    held[name, host] += vgpus
        return held

    def assertUsedIsHeld(self, found):
        self.assertEqual(dict(self.held()), {
            (name, row.host): row.used for name, gpu_type in found.items()
            for row in gpu_type.hosts if row.used})

    def test_devices_and_what_the_servers_hold(self):
        found = self.gpu_types()
        self.assertEqual(DEVICES, {
            (name, row.host): row.total for name, gpu_type in found.items()
            for row in gpu_type.hosts})
        self.assertEqual({'V100': {'aggregates'}}, {
            name: gpu_type.counted_from for name, gpu_type in found.items()
            if gpu_type.counted_from != {'placement'}})
        self.assertUsedIsHeld(found)
        # One more server of each GPU flavor, wherever Nova puts it.
        servers = [oracle.boot(self.conn, name) for name in GPU_FLAVORS]
        self.addCleanup(oracle.delete_servers, self.conn, servers)
        # gpu.a100.large finds no A100 host with 12 vCPUs left.
        self.assertEqual(['gpu.a100.large'], [
            name for name, server in zip(GPU_FLAVORS, servers)
            if server['status'] != 'ACTIVE'])
        self.assertUsedIsHeld(self.gpu_types())

    def test_stranded_devices_are_what_nova_does_not_hand_out(self):
        found = self.gpu_types()
        stranded = {(name, row.host): row.blocked_by
                    for name, gpu_type in found.items()
                    for row in gpu_type.hosts if row.stranded}
        # As the scenario arranged it.
        self.assertEqual({('V100', 'v100-1'): 'MEMORY_MB',
                          ('A100', 'a100-1'): 'VCPU',
                          ('CUSTOM_PCI_10DE_1EB8', 'a100-2'):
                              'no flavor requests them',
                          ('VGPU', 'vgpu-2'): 'compute service disabled'},
                         stranded)
        for name, gpu_type in found.items():
            for row in gpu_type.hosts:
                if row.stranded:
                    self.assertEqual(row.free, row.stranded)
                    for flavor in ASKING[name]:
                        server = oracle.boot(self.conn, flavor,
                                             host=row.host)
                        oracle.delete_servers(self.conn, [server])
                        self.assertEqual('ERROR', server['status'],
                                         (flavor, row))
                        self.assertIn(oracle.NO_VALID_HOST,
                                      server['fault']['message'])
                elif row.free:
                    self.assertTrue(self.starts_one(ASKING[name],
                                                    row.host), row)
        # Every GPU flavor until NoValidHost: what stays free is stranded.
        kept = []
        self.addCleanup(oracle.delete_servers, self.conn, kept)
        for flavor in GPU_FLAVORS:
            kept += oracle.fill(self.conn, flavor, keep=True).servers
        self.assertEqual(6, len(kept))
        filled = self.gpu_types()
        self.assertEqual(
            {name: (gpu_type.devices.free, gpu_type.devices.free)
             for name, gpu_type in filled.items()},
            {name: (gpu_type.devices.free, gpu_type.devices.stranded)
             for name, gpu_type in filled.items()})
        self.assertEqual({'V100': 2, 'A100': 1, 'CUSTOM_PCI_10DE_1EB8': 1,
                          'VGPU': 4, 'VGPU:CUSTOM_NVIDIA_11': 0},
                         {name: gpu_type.devices.free
                          for name, gpu_type in filled.items()})
        self.assertUsedIsHeld(filled)

    def test_one_type_per_flavor(self):
        # Issue 42: vgpu.nvidia11 and vgpu.any were both "VGPU,VGPU:
        # CUSTOM_NVIDIA_11", though vgpu.nvidia11 cannot use vgpu-2's
        # untraited VGPUs. Each GPU flavor names one type of /v3/gpus/
        # that it can use (ASKING, which the test above checks against
        # Nova), in the seed's list and in v3 (every other view renders
        # the same pair).
        refresher = refresh.Refresher(
            self.conf, client=openstack.CloudClient(self.conn),
            source=placement_source.PlacementSource(self.conf))
        report = refresher.compute()
        listed = {found.name for found in report.gpus}
        named = {}
        for result in report.flavors:
            if result.flavor.name not in GPU_FLAVORS:
                self.assertIsNone(result.gpu, result.flavor.name)
                continue
            seed = render.seed_flavor(result)
            v3 = render.v3_flavor(result)['gpu']
            self.assertEqual(seed['gpu_type'], v3['type'])
            self.assertEqual(seed['gpu_count'], v3['count'])
            self.assertIn(seed['gpu_type'], listed)
            self.assertIn(result.flavor.name, ASKING[seed['gpu_type']])
            named[result.flavor.name] = seed['gpu_type']
        self.assertEqual(set(GPU_FLAVORS), set(named))
        self.assertNotEqual(named['vgpu.nvidia11'], named['vgpu.any'])

    def starts_one(self, flavors, host):
        """Whether a server of one of flavors starts on host (deleted)."""
        for flavor in flavors:
            server = oracle.boot(self.conn, flavor, host=host)
            oracle.delete_servers(self.conn, [server])
            if server['status'] == 'ACTIVE':
                return True
        return False
