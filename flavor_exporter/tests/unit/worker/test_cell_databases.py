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
import re
import socket
import threading
import time

import fixtures
import sqlalchemy

from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity import model
from flavor_exporter.publication import cache
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.worker import test_refresh
from flavor_exporter.worker import cell_databases
from flavor_exporter.worker import refresh

# The repository's doc/source/admin/numa.rst.
NUMA_RST = os.path.join(os.path.dirname(__file__), *(['..'] * 4),
                        'doc', 'source', 'admin', 'numa.rst')


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


def cell_database(directory, rows=()):
    """The URL of an SQLite cell database in directory holding rows.

    rows: (host, node, numa_topology, cpu ratio, ram ratio, stats,
    pci_stats) each.
    """
    url = 'sqlite:///' + os.path.join(directory, 'cell1.sqlite')
    with sqlalchemy.create_engine(url).begin() as db:
        db.execute(sqlalchemy.text(
            'CREATE TABLE compute_nodes (host TEXT, hypervisor_hostname '
            'TEXT, numa_topology TEXT, cpu_allocation_ratio FLOAT, '
            'ram_allocation_ratio FLOAT, stats TEXT, pci_stats TEXT, '
            'deleted INTEGER)'))
        for row in rows:
            db.execute(sqlalchemy.text(
                'INSERT INTO compute_nodes VALUES '
                '(:h, :n, :t, :c, :r, :s, :p, 0)'),
                dict(zip('hntcrsp', row)))
    return url


class SilentServer:
    """A TCP server on 127.0.0.1 that accepts and never says a word.

    What a database server whose disk or process hangs looks like from
    the client: the connection opens, the greeting never comes.
    """

    def __init__(self, test):
        self._socket = socket.socket()
        self._socket.bind(('127.0.0.1', 0))
        self._socket.listen(16)
        self._held = []
        self.port = self._socket.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()
        test.addCleanup(self.close)

    def _accept(self):
        while True:
            try:
                self._held.append(self._socket.accept()[0])
            except OSError:
                return

    def close(self):
        try:
            # Wakes the accepting thread; close() alone may not.
            self._socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._socket.close()
        for held in self._held:
            held.close()


class TestCellDatabases(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.url = cell_database(self.useFixture(fixtures.TempDir()).path)
        engine = sqlalchemy.create_engine(self.url)
        with engine.begin() as db:
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


def _deep(depth):
    return '[' * depth + ']' * depth


class TestRowsThatCannotBeRead(base.BaseTestCase):
    """Whatever is wrong with a row is its host's problem line alone."""

    GOOD = numa_topology(([0, 1], 0, []))
    BAD = {
        'infinity': GOOD.replace('"memory": 4096', '"memory": Infinity'),
        'nan': GOOD.replace('"memory": 4096', '"memory": NaN'),
        'deep': _deep(5000),
        'deep_in_cells': GOOD.replace('"cells": [', '"cells": [%s, '
                                      % _deep(3000)),
        'list': '[1, 2]',
        'cells_text': json.dumps(_object('NUMATopology', {'cells': 'ab'})),
        'no_memory': GOOD.replace('"memory": 4096, ', ''),
        'cpu_text': GOOD.replace('"pcpuset": [0, 1]', '"pcpuset": ["x"]'),
        'cpu_negative': GOOD.replace('"pcpuset": [0, 1]',
                                     '"pcpuset": [-1, 1]'),
        'cpu_list': GOOD.replace('"pcpuset": [0, 1]', '"pcpuset": [[0]]'),
        'page_zero': GOOD.replace('"size_kb": 4', '"size_kb": 0'),
        'huge_float': GOOD.replace('"memory": 4096', '"memory": 1e400'),
        'digits': GOOD.replace('"memory": 4096', '"memory": %s' % (
            '9' * 5000)),
        'not_json': '{"nova_object.name": ',
        'binary': '\x00\xff',
    }

    def setUp(self):
        super().setUp()
        rows = [(name, name, text, 4.0, 1.0, None, None)
                for name, text in sorted(self.BAD.items())]
        rows += [('good', 'good', self.GOOD, 4.0, 1.0, None, None),
                 ('ratio', 'ratio', self.GOOD, 'Infinity', 1.0, None, None),
                 ('ratio_text', 'ratio_text', self.GOOD, 4.0, 'x', None,
                  None),
                 ('stats', 'stats', self.GOOD, 4.0, 1.0,
                  '{"io_workload": Infinity, "failed_builds": ' + _deep(
                      3000) + '}', _deep(5000))]
        self.url = cell_database(
            self.useFixture(fixtures.TempDir()).path, rows)

    def test_each_bad_row_is_a_problem_of_its_host(self):
        names = sorted(self.BAD) + ['good', 'ratio', 'ratio_text', 'stats']
        hosts = [host(name) for name in names]
        problems = []
        cell_databases.CellDatabases([self.url]).attach(hosts, problems)
        found = {h.name: h for h in hosts}
        self.assertIsNotNone(found['good'].numa)
        # Stats unreadable whatever the reason: the figures as they were,
        # the cells read.
        self.assertIs(FIGURES, found['stats'].figures)
        self.assertIsNotNone(found['stats'].numa)
        unknown = sorted(self.BAD) + ['ratio', 'ratio_text']
        self.assertEqual([None] * len(unknown),
                         [found[name].numa for name in unknown])
        self.assertEqual(len(unknown), len(problems), problems)
        for name, line in zip(unknown, problems):
            self.assertTrue(line.startswith('compute node %s in sqlite:'
                                            % name), line)
            self.assertTrue(line.endswith('; its NUMA cells are unknown'),
                            line)
            self.assertLess(len(line), 400)
        self.assertIn('RecursionError', problems[unknown.index('deep')])
        self.assertIn('inf is not a whole number',
                      problems[unknown.index('infinity')])


class TestDeadlines(base.TestCase):
    """A cell database that never answers holds a refresh a read timeout."""

    def setUp(self):
        super().setUp()
        self.silent = 'mysql+pymysql://fe:secret@127.0.0.1:%d/nova_cell2' % (
            SilentServer(self).port)
        good = numa_topology(([0, 1], 0, []))
        self.rows = cell_database(self.useFixture(fixtures.TempDir()).path, [
            ('c1', 'c1.example.org', good.replace('4096', 'Infinity', 1),
             4.0, 1.0, None, None),
            ('c2', 'c2.example.org', good, 4.0, 1.0, None, None)])

    def test_a_silent_database_is_given_up_after_the_read_timeout(self):
        problems = []
        started = time.monotonic()
        cell_databases.CellDatabases(
            [self.silent, self.silent, self.silent],
            cell_databases.Deadlines(connect=1, read=1, statement=1)
        ).attach([host('a')], problems)
        elapsed = time.monotonic() - started
        # Read at once: three silent databases cost one read timeout.
        self.assertLess(elapsed, 3.0)
        self.assertEqual(3, len(problems), problems)
        self.assertIn('cell database mysql+pymysql://fe:***@127.0.0.1:',
                      problems[0])
        self.assertIn('timed out', problems[0])
        self.assertNotIn('secret', ' '.join(problems))

    def test_the_refresh_completes_with_the_problem(self):
        self.flags(group='openstack',
                   cell_database_connections=[self.silent, self.rows],
                   cell_database_connect_timeout=1,
                   cell_database_read_timeout=2,
                   cell_database_statement_timeout=1)
        store = publisher.Publisher(cache.MemoryBackend(), 'test', 600)
        fake = test_refresh.FakeSource()
        fake.hosts = (2, 0)
        refresher = refresh.Refresher(self.conf, store, client=object(),
                                      source=fake)
        started = time.monotonic()
        self.assertTrue(refresher.refresh())
        elapsed = time.monotonic() - started
        self.assertGreater(elapsed, 1.5)  # the read timeout was waited
        self.assertLess(elapsed, 5.0)
        problems = store.reader.status()['problems']
        self.assertEqual(2, len(problems), problems)
        self.assertIn('nova_cell2: (pymysql.err.OperationalError) (2013, '
                      "'Lost connection to MySQL server during query "
                      "(timed out)'); the NUMA cells of its hosts are "
                      'unknown', problems[0])
        self.assertIn('compute node c1.example.org in sqlite:', problems[1])

    def test_each_driver_is_given_its_deadlines(self):
        deadlines = cell_databases.Deadlines(connect=3, read=7, statement=5)
        for url, expected in (
                ('mysql+pymysql://u:p@db/nova', {
                    'connect_timeout': 3, 'read_timeout': 7,
                    'write_timeout': 7}),
                ('mysql+mysqldb://u:p@db/nova', {
                    'connect_timeout': 3, 'read_timeout': 7,
                    'write_timeout': 7}),
                ('sqlite:///cell1.sqlite', {'timeout': 5}),
                ('postgresql://u:p@db/nova', {})):
            self.assertEqual(expected, cell_databases._connect_args(
                sqlalchemy.engine.make_url(url), deadlines), url)

    def test_the_server_bounds_the_statement(self):
        mysql = sqlalchemy.engine.make_url('mysql+pymysql://db/nova')
        dialect = mysql.get_dialect()()
        self.assertEqual('SET SESSION MAX_EXECUTION_TIME = 20000',
                         cell_databases.statement_limit(dialect, 20))
        dialect.is_mariadb = True
        self.assertEqual('SET SESSION max_statement_time = 20',
                         cell_databases.statement_limit(dialect, 20))
        sqlite = sqlalchemy.engine.make_url('sqlite://').get_dialect()()
        self.assertIsNone(cell_databases.statement_limit(sqlite, 20))

    def test_a_url_the_engine_refuses_is_its_problem_line(self):
        problems = []
        cell_databases.CellDatabases(
            ['mysql+pymysql://fe:secret@db:port/nova', self.rows]).attach(
                [host('c2')], problems)
        self.assertEqual(1, len(problems), problems)
        self.assertTrue(problems[0].startswith(
            'cell database number 1 of cell_database_connections: '),
            problems[0])
        self.assertNotIn('secret', problems[0])


class TestDocumentedGrant(base.BaseTestCase):
    """The GRANT numa.rst gives is exactly what the reader selects."""

    def _rst(self):
        with open(NUMA_RST) as f:
            return f.read()

    def test_grant_is_the_columns_read(self):
        grant = re.search(r'GRANT SELECT \(([^)]*)\)\s+ON (\S+)',
                          self._rst())
        self.assertIsNotNone(grant, 'no GRANT SELECT (...) in numa.rst')
        granted = [c.strip() for c in grant.group(1).split(',')]
        self.assertEqual(sorted(cell_databases.COLUMNS
                                + cell_databases.FILTERED_BY),
                         sorted(granted))
        self.assertTrue(grant.group(2).endswith('.compute_nodes'))

    def test_query_shown_is_the_query_run(self):
        shown = re.search(r'(SELECT host,.*?WHERE deleted = 0)',
                          self._rst(), re.S)
        self.assertIsNotNone(shown)
        self.assertEqual(str(cell_databases._QUERY),
                         ' '.join(shown.group(1).split()))

    def test_option_help_names_the_same_columns(self):
        from flavor_exporter.conf import openstack
        help_text = {o.dest: o.help for o in openstack.opts}[
            'cell_database_connections']
        named = re.search(r'compute_nodes\(([^)]*)\)', help_text)
        self.assertEqual(sorted(cell_databases.COLUMNS
                                + cell_databases.FILTERED_BY),
                         sorted(c.strip() for c in named.group(1).split(',')))
