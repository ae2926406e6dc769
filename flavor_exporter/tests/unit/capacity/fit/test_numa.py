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
"""Guest NUMA topologies, NUMATopologyFilter's fit, and the engine's use.

The numbers are worked out by hand from nova.virt.hardware (Nova 29 and
34); tests/functional/test_numa_fit.py compares with Nova's own code.
"""

import dataclasses

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.fit import numa_bounds
from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request import guest_numa
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity import request_helpers as helpers
from flavor_exporter.tests.unit.capacity.test_engine import compute_host
from flavor_exporter.tests.unit.capacity.test_engine import flavor

NEW = numa_fit.Rules(enabled=True)
OLD = numa_fit.Rules(enabled=True, pinned_memory_free=False)


def cell(id, shared=(), dedicated=(), memory=4096, huge=0, threads=1):
    """A host cell; huge: 2 MiB pages, taken from the cell's memory."""
    cpus = sorted(set(shared) | set(dedicated))
    siblings = tuple(frozenset(cpus[i:i + threads])
                     for i in range(0, len(cpus), threads))
    pages = [numa_fit.Pages(4, (memory - huge * 2) * 256)]
    if huge:
        pages.append(numa_fit.Pages(2048, huge))
    return numa_fit.HostCell(id, frozenset(shared), frozenset(dedicated),
                             memory, siblings=siblings, pages=tuple(pages))


def two_cells(**kwargs):
    return numa_fit.HostNuma([cell(0, dedicated=range(0, 4), **kwargs),
                              cell(1, dedicated=range(4, 8), **kwargs)],
                             4.0, 1.0)


def guest(vcpus=2, ram=1024, **specs):
    return helpers.build(specs, vcpus=vcpus, ram=ram).numa


def count(host, guest, rules=NEW, bound=100):
    return numa_fit.Counts(rules).of(guest).count(host, bound)


class TestGuest(base.BaseTestCase, helpers.InvalidMixin):

    def test_none_without_numa_specs(self):
        self.assertIsNone(guest(**{'hw:cpu_policy': 'shared'}))

    def test_even_split(self):
        found = guest(4, 2048, **{'hw:numa_nodes': '2'})
        self.assertEqual(
            (guest_numa.GuestCell(frozenset({0, 1}), frozenset(), 1024),
             guest_numa.GuestCell(frozenset({2, 3}), frozenset(), 1024)),
            found.cells)
        self.assertIsNone(found.policy)

    def test_manual_split_of_a_mixed_guest(self):
        found = guest(4, 3072, **{
            'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0', 'hw:numa_mem.0':
            '1024', 'hw:numa_cpus.1': '1-3', 'hw:numa_mem.1': '2048',
            'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '2-3'})
        self.assertEqual(
            (guest_numa.GuestCell(frozenset({0}), frozenset(), 1024),
             guest_numa.GuestCell(frozenset({1}), frozenset({2, 3}), 2048)),
            found.cells)

    def test_what_nova_refuses(self):
        self.assertInvalid('hw:numa_nodes', {'hw:numa_nodes': '3'})
        self.assertInvalid('hw:numa_cpus.0', {
            'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-3',
            'hw:numa_mem.0': '8192'})
        self.assertInvalid('hw:numa_mem.0', {
            'hw:numa_nodes': '1', 'hw:numa_cpus.0': '0-3',
            'hw:numa_mem.0': '100'})
        self.assertInvalid('hw:numa_cpus.1', {
            'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-3',
            'hw:numa_mem.0': '4096', 'hw:numa_cpus.1': '3',
            'hw:numa_mem.1': '4096'})

    def test_page_sizes(self):
        self.assertEqual(guest_numa.LARGE,
                         guest(**{'hw:mem_page_size': 'large'}).pagesize)
        self.assertEqual(2048, guest(**{'hw:mem_page_size': '2MB'}).pagesize)
        self.assertEqual(2048, guest(**{'hw:mem_page_size': '2048'}).pagesize)

    def test_pcpu_resources_pin(self):
        found = guest(**{'resources:PCPU': '2',
                         'trait:HW_CPU_HYPERTHREADING': 'forbidden'})
        self.assertEqual(('dedicated', 'isolate'),
                         (found.policy, found.thread_policy))
        self.assertEqual(frozenset({0, 1}), found.cells[0].pcpus)


class TestFit(base.BaseTestCase):

    def test_pinned_per_cell(self):
        pinned = {'hw:cpu_policy': 'dedicated'}
        self.assertEqual(4, count(two_cells(), guest(2, 1024, **pinned)))
        # 6 dedicated CPUs fit no cell of 4; split over two they do once.
        self.assertEqual(0, count(two_cells(), guest(6, 1024, **pinned)))
        self.assertEqual(1, count(two_cells(), guest(
            6, 1024, **dict(pinned, **{'hw:numa_nodes': '2'}))))

    def test_emulator_thread_goes_with_cell_0(self):
        # 3 + 1 dedicated CPUs: one server per cell.
        self.assertEqual(2, count(two_cells(), guest(3, 512, **{
            'hw:cpu_policy': 'dedicated',
            'hw:emulator_threads_policy': 'isolate'})))

    def test_pinned_memory_by_release(self):
        # 3 GiB pinned guests in 4 GiB cells: one per cell either way.
        big = guest(1, 3072, **{'hw:cpu_policy': 'dedicated'})
        self.assertEqual(2, count(two_cells(), big, NEW))
        self.assertEqual(2, count(two_cells(), big, OLD))
        # A cell whose memory_usage says 3 GiB while 2 GiB of 2 MiB pages
        # are free: Nova 30 and later look at the pages, Nova 29 at the
        # usage.
        host = numa_fit.HostNuma([dataclasses.replace(
            cell(0, dedicated=range(4), huge=1024), memory_usage=3072)],
            4.0, 1.0)
        huge = guest(1, 1024, **{'hw:cpu_policy': 'dedicated',
                                 'hw:mem_page_size': 'large'})
        self.assertEqual(2, count(host, huge, NEW))
        self.assertEqual(1, count(host, huge, OLD))

    def test_huge_pages(self):
        # 2 GiB of 2 MiB pages per cell.
        host = numa_fit.HostNuma([cell(0, shared=range(4), huge=1024),
                                  cell(1, shared=range(4, 8), huge=1024)],
                                 4.0, 1.0)
        large = guest(1, 1024, **{'hw:mem_page_size': 'large'})
        self.assertEqual(4, count(host, large))
        # Small pages: the 2 GiB left in 4 KiB pages, per cell.
        small = guest(1, 1024, **{'hw:mem_page_size': 'small'})
        self.assertEqual(4, count(host, small))
        # No large pages at all: none.
        self.assertEqual(0, count(numa_fit.HostNuma(
            [cell(0, shared=range(4))], 4.0, 1.0), large))

    def test_shared_guest_bounded_by_ratios(self):
        host = numa_fit.HostNuma([cell(0, shared=range(4))], 4.0, 1.0)
        numa = guest(2, 1024, **{'hw:numa_nodes': '1'})
        # CPU 4 * 4.0 / 2 = 8; memory 4096 * 1.0 / 1024 = 4.
        self.assertEqual(4, count(host, numa))
        self.assertEqual(8, count(numa_fit.HostNuma(host.cells, 4.0, 2.0),
                                  numa))

    def test_thread_policies(self):
        smt = numa_fit.HostNuma([cell(0, dedicated=range(4), threads=2)],
                                1.0, 1.0)
        require = guest(2, 512, **{'hw:cpu_policy': 'dedicated',
                                   'hw:cpu_thread_policy': 'require'})
        self.assertEqual(2, count(smt, require))
        self.assertEqual(0, count(two_cells(), require))
        # isolate on a host with cpu_dedicated_set and SMT: refused (bug
        # 1889633); without SMT each vCPU takes a core.
        isolate = guest(2, 512, **{'hw:cpu_policy': 'dedicated',
                                   'hw:cpu_thread_policy': 'isolate'})
        self.assertEqual(0, count(smt, isolate))
        self.assertEqual(4, count(two_cells(), isolate))

    def test_no_topology_takes_none(self):
        self.assertEqual(0, count(numa_fit.NO_TOPOLOGY, guest(
            **{'hw:numa_nodes': '1'})))

    def test_counts_are_bounded_and_remembered(self):
        counts = numa_fit.Counts(NEW).of(guest(1, 256, **{
            'hw:cpu_policy': 'dedicated'}))
        self.assertEqual(3, counts.count(two_cells(), 3))
        self.assertEqual(8, counts.count(two_cells(), 50))
        self.assertEqual(8, counts.count(two_cells(), 9))


def numa_host(name, numa):
    """16 shared CPUs and 16 dedicated ones in Placement."""
    found = compute_host(name, vcpus=16)
    found.root.inventories['PCPU'] = model.Inventory(16, max_unit=16)
    return dataclasses.replace(found, numa=numa)


class TestEngine(base.BaseTestCase):

    def compute(self, hosts, rules=NEW, reference=False):
        snapshot = model.Snapshot('placement', [
            flavor('pinned', vcpus=2, ram=1024, hw__cpu_policy='dedicated'),
            flavor('plain', vcpus=2, ram=1024)], hosts)
        options = engine.Options(numa=rules)
        report = (engine.reference_compute if reference
                  else engine.compute)(snapshot, options)
        return {c.flavor.name: c for c in report.flavors}

    def test_cells_bound_placement(self):
        # Placement would fit 8 per host (16 PCPU); the cells 4 per host,
        # 3 on the host with two CPUs pinned.
        used = two_cells()
        used = numa_fit.HostNuma([dataclasses.replace(
            used.cells[0], pinned=frozenset({0, 1}))] + [used.cells[1]],
            4.0, 1.0)
        hosts = [numa_host('a', two_cells()), numa_host('b', used)]
        for reference in (False, True):
            found = self.compute(hosts, reference=reference)
            pinned = found['pinned']
            self.assertEqual((8, 7), (pinned.total, pinned.available))
            self.assertEqual(numa_bounds.LIMIT, pinned.limited_by)
            self.assertEqual([], pinned.request.unsupported)
            self.assertEqual((16, 16), (found['plain'].total,
                                        found['plain'].available))

    def test_unknown_cells_are_said(self):
        hosts = [numa_host('a', two_cells()), numa_host('b', None)]
        for reference in (False, True):
            pinned = self.compute(hosts, reference=reference)['pinned']
            # a by its cells (4), b by Placement (8).
            self.assertEqual(12, pinned.total)
            self.assertIn('not modelled on 1 of 2 hosts',
                          ' '.join(pinned.request.unsupported))

    def test_filter_not_run(self):
        pinned = self.compute([numa_host('a', two_cells())],
                              rules=numa_fit.Rules(enabled=False))['pinned']
        self.assertEqual(8, pinned.total)
        self.assertIn('numa_topology_filter = false',
                      ' '.join(pinned.request.unsupported))

    def test_no_topology_is_zero(self):
        pinned = self.compute([numa_host('a', numa_fit.NO_TOPOLOGY)])[
            'pinned']
        self.assertEqual((0, 0), (pinned.total, pinned.available))
        self.assertEqual({'does not fit': 1}, pinned.excluded)
