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

A database that cannot be read is a problem line, never a failed
refresh: its hosts' cells stay unknown, and the flavors that need them
say they were counted by Placement alone (numa_bounds).
"""

import dataclasses
import json

from oslo_log import log
import sqlalchemy

from flavor_exporter._i18n import _
from flavor_exporter.capacity import numa_fit

LOG = log.getLogger(__name__)

_QUERY = sqlalchemy.text(
    'SELECT host, hypervisor_hostname, numa_topology, cpu_allocation_ratio, '
    'ram_allocation_ratio, stats, pci_stats FROM compute_nodes '
    'WHERE deleted = 0')
# What the scheduler takes when a compute node row has no ratio (0 or
# NULL): [DEFAULT] initial_*_allocation_ratio's defaults.
_INITIAL_RATIOS = {'VCPU': 4.0, 'MEMORY_MB': 1.0}


def _data(primitive, name):
    """The fields of a serialized versioned object, checked by name."""
    if (not isinstance(primitive, dict)
            or primitive.get('nova_object.name') != name
            or not isinstance(primitive.get('nova_object.data'), dict)):
        raise ValueError(_('not a %s object') % name)
    return primitive['nova_object.data']


def _cell(primitive):
    data = _data(primitive, 'NUMACell')
    pages = tuple(numa_fit.Pages(
        int(page['size_kb']), int(page['total']), int(page.get('used', 0)),
        int(page.get('reserved', 0)))
        for page in map(lambda p: _data(p, 'NUMAPagesTopology'),
                        data.get('mempages') or ()))
    # Built from the stored lists in their order, as Nova builds its sets:
    # the order of a set decides which CPUs a pinned server gets.
    return numa_fit.HostCell(
        id=int(data['id']), cpuset=frozenset(data.get('cpuset') or ()),
        pcpuset=frozenset(data.get('pcpuset') or ()),
        memory=int(data['memory']), cpu_usage=int(data.get('cpu_usage', 0)),
        memory_usage=int(data.get('memory_usage', 0)),
        pinned=frozenset(data.get('pinned_cpus') or ()),
        siblings=tuple(frozenset(s) for s in data.get('siblings') or ()),
        pages=pages)


def topology(text, cpu_ratio, ram_ratio):
    """A numa_fit.HostNuma of a numa_topology column; ValueError if bad."""
    if not text:
        return numa_fit.NO_TOPOLOGY
    try:
        cells = _data(json.loads(text), 'NUMATopology').get('cells')
        return numa_fit.HostNuma([_cell(c) for c in cells or ()],
                                 cpu_ratio, ram_ratio)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(_('unreadable numa_topology: %s') % exc) from None


def with_stats(figures, stats, pci_stats, cpu_ratio):
    """figures with what the scheduler reads of the node's row.

    stats: compute_nodes.stats ({name: value as text}, JSON); pci_stats:
    its PciDevicePoolList; cpu_ratio: its cpu_allocation_ratio (0 or
    None: unknown). figures unchanged when they cannot be read: the
    weighers then say what they took instead.
    """
    try:
        counts = json.loads(stats) if stats else {}
        pools = _data(json.loads(pci_stats), 'PciDevicePoolList').get(
            'objects') or () if pci_stats else ()
        return dataclasses.replace(
            figures, io_ops=int(counts.get('io_workload', 0)),
            failed_builds=int(counts.get('failed_builds', 0)),
            pci_free=sum(int(_data(pool, 'PciDevicePool')['count'])
                         for pool in pools),
            cpu_ratio=float(cpu_ratio) if cpu_ratio else None,
            from_stats=True)
    except (ValueError, TypeError, AttributeError, KeyError):
        return figures


def _ratio(value, host, resource_class):
    """A row's allocation ratio, or what the scheduler takes instead."""
    if value:
        return float(value)
    root = host.root if host is not None else None
    inventory = root.inventories.get(resource_class) if root else None
    if inventory is not None:
        return inventory.allocation_ratio
    return _INITIAL_RATIOS[resource_class]


class CellDatabases:
    """The cell databases of one cloud, and what was parsed of them."""

    def __init__(self, urls):
        self._engines = [sqlalchemy.create_engine(url, pool_pre_ping=True)
                         for url in urls]
        # Rows as read -> HostNuma: most rows do not change between two
        # refreshes, and equal rows share one HostNuma (numa_fit.Counts).
        self._parsed = {}

    @classmethod
    def from_conf(cls, conf, group):
        """The databases of [group] cell_database_connections, or None."""
        urls = conf[group].cell_database_connections
        return cls(urls) if urls else None

    def _rows(self, engine):
        with engine.connect() as connection:
            return connection.execute(_QUERY).fetchall()

    def attach(self, hosts, problems):
        """Give each of hosts (model.Host) its NUMA cells, where found.

        problems: a list the lines about what could not be read go to.
        """
        by_node = {(h.name, h.node): h for h in hosts}
        parsed = {}
        for engine in self._engines:
            where = engine.url.render_as_string(hide_password=True)
            try:
                rows = self._rows(engine)
            except sqlalchemy.exc.SQLAlchemyError as exc:
                LOG.debug('Reading %s', where, exc_info=True)
                problems.append(_(
                    'cell database %(db)s: %(error)s; the NUMA cells of its '
                    'hosts are unknown') % {
                        'db': where, 'error': str(exc).splitlines()[0]})
                continue
            for name, node, text, cpu, ram, stats, pci in rows:
                host = by_node.get((name, node))
                if host is None:
                    continue  # a node no source listed
                if host.figures is not None:
                    host.figures = with_stats(host.figures, stats, pci, cpu)
                key = (text, _ratio(cpu, host, 'VCPU'),
                       _ratio(ram, host, 'MEMORY_MB'))
                try:
                    numa = parsed[key] = (
                        self._parsed.get(key) or parsed.get(key)
                        or topology(*key))
                except ValueError as exc:
                    problems.append(_('compute node %(node)s in %(db)s: '
                                      '%(error)s; its NUMA cells are '
                                      'unknown') % {
                                          'node': node, 'db': where,
                                          'error': exc})
                    continue
                host.numa = numa
        self._parsed = parsed
