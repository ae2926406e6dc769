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
"""Compute nodes' NUMA cells and stats, read from Nova's cell databases.

No API shows a host's NUMA topology with its usage: Nova's resource
tracker keeps it in compute_nodes.numa_topology of the host's cell
database, as the JSON of a NUMATopology versioned object, and the
scheduler reads it from there. Nor what the weighers read there: the
stats (io_workload, the builds since the node's last audit, and
failed_builds), the free devices of its PCI pools and its own CPU
allocation ratio. This reader does the same, read-only, and
only when the operator opts in ([openstack] cell_database_connections);
it needs SELECT on a few columns of compute_nodes and nothing else.

A database that cannot be read, or answers too slowly, is a problem
line, never a failed or stalled refresh: its hosts' cells stay unknown,
and the flavors that need them say they were counted by Placement alone
(numa_bounds). A row that cannot be read, whatever is wrong with it, is
a problem line of its host alone: the rows are written by another
program, and one of them must not decide a whole cloud's refresh.
"""

import concurrent.futures
import dataclasses
import json
import math

from oslo_log import log
import sqlalchemy
from sqlalchemy import pool

from flavor_exporter._i18n import _
from flavor_exporter.capacity.fit import numa_fit

LOG = log.getLogger(__name__)

#: The columns of compute_nodes read; doc/source/admin/numa.rst grants
#: SELECT on exactly these (a unit test compares them).
COLUMNS = ('host', 'hypervisor_hostname', 'numa_topology',
           'cpu_allocation_ratio', 'ram_allocation_ratio', 'stats',
           'pci_stats')
#: The column the WHERE clause reads: MySQL wants SELECT on it too.
FILTERED_BY = ('deleted',)
_QUERY = sqlalchemy.text('SELECT %s FROM compute_nodes WHERE deleted = 0'
                         % ', '.join(COLUMNS))
# What the scheduler takes when a compute node row has no ratio (0 or
# NULL): [DEFAULT] initial_*_allocation_ratio's defaults.
_INITIAL_RATIOS = {'VCPU': 4.0, 'MEMORY_MB': 1.0}
# Databases read at once: a cloud of 75 cells whose database server
# stopped answering waits one read timeout, not 75. Each thread waits on
# its socket; one query each per refresh costs the servers nothing more.
_READERS = 64
# The longest reason a problem line quotes of a row.
_REASON = 200


@dataclasses.dataclass(frozen=True)
class Deadlines:
    """How long one cell database may take, in seconds.

    connect: to open the TCP connection; read: any one read or write on
    it (the server's greeting included: a server that accepts and never
    answers is given up after it); statement: the query, on the server.
    """

    connect: int = 10
    read: int = 30
    statement: int = 20

    @classmethod
    def from_conf(cls, conf, group):
        values = conf[group]
        return cls(values.cell_database_connect_timeout,
                   values.cell_database_read_timeout,
                   values.cell_database_statement_timeout)


def _connect_args(url, deadlines):
    """The DB-API's own deadlines for url's driver."""
    if url.get_backend_name() == 'sqlite':
        # A cell database in SQLite is a test's or a lab's: a writer
        # holding its lock is waited for this long, then an error.
        return {'timeout': deadlines.statement}
    if url.get_backend_name() == 'mysql' and url.get_driver_name() in (
            'pymysql', 'mysqldb'):
        return {'connect_timeout': deadlines.connect,
                'read_timeout': deadlines.read,
                'write_timeout': deadlines.read}
    return {}


def statement_limit(dialect, seconds):
    """The SET that bounds a session's statements on dialect's server.

    None where the server has none this reader knows. MySQL counts
    MAX_EXECUTION_TIME (SELECTs only, which is all this reader runs) in
    milliseconds, MariaDB max_statement_time in seconds.
    """
    if dialect.name != 'mysql':
        return None
    if getattr(dialect, 'is_mariadb', False):
        return 'SET SESSION max_statement_time = %d' % seconds
    return 'SET SESSION MAX_EXECUTION_TIME = %d' % (seconds * 1000)


def make_engine(url, deadlines):
    """An engine for url whose every wait has a deadline.

    No pool: one query per refresh needs no kept connection, and a kept
    one whose server went silent would cost a ping's read timeout before
    the new connection's.
    """
    url = sqlalchemy.engine.make_url(url)
    engine = sqlalchemy.create_engine(
        url, poolclass=pool.NullPool,
        connect_args=_connect_args(url, deadlines))

    @sqlalchemy.event.listens_for(engine, 'connect')
    def limit_statements(dbapi_connection, record):
        statement = statement_limit(engine.dialect, deadlines.statement)
        if statement is None:
            return
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(statement)
        except Exception:
            # An older server without the variable: the read timeout
            # still bounds the wait.
            LOG.debug('%s refused', statement, exc_info=True)
        finally:
            cursor.close()
    return engine


def _data(primitive, name):
    """The fields of a serialized versioned object, checked by name."""
    if (not isinstance(primitive, dict)
            or primitive.get('nova_object.name') != name
            or not isinstance(primitive.get('nova_object.data'), dict)):
        raise ValueError(_('not a %s object') % name)
    return primitive['nova_object.data']


def _count(value, least=0):
    """value as an int of at least least; ValueError if it is not one.

    The engine divides by page sizes and orders CPU ids: a zero page
    size or a CPU id that is text would fail the count of every host,
    not this one's. least None: any whole number (usage, which the
    resource tracker may leave below 0 for a while).
    """
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(_('%r is not a whole number') % value)
    number = int(value)
    if least is not None and number < least:
        raise ValueError(_('%(value)r is less than %(least)d') % {
            'value': value, 'least': least})
    return number


def _cpus(values):
    cpus = frozenset(values or ())
    # What Nova writes, checked at the cost of a type test per CPU.
    if all(type(cpu) is int and cpu >= 0 for cpu in cpus):
        return cpus
    return frozenset(_count(cpu) for cpu in values)


def _cell(primitive):
    data = _data(primitive, 'NUMACell')
    pages = tuple(numa_fit.Pages(
        _count(page['size_kb'], 1), _count(page['total']),
        _count(page.get('used', 0), None),
        _count(page.get('reserved', 0), None))
        for page in map(lambda p: _data(p, 'NUMAPagesTopology'),
                        data.get('mempages') or ()))
    # Built from the stored lists in their order, as Nova builds its sets:
    # the order of a set decides which CPUs a pinned server gets.
    return numa_fit.HostCell(
        id=_count(data['id']), cpuset=_cpus(data.get('cpuset')),
        pcpuset=_cpus(data.get('pcpuset')),
        memory=_count(data['memory']),
        cpu_usage=_count(data.get('cpu_usage', 0), None),
        memory_usage=_count(data.get('memory_usage', 0), None),
        pinned=_cpus(data.get('pinned_cpus')),
        siblings=tuple(_cpus(s) for s in data.get('siblings') or ()),
        pages=pages)


def _why(exc):
    """exc in a few words: its message, its kind when that says more."""
    text = str(exc) or type(exc).__name__
    if not isinstance(exc, ValueError):
        text = '%s: %s' % (type(exc).__name__, text)
    return text if len(text) <= _REASON else text[:_REASON] + '...'


def topology(text, cpu_ratio, ram_ratio):
    """A numa_fit.HostNuma of a numa_topology column; ValueError if bad.

    Any failure is the row's: Infinity (OverflowError), nesting past
    the recursion limit (RecursionError), a list for an object...
    """
    if not text:
        return numa_fit.NO_TOPOLOGY
    try:
        cells = _data(json.loads(text), 'NUMATopology').get('cells')
        return numa_fit.HostNuma([_cell(c) for c in cells or ()],
                                 cpu_ratio, ram_ratio)
    except Exception as exc:
        raise ValueError(_('unreadable numa_topology: %s') % _why(exc)) \
            from None


def _finite(value):
    """value as a positive finite float; ValueError otherwise."""
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise ValueError(_('allocation ratio %r') % value)
    return number


def with_stats(figures, stats, pci_stats, cpu_ratio):
    """figures with what the scheduler reads of the node's row.

    stats: compute_nodes.stats ({name: value as text}, JSON); pci_stats:
    its PciDevicePoolList; cpu_ratio: its cpu_allocation_ratio (0 or
    None: unknown). figures unchanged when they cannot be read, whatever
    is wrong with them: the weighers then say what they took instead.
    """
    try:
        counts = json.loads(stats) if stats else {}
        pools = _data(json.loads(pci_stats), 'PciDevicePoolList').get(
            'objects') or () if pci_stats else ()
        return dataclasses.replace(
            figures, io_ops=_count(counts.get('io_workload', 0)),
            failed_builds=_count(counts.get('failed_builds', 0)),
            pci_free=sum(_count(_data(pool, 'PciDevicePool')['count'])
                         for pool in pools),
            cpu_ratio=_finite(cpu_ratio) if cpu_ratio else None,
            from_stats=True)
    except Exception:
        return figures


def _ratio(value, host, resource_class):
    """A row's allocation ratio, or what the scheduler takes instead."""
    if value:
        return _finite(value)
    root = host.root if host is not None else None
    inventory = root.inventories.get(resource_class) if root else None
    if inventory is not None:
        return inventory.allocation_ratio
    return _INITIAL_RATIOS[resource_class]


class CellDatabases:
    """The cell databases of one cloud, and what was parsed of them."""

    def __init__(self, urls, deadlines=Deadlines()):
        # (where, engine or None, why not): a URL the engine refuses is
        # that database's problem line at each refresh; the commands
        # refuse such URLs at start (common/config_check.py).
        self._engines = []
        for number, url in enumerate(urls, 1):
            try:
                engine = make_engine(url, deadlines)
            except Exception as exc:
                LOG.debug('Cell database URL %d', number, exc_info=True)
                # Not the URL: it may hold a password.
                self._engines.append((
                    _('number %d of cell_database_connections') % number,
                    None, _why(exc).replace(url, '...')))
                continue
            self._engines.append((
                engine.url.render_as_string(hide_password=True), engine,
                None))
        # Rows as read -> HostNuma: most rows do not change between two
        # refreshes, and equal rows share one HostNuma (numa_fit.Counts).
        self._parsed = {}

    @classmethod
    def from_conf(cls, conf, group):
        """The databases of [group] cell_database_connections, or None."""
        urls = conf[group].cell_database_connections
        return cls(urls, Deadlines.from_conf(conf, group)) if urls else None

    @staticmethod
    def _rows(engine):
        with engine.connect() as connection:
            return connection.execute(_QUERY).fetchall()

    def _read(self, problems):
        """[(where, rows)] of the databases that answered, in order."""
        readable = [(where, engine) for where, engine, why in self._engines
                    if engine is not None]
        with concurrent.futures.ThreadPoolExecutor(
                max(1, min(_READERS, len(readable))),
                thread_name_prefix='cell-database') as readers:
            reads = [(where, readers.submit(self._rows, engine))
                     for where, engine in readable]
        found = []
        for where, engine, why in self._engines:
            if engine is None:
                problems.append(_unreadable(where, why))
        for where, read in reads:
            try:
                found.append((where, read.result()))
            except Exception as exc:
                # A driver's own error (a socket's, say) too: a database
                # that cannot be read never fails the refresh.
                LOG.debug('Reading %s', where, exc_info=exc)
                problems.append(_unreadable(
                    where, str(exc).splitlines()[0] if str(exc)
                    else type(exc).__name__))
        return found

    def attach(self, hosts, problems):
        """Give each of hosts (model.Host) its NUMA cells, where found.

        problems: a list the lines about what could not be read go to.
        """
        by_node = {(h.name, h.node): h for h in hosts}
        parsed = {}
        for where, rows in self._read(problems):
            for row in rows:
                self._attach(row, by_node, parsed, where, problems)
        self._parsed = parsed

    def _attach(self, row, by_node, parsed, where, problems):
        name, node, text, cpu, ram, stats, pci = row
        host = by_node.get((name, node))
        if host is None:
            return  # a node no source listed
        if host.figures is not None:
            host.figures = with_stats(host.figures, stats, pci, cpu)
        try:
            key = (text, _ratio(cpu, host, 'VCPU'),
                   _ratio(ram, host, 'MEMORY_MB'))
            numa = parsed[key] = (
                self._parsed.get(key) or parsed.get(key) or topology(*key))
        except Exception as exc:
            problems.append(_('compute node %(node)s in %(db)s: '
                              '%(error)s; its NUMA cells are unknown') % {
                                  'node': node, 'db': where,
                                  'error': _why(exc)})
            return
        host.numa = numa


def _unreadable(where, error):
    return _('cell database %(db)s: %(error)s; the NUMA cells of its '
             'hosts are unknown') % {'db': where, 'error': error}
