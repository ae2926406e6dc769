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


from flavor_exporter.capacity.fit import host_groups
from flavor_exporter.capacity.fit import vector_fit
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request.request import RequestGroup
from flavor_exporter.capacity.request.request import ResourceRequest
from flavor_exporter.tests import base

Inv = model.Inventory


def gpu_host(name, used, zone='az1', traits=(), enabled=True, vgpu=4):
    root = model.Provider(name + '-root', name, traits=frozenset(traits),
                          inventories={'VCPU': Inv(8)},
                          usages={'VCPU': used[0]})
    child = model.Provider(name + '-gpu', name, parent_uuid=root.uuid,
                           inventories={'VGPU': Inv(vgpu, max_unit=2)},
                           usages={'VGPU': used[1]})
    return model.Host(name, name, enabled=enabled, availability_zone=zone,
                      providers=[root, child])


class TestGroupHosts(base.BaseTestCase):

    def test_usage_and_zone_do_not_split_a_group(self):
        hosts = [gpu_host('a', (0, 0)), gpu_host('b', (9, 3), zone='az2'),
                 gpu_host('c', (2, 1))]
        groups = host_groups.group_hosts(hosts, ['az1', 'az2'])
        self.assertEqual(1, len(groups))
        group = groups[0]
        self.assertEqual([0, 1, 2], list(group.positions))
        self.assertEqual([0, 1, 0], list(group.zone_codes))
        self.assertEqual([2, 1], list(group.zone_counts))
        # Row 0 empty; then each host, overcommitted VCPU clipped at 0.
        self.assertEqual([[8, 4], [8, 4], [0, 1], [6, 3]],
                         group.free.tolist())

    def test_traits_state_and_inventory_split_groups(self):
        hosts = [gpu_host('a', (0, 0)), gpu_host('b', (0, 0), traits={'X'}),
                 gpu_host('c', (0, 0), enabled=False),
                 gpu_host('d', (0, 0), vgpu=8), gpu_host('e', (1, 1))]
        groups = host_groups.group_hosts(hosts, ['az1'])
        self.assertEqual([[0, 4], [1], [2], [3]],
                         [list(g.positions) for g in groups])

    def test_only_metadata_keys_read_split_groups(self):
        hosts = [gpu_host(name, (0, 0)) for name in 'abcd']
        for host, cell, ssd in zip(hosts, ('c1', 'c2', 'c1', 'c2'),
                                   ('true', 'true', 'false', 'true, x')):
            host.aggregates = [model.Aggregate('cell', {'cell': cell}),
                               model.Aggregate('ssd', {'ssd': ssd})]
        self.assertEqual([[0, 1, 2, 3]], [
            list(g.positions) for g in host_groups.group_hosts(
                hosts, ['az1'])])
        groups = host_groups.group_hosts(hosts, ['az1'], frozenset({'ssd'}))
        self.assertEqual([[0, 1], [2], [3]],
                         [list(g.positions) for g in groups])
        self.assertEqual([{'ssd': {'true'}}, {'ssd': {'false'}},
                          {'ssd': {'true', 'x'}}],
                         [g.metadata for g in groups])


class TestFitGroup(base.BaseTestCase):

    def test_numbers_per_host_and_limits(self):
        hosts = [gpu_host('a', (0, 0)), gpu_host('b', (7, 0)),
                 gpu_host('c', (0, 3))]
        group = host_groups.group_hosts(hosts, ['az1'])[0]
        req = ResourceRequest(groups=[RequestGroup({'VCPU': 1}),
                                      RequestGroup({'VGPU': 1}, suffix='1'),
                                      RequestGroup({'VGPU': 1}, suffix='2')],
                              group_policy='none')
        found = vector_fit.fit_group(req, group)
        # Two VGPU per instance, max_unit 2 on the one child: 4 // 2.
        self.assertEqual(2, found.total)
        self.assertEqual([2, 1, 0], found.available.tolist())
        self.assertEqual(['VCPU', 'VGPU'], found.labels)
        self.assertEqual([1, 0, 1], found.limits.tolist())

    def test_capped_copies(self):
        # max_unit 2: three groups of 1 cannot all come from the child.
        group = host_groups.group_hosts([gpu_host('a', (0, 0))], ['az1'])[0]
        req = ResourceRequest(groups=[
            RequestGroup({'VGPU': 1}, suffix=str(i)) for i in (1, 2, 3)],
            group_policy='none')
        self.assertEqual(0, vector_fit.fit_group(req, group).total)
