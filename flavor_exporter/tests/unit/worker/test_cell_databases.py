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
"""Compute nodes' NUMA cells from a cell database (an SQLite file here).

The rows hold what Nova 34's resource tracker writes (a NUMATopology
primitive); test_numa_oracle reads a real cloud's cell database.
"""

import json
import os

import fixtures
import sqlalchemy

from flavor_exporter.capacity import model
from flavor_exporter.capacity import numa_fit
from flavor_exporter.tests import base
from flavor_exporter.worker import cell_databases


def _object(name, data):
    return {'nova_object.name': name, 'nova_object.namespace': 'nova',
            'nova_object.version': '1.0', 'nova_object.data': data}


def numa_topology(*cells):
    return json.dumps(_object('NUMATopology', {'cells': [
        _object('NUMACell', {
            'id': i, 'cpuset': [], 'pcpuset': list(cpus), 'memory': 4096,
            'cpu_usage': 0, 'memory_usage': used, 'pinned_cpus': pinned,
            'siblings': [[c] for c in cpus], 'socket': 0,
            'mempages': [_object('NUMAPagesTopology', {
                'size_kb': 4, 'total': 1048576, 'used': used * 256,
                'reserved': 0})]})
        for i, (cpus, used, pinned) in enumerate(cells)]}))


FIGURES = model.SchedulerFigures(8192, 100, None, 8, 0, io_ops=0)


def host(name):
    root = model.Provider('rp-' + name, name, inventories={
        'VCPU': model.Inventory(8, allocation_ratio=16.0),
        'MEMORY_MB': model.Inventory(8192, allocation_ratio=1.5)})
    return model.Host(name, name, providers=[root], figures=FIGURES)


class TestCellDatabases(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'cell1.sqlite')
        self.url = 'sqlite:///' + path
        engine = sqlalchemy.create_engine(self.url)
        with engine.begin() as db:
            db.execute(sqlalchemy.text(
                'CREATE TABLE compute_nodes (host TEXT, hypervisor_hostname '
                'TEXT, numa_topology TEXT, cpu_allocation_ratio FLOAT, '
                'ram_allocation_ratio FLOAT, stats TEXT, pci_stats TEXT, '
                'deleted INTEGER)'))
            stats = '{"io_workload": "2", "failed_builds": "1"}'
            pools = json.dumps(_object('PciDevicePoolList', {'objects': [
                _object('PciDevicePool', {'count': n, 'vendor_id': '10de'})
                for n in (1, 2)]}))
            for row in (
                    ('a', 'a', numa_topology(([0, 1], 0, []),
                                             ([2, 3], 1024, [2])), 4.0, 1.0,
                     stats, pools),
                    ('b', 'b', numa_topology(([0, 1], 0, [])), 0.0, None,
                     'not json', None),
                    ('c', 'c', None, 4.0, 1.0, None, None),
                    ('d', 'd', '{"nova_object.name": "Nope"}', 4.0, 1.0,
                     stats, pools),
                    ('gone', 'gone', numa_topology(([0], 0, [])), 4.0,
                     1.0, stats, pools)):
                db.execute(sqlalchemy.text(
                    'INSERT INTO compute_nodes VALUES '
                    '(:h, :n, :t, :c, :r, :s, :p, 0)'),
                    dict(zip('hntcrsp', row)))
            db.execute(sqlalchemy.text(
                "UPDATE compute_nodes SET deleted = 5 WHERE host = 'gone'"))

    def test_rows_become_cells(self):
        hosts = [host(name) for name in ('a', 'b', 'c', 'd', 'gone', 'e')]
        problems = []
        cell_databases.CellDatabases([self.url]).attach(hosts, problems)
        a, b, c, d, gone, e = hosts
        self.assertEqual(
            [numa_fit.HostCell(0, frozenset(), frozenset({0, 1}), 4096,
                               siblings=(frozenset({0}), frozenset({1})),
                               pages=(numa_fit.Pages(4, 1048576),)),
             numa_fit.HostCell(1, frozenset(), frozenset({2, 3}), 4096,
                               memory_usage=1024, pinned=frozenset({2}),
                               siblings=(frozenset({2}), frozenset({3})),
                               pages=(numa_fit.Pages(4, 1048576, 262144),))],
            list(a.numa.cells))
        self.assertEqual((4.0, 1.0), (a.numa.cpu_ratio, a.numa.ram_ratio))
        # No ratio in the row: the inventory's, as the scheduler has it.
        self.assertEqual((16.0, 1.5), (b.numa.cpu_ratio, b.numa.ram_ratio))
        self.assertIs(numa_fit.NO_TOPOLOGY, c.numa)
        # Unreadable, deleted and missing rows leave the cells unknown.
        self.assertEqual((None, None, None), (d.numa, gone.numa, e.numa))
        self.assertEqual(1, len(problems))
        self.assertIn('compute node d in sqlite:///', problems[0])
        self.assertIn('not a NUMATopology object', problems[0])

    def test_stats_give_the_scheduler_s_counts(self):
        hosts = [host(name) for name in ('a', 'b', 'c', 'd', 'e')]
        cell_databases.CellDatabases([self.url]).attach(hosts, [])
        a, b, c, d, e = [h.figures for h in hosts]
        self.assertEqual((2, 1, 3, 4.0, True),
                         (a.io_ops, a.failed_builds, a.pci_free,
                          a.cpu_ratio, a.from_stats))
        # A row whose NUMA cells are unreadable still has its stats.
        self.assertEqual((2, 1, 3, True), (d.io_ops, d.failed_builds,
                                           d.pci_free, d.from_stats))
        # No stats: none counted; unreadable stats or no row: unknown.
        self.assertEqual((0, 0, 0, True), (c.io_ops, c.failed_builds,
                                           c.pci_free, c.from_stats))
        self.assertIs(FIGURES, b)
        self.assertIs(FIGURES, e)

    def test_equal_rows_share_their_cells(self):
        reader = cell_databases.CellDatabases([self.url])
        first = [host('a')]
        reader.attach(first, [])
        again = [host('a')]
        reader.attach(again, [])
        self.assertIs(first[0].numa, again[0].numa)

    def test_unreadable_database_is_a_problem(self):
        hosts = [host('a')]
        problems = []
        cell_databases.CellDatabases(
            ['mysql+pymysql://fe:secret@127.0.0.1:1/nova_cell1']).attach(
                hosts, problems)
        self.assertIsNone(hosts[0].numa)
        self.assertEqual(1, len(problems))
        self.assertIn('cell database mysql+pymysql://fe:***@127.0.0.1:1/'
                      'nova_cell1: ', problems[0])
        self.assertNotIn('secret', problems[0])
