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

"""The legacy source on the predecessor's own example cloud.

The figures are those of the predecessor's published test data: hosts
host1 (general purpose), host3 and host4 (aggregate "GPU V100",
gpu_count=2), one V100 medium server on host3. Its tests expected V100
medium 4 total / 3 available, V100 large 4/3, 2xV100 large 2/1.
"""

import copy
import logging
from unittest import mock

from flavor_exporter.capacity import engine
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.worker import fakes
from flavor_exporter.worker import hypervisors_source
from flavor_exporter.worker import openstack
from flavor_exporter.worker import refresh
from flavor_exporter.worker import source as source_mod

MEDIUM = 'a54ed137-04fe-463f-a2b0-666079d1b2ba'
LARGE = '4e6428f5-a0ec-4450-8f38-112236f056da'
LARGE2 = '9a8a5bfc-001e-469b-a787-ddbbc2ea8483'


def flavor(fid, name, vcpus, ram, disk=50, swap=1024, specs=None,
           disabled=False, public=True):
    return {'id': fid, 'name': name, 'vcpus': vcpus, 'ram': ram,
            'disk': disk, 'swap': swap, 'OS-FLV-EXT-DATA:ephemeral': 0,
            'OS-FLV-DISABLED:disabled': disabled,
            'os-flavor-access:is_public': public,
            'extra_specs': specs or {}}


def hypervisor(hid, node, host, vcpus_used, memory_used, disk_used,
               state='up', status='enabled'):
    # Nova's memory_mb_used includes the 512 MB host reservation.
    return {'id': hid, 'hypervisor_hostname': node, 'state': state,
            'status': status, 'vcpus': 28, 'vcpus_used': vcpus_used,
            'memory_mb': 385534, 'memory_mb_used': memory_used + 512,
            'local_gb': 7392, 'local_gb_used': disk_used,
            'service': {'host': host, 'id': 's-' + hid}}


def service(host, status='enabled', state='up'):
    return {'binary': 'nova-compute', 'disabled_reason': None,
            'forced_down': False, 'host': host, 'id': 's-' + host,
            'state': state, 'status': status, 'updated_at': None,
            'zone': 'nova'}


CLOUD = {
    '/flavors/detail': {'flavors': [
        flavor('161dac45', 'de.NBI medium', 14, 32768),
        flavor('299eeca6', 'de.NBI small', 8, 16384),
        flavor(LARGE, 'de.NBI GPU V100 large', 28, 131072,
               specs={'pci_passthrough:alias': 'V100:1'}),
        flavor(LARGE2, 'de.NBI 2 GPU V100 large', 28, 262144,
               specs={'pci_passthrough:alias': 'V100:2'}),
        flavor(MEDIUM, 'de.NBI GPU V100 medium', 14, 65535,
               specs={'pci_passthrough:alias': 'V100:1'}),
        flavor('dead0001', 'de.NBI GPU V100 DEPRECATED', 14, 65535,
               specs={'pci_passthrough:alias': 'V100:1'}),
        flavor('dead0002', 'de.NBI GPU V100 disabled', 14, 65535,
               specs={'pci_passthrough:alias': 'V100:1'}, disabled=True),
    ]},
    '/os-hypervisors/detail': {'hypervisors': [
        hypervisor('h1', 'host1.denbi.de', 'host1', 28, 65536, 50),
        hypervisor('h3', 'host3.denbi.de', 'host3', 28, 65536, 2051),
        hypervisor('h4', 'host4.denbi.de', 'host4', 28, 0, 0),
    ]},
    # GET /os-services?binary=nova-compute at 2.69 (api-ref sample).
    '/os-services': {'services': [
        service(host) for host in ('host1', 'host3', 'host4')]},
    '/os-aggregates': {'aggregates': [
        {'name': 'General Purpose', 'hosts': ['host1'],
         'metadata': {'availability_zone': 'default', 'cores': '28'}},
        {'name': 'GPU V100', 'hosts': ['host3', 'host4'],
         'metadata': {'availability_zone': 'default', 'gpu': 'True',
                      'gpu_count': '2', 'gpu_type': 'V100'}},
    ]},
    '/servers/detail': {'servers': [
        {'id': 'vm1', 'OS-EXT-SRV-ATTR:host': 'host1',
         'flavor': {'vcpus': 28, 'ram': 65536, 'disk': 50,
                    'original_name': 'de.NBI large', 'extra_specs': {}}},
        {'id': 'vm2', 'OS-EXT-SRV-ATTR:host': 'host3',
         'flavor': {'vcpus': 28, 'ram': 65536, 'disk': 50,
                    'original_name': 'de.NBI GPU V100 medium',
                    'extra_specs': {'pci_passthrough:alias': 'V100:1'}}},
    ]},
}


class TestPredecessorExample(base.TestCase):

    def report(self, bodies=CLOUD):
        client = fakes.FakeClient(bodies)
        source = hypervisors_source.HypervisorsSource(self.conf)
        snapshot = source.collect(client)
        return (engine.compute(snapshot, refresh.engine_options(self.conf)),
                client)

    def numbers(self, report):
        return {c.flavor.id: (c.total, c.available) for c in report.flavors}

    def test_published_example_numbers(self):
        numbers = self.numbers(self.report()[0])
        self.assertEqual((4, 3), numbers[MEDIUM])
        self.assertEqual((4, 3), numbers[LARGE])
        self.assertEqual((2, 1), numbers[LARGE2])

    def test_disabled_and_deprecated_flavors_excluded(self):
        numbers = self.numbers(self.report()[0])
        self.assertNotIn('dead0001', numbers)
        self.assertNotIn('dead0002', numbers)

    def test_non_gpu_flavors_count_every_host(self):
        numbers = self.numbers(self.report()[0])
        # 14 vCPU: 112 / 14 = 8 per host by CPU, 385022 // 32768 = 11 by
        # RAM: 8 per empty host; now (112 - 28) // 14 = 6 per host.
        self.assertEqual((24, 18), numbers['161dac45'])

    def test_microversions_and_pagination_params(self):
        _, client = self.report()
        asked = {path: (mv, params) for _, path, mv, params
                 in client.requests if path != '/servers/detail'}
        servers = [params for _, path, mv, params in client.requests
                   if path == '/servers/detail']
        self.assertEqual('2.87', asked['/os-hypervisors/detail'][0])
        self.assertEqual({'is_public': 'None'},
                         asked['/flavors/detail'][1])
        self.assertEqual([{'all_tenants': 1},
                          {'all_tenants': 1, 'deleted': 'true',
                           'status': 'SOFT_DELETED'}], servers)

    def test_ratios_and_reservations_are_configurable(self):
        self.flags(group='capacity', cpu_allocation_ratio=1.0,
                   reserved_host_memory_mb=0)
        numbers = self.numbers(self.report()[0])
        # 28 vCPUs at ratio 1: 2 mediums per host, one host3 slot taken
        # by 28 used vCPUs -> host3 and host4 both full on CPU now.
        self.assertEqual((4, 0), numbers[MEDIUM])

    def test_zero_disk_flavor(self):
        bodies = copy.deepcopy(CLOUD)
        bodies['/flavors/detail']['flavors'].append(
            flavor('zero', 'no disk', 1, 1024, disk=0, swap=0))
        numbers = self.numbers(self.report(bodies)[0])
        # RAM-bound: (385534 - 512) // 1024 = 376 per host.
        self.assertEqual(3 * 112, numbers['zero'][0])

    def test_fqdn_nodes_match_short_aggregate_hosts(self):
        report, _ = self.report()
        medium = [c for c in report.flavors if c.flavor.id == MEDIUM][0]
        self.assertEqual(['host3', 'host4'],
                         sorted(h.host for h in medium.hosts))
        self.assertEqual('host3.denbi.de', medium.hosts[0].node)

    def test_disabled_and_down_hosts_excluded(self):
        bodies = copy.deepcopy(CLOUD)
        hypervisors = bodies['/os-hypervisors/detail']['hypervisors']
        hypervisors[1]['status'] = 'disabled'
        hypervisors[2]['state'] = 'down'
        # The scheduler weighs the service; os-hypervisors embeds it.
        services = bodies['/os-services']['services']
        services[1]['status'] = 'disabled'
        services[2]['state'] = 'down'
        report, _ = self.report(bodies)
        medium = [c for c in report.flavors if c.flavor.id == MEDIUM][0]
        self.assertEqual((0, 0), (medium.total, medium.available))
        self.assertEqual({'compute service disabled': 1,
                          'compute service down': 1,
                          'does not fit': 1}, medium.excluded)

    def test_malformed_data_is_reported_not_fatal(self):
        bodies = copy.deepcopy(CLOUD)
        bodies['/os-aggregates']['aggregates'].append(
            {'name': 'GPU broken', 'hosts': ['host1'],
             'metadata': {'gpu': 'True', 'gpu_count': 'two',
                          'gpu_type': 'A100'}})
        bodies['/os-aggregates']['aggregates'].append(
            {'name': 'Ghosts', 'hosts': ['host9'], 'metadata': {}})
        bodies['/flavors/detail']['flavors'].append(
            flavor('noalias', 'GPU no count', 14, 1024,
                   specs={'pci_passthrough:alias': 'V100'}))
        report, _ = self.report(bodies)
        problems = '\n'.join(report.problems)
        self.assertIn('GPU broken', problems)
        self.assertIn('host9', problems)
        bad = [c for c in report.flavors if c.flavor.id == 'noalias'][0]
        self.assertIn('pci_passthrough:alias', bad.error)
        self.assertEqual((4, 3), self.numbers(report)[MEDIUM])

    def test_problem_lines_name_the_cloud_among_several(self):
        bodies = copy.deepcopy(CLOUD)
        bodies['/os-aggregates']['aggregates'].append(
            {'name': 'Ghosts', 'hosts': ['host9'], 'metadata': {}})
        source = hypervisors_source.HypervisorsSource(self.conf,
                                                      'Cloud west: ')
        with mock.patch.object(source_mod.LOG, 'log') as log:
            source.collect(fakes.FakeClient(bodies))
        lines = [call.args[1] % call.args[2:] for call in log.call_args_list
                 if call.args[0] == logging.WARNING]
        self.assertTrue(lines)
        self.assertEqual([], [line for line in lines
                              if not line.startswith('Cloud west: ')])
        self.assertIn('host9', '\n'.join(lines))

    def test_hypervisor_without_figures_is_excluded_and_named(self):
        bodies = copy.deepcopy(CLOUD)
        hypervisors = bodies['/os-hypervisors/detail']['hypervisors']
        broken = hypervisors[2]
        del broken['vcpus']
        report, _ = self.report(bodies)
        name = broken['service']['host']
        self.assertEqual([name], list(report.unreadable))
        self.assertIn("no usable resource figures in its os-hypervisors "
                      "entry ('vcpus')",
                      report.unreadable[name])
        medium = [c for c in report.flavors if c.flavor.id == MEDIUM][0]
        self.assertEqual(1, medium.excluded[engine.UNREADABLE])
        self.assertTrue(any(name in line and 'excluded from every flavor'
                            in line for line in report.problems))

    def test_every_compute_service_host_is_accounted_for(self):
        # os-hypervisors without host4 (a cell that did not answer, a
        # page cut short): unreadable, not left out of the counts.
        bodies = copy.deepcopy(CLOUD)
        hypervisors = bodies['/os-hypervisors/detail']['hypervisors']
        del hypervisors[2]
        hypervisors[0]['service'] = 'garbage'
        # A long-dead service with no node: excluded as down, no problem.
        bodies['/os-services']['services'].append(
            service('host9', state='down'))
        report, _ = self.report(bodies)
        self.assertEqual(['host1', 'host4'], sorted(report.unreadable))
        self.assertIn('os-hypervisors lists no compute node',
                      report.unreadable['host4'])
        medium = [c for c in report.flavors if c.flavor.id == MEDIUM][0]
        self.assertEqual({engine.UNREADABLE: 2, 'compute service down': 1},
                         medium.excluded)
        # host3 alone now (host1 has no GPU, host4 is unreadable).
        self.assertEqual((2, 1), (medium.total, medium.available))
        self.assertFalse([line for line in report.problems
                          if 'host9' in line])

    def test_vgpu_flavor_is_unsupported_not_silently_zero(self):
        bodies = copy.deepcopy(CLOUD)
        bodies['/flavors/detail']['flavors'].append(
            flavor('vgpu', 'vgpu.small', 4, 1024,
                   specs={'resources:VGPU': '1'}))
        report, _ = self.report(bodies)
        [vgpu] = [c for c in report.flavors if c.flavor.id == 'vgpu']
        self.assertEqual(0, vgpu.total)
        self.assertEqual(['VGPU: not observable by this source (it sees '
                          'DISK_GB, MEMORY_MB, VCPU); not counted, use the '
                          'placement source'], vgpu.request.unsupported)
        # GPU aggregates count the PCI alias flavors exactly: nothing is
        # unsupported, a note says how they were counted.
        medium = [c for c in report.flavors if c.flavor.id == MEDIUM][0]
        self.assertEqual([], medium.request.unsupported)
        self.assertEqual(["PCI alias 'V100': GPUs counted from GPU host "
                          "aggregates (gpu_count, gpu_type); name it in "
                          "[pci] alias to count PCI devices reported to "
                          "Placement instead"], medium.request.notes)

    def test_server_whose_flavor_cannot_be_read_is_a_problem(self):
        bodies = copy.deepcopy(CLOUD)
        servers = bodies['/servers/detail']['servers']
        servers.append(copy.deepcopy(servers[1]))
        servers[-1]['id'] = 'vm3'
        del servers[-1]['flavor']
        report, _ = self.report(bodies)
        self.assertEqual(['servers vm3 on host3: its flavor is not in the '
                          'answer; the PCI devices they hold are not counted '
                          'as used'], report.problems)
        # vm2's GPU still counts: host3 has one of two free.
        self.assertEqual((4, 3), self.numbers(report)[MEDIUM])

    def test_multiple_aliases_in_one_flavor(self):
        bodies = copy.deepcopy(CLOUD)
        bodies['/flavors/detail']['flavors'].append(
            flavor('multi', 'V100 and A100', 14, 1024,
                   specs={'pci_passthrough:alias': 'V100:1, A100:1'}))
        report, _ = self.report(bodies)
        multi = [c for c in report.flavors if c.flavor.id == 'multi'][0]
        self.assertIsNone(multi.error)
        # No host has both GPU types.
        self.assertEqual((0, 0), (multi.total, multi.available))

    def test_cloud_error_propagates(self):
        bodies = dict(CLOUD)
        bodies['/os-hypervisors/detail'] = openstack.CloudError('500')
        self.assertRaises(openstack.CloudError, self.report, bodies)
