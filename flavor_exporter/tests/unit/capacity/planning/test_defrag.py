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
"""The defrag search on small clouds whose best plans are known by hand.

Hosts of 16 VCPU (ratio 1.0) and plenty of RAM and disk; the flavor to
free is 8 VCPU; servers are named by their VCPUs.
"""

import itertools

from flavor_exporter.capacity import engine
from flavor_exporter.capacity import model
from flavor_exporter.capacity.planning import defrag
from flavor_exporter.tests import base

TARGET = model.Flavor('t', 'big', vcpus=8, ram=1024, disk=10)
GPU = model.Flavor('g', 'gpu', vcpus=2, ram=1024, disk=10,
                   extra_specs={'pci_passthrough:alias': 'a100:1'})
_ids = itertools.count()


def flavor(vcpus):
    return model.Flavor('f%d' % vcpus, 'small%d' % vcpus, vcpus=vcpus,
                        ram=1024, disk=10)


def cloud(layout, zone_of=None, gpus=None):
    """(hosts, servers): layout {host: [vcpus of each server]}."""
    hosts, servers = [], []
    for name, sizes in layout.items():
        root = 'rp-' + name
        used = {'VCPU': sum(sizes), 'MEMORY_MB': 1024 * len(sizes),
                'DISK_GB': 10 * len(sizes)}
        hosts.append(model.Host(
            name, name + '.example.org',
            availability_zone=(zone_of or {}).get(name, 'az1'),
            providers=[model.Provider(root, name, inventories={
                'VCPU': model.Inventory(16),
                'MEMORY_MB': model.Inventory(65536),
                'DISK_GB': model.Inventory(1000)}, usages=used)],
            gpu_pools=[model.GpuPool('a100', 4, 0)] if gpus else []))
        for size in sizes:
            number = next(_ids)
            servers.append(defrag.Server(
                'id-%d' % number, 'vm-%d-%d' % (size, number), name,
                flavor(size), {root: {'VCPU': size, 'MEMORY_MB': 1024,
                                      'DISK_GB': 10}}))
    return hosts, servers


def plan(layout, count=1, servers=None, zone_of=None, bounds=None,
         flavors=(TARGET,)):
    hosts, made = cloud(layout, zone_of)
    flavor_list = list(flavors) + [flavor(n) for n in (2, 4, 6, 10, 12)]
    report = engine.compute(model.Snapshot('placement', flavor_list, hosts),
                            engine.Options())
    result = next(r for r in report.flavors if r.flavor.id == TARGET.id)
    return defrag.plan(report, engine.Options(), result,
                       made if servers is None else servers(made), count,
                       bounds or defrag.Bounds()), made


def moved(found):
    return [(m.server.flavor.vcpus, m.source, m.destination)
            for m in found.moves]


class TestPlans(base.BaseTestCase):

    def test_one_move_frees_one(self):
        # a and b have 4 free each: nothing fits, pooled 1.
        found, _ = plan({'a': [4, 4, 4], 'b': [4, 4, 4]})
        self.assertTrue(found.found)
        self.assertEqual(1, len(found.moves))
        self.assertEqual(1, found.gained)
        self.assertTrue(found.proven_minimal)
        self.assertEqual(1, found.lower_bound)
        self.assertEqual([], found.cut)

    def test_the_one_big_server_not_the_small_ones(self):
        # a has 4 free and misses 4: the 6-VCPU server is one move, the
        # 2-VCPU ones two. c has the 6 free it takes; b fits one now and
        # would lose it, so it is not the destination.
        found, _ = plan({'a': [2, 2, 2, 6], 'b': [8], 'c': [10]})
        self.assertEqual([(6, 'a', 'c')], moved(found))
        self.assertTrue(found.proven_minimal)

    def test_two_hosts_for_two(self):
        found, _ = plan({'a': [4, 4, 4], 'b': [4, 4, 4], 'c': [4, 4, 4],
                         'd': [4, 4, 4]}, count=2)
        self.assertTrue(found.found, found.reason)
        self.assertEqual(2, len(found.moves))
        self.assertEqual(2, found.gained)
        self.assertTrue(found.proven_minimal)
        gaining = {host for host, _ in found.gains}
        for _, source, destination in moved(found):
            self.assertIn(source, gaining)
            self.assertNotIn(destination, gaining)

    def test_more_than_pooled_is_impossible(self):
        found, _ = plan({'a': [4, 4, 4], 'b': [4, 4, 4]}, count=2)
        self.assertFalse(found.found)
        self.assertIn('pooled', found.reason)
        self.assertIn('hold 1 more big, fewer than 2', found.reason)

    def test_servers_never_moved(self):
        # Every server holds a GPU or is pinned by the caller.
        def pinned(servers):
            return [defrag.Server(s.id, s.name, s.host, GPU, s.allocations)
                    if s.host == 'a' else
                    defrag.Server(s.id, s.name, s.host, s.flavor,
                                  s.allocations, pinned='locked')
                    for s in servers]
        found, _ = plan({'a': [4, 4, 4], 'b': [4, 4, 4]}, servers=pinned)
        self.assertFalse(found.found)
        self.assertIn('no host the flavor may use has a server that can '
                      'move', found.reason)
        self.assertEqual({defrag.PCI: 3, 'locked': 3}, found.pinned)

    def test_zones_are_kept(self):
        # a and b are in different zones: pooled per zone is 0.
        found, _ = plan({'a': [4, 4, 4], 'b': [4, 4, 4]},
                        zone_of={'a': 'az1', 'b': 'az2'})
        self.assertFalse(found.found)
        self.assertIn('pooled per availability zone hold 0', found.reason)

    def test_anti_affinity_is_kept(self):
        # b is the only host with room for a 4 of a; without a group it
        # takes one and a fits a big.
        found, _ = plan({'a': [4, 4, 4], 'b': [4]})
        self.assertEqual([(4, 'a', 'b')], moved(found))

        # a's 4s and b's are in an anti-affinity group: the filter
        # refuses b, and no other host has room.
        def grouped(servers):
            members = frozenset(s.id for s in servers)
            group = defrag.Group('grp', 'anti-affinity', members)
            return [defrag.Server(s.id, s.name, s.host, s.flavor,
                                  s.allocations, group) for s in servers]
        found, _ = plan({'a': [4, 4, 4], 'b': [4]}, servers=grouped)
        self.assertFalse(found.found)
        self.assertIn('find no destination', found.reason)

    def test_affinity_groups_stay(self):
        def grouped(servers):
            members = frozenset(s.id for s in servers if s.host == 'a')
            group = defrag.Group('grp', 'affinity', members)
            return [defrag.Server(s.id, s.name, s.host, s.flavor,
                                  s.allocations,
                                  group if s.id in members else None)
                    for s in servers]
        found, _ = plan({'a': [4, 4, 4], 'b': [12]}, servers=grouped)
        self.assertFalse(found.found)
        self.assertEqual({defrag.AFFINITY: 3}, found.pinned)

    def test_no_destination_with_room(self):
        # a (two 6s) and b (a 12, locked) have 4 free each: pooled 1.
        # a would fit one with a 6 gone, but b has no room for a 6.
        def pinned(servers):
            return [s if s.host != 'b' or s.flavor.vcpus != 12 else
                    defrag.Server(s.id, s.name, s.host, s.flavor,
                                  s.allocations, pinned='locked')
                    for s in servers]
        found, _ = plan({'a': [6, 6], 'b': [12]}, servers=pinned)
        self.assertFalse(found.found)
        self.assertIn('find no destination', found.reason)

    def test_bounds_say_not_proven(self):
        found, _ = plan({'a': [2, 2, 2, 2, 2, 2], 'b': [2, 2, 2, 2, 2, 2],
                         'c': [2, 2], 'd': [2, 2]},
                        bounds=defrag.Bounds(hosts=1))
        self.assertTrue(found.found, found.reason)
        self.assertFalse(found.proven_minimal)
        self.assertIsNone(found.lower_bound)
        self.assertIn('1 of', found.cut[0])

    def test_commands_and_watcher_actions(self):
        found, _ = plan({'a': [2, 2, 2, 6], 'b': [8], 'c': [10]})
        [move] = found.moves
        self.assertEqual(['openstack server migrate --live-migration '
                          '--host c %s' % move.server.id],
                         defrag.commands(found))
        self.assertEqual([{'action_type': 'migrate', 'input_parameters': {
            'migration_type': 'live', 'source_node': 'a',
            'destination_node': 'c', 'resource_id': move.server.id,
            'resource_name': move.server.name}}],
            defrag.watcher_actions(found))
