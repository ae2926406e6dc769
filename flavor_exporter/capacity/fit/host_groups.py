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

"""Hosts grouped by everything the engine looks at except their usage.

A large cloud has thousands of hosts but a few host models: hosts with the
same provider tree (inventories with their limits, traits), service state,
GPU pools and the aggregate metadata the requests read (host_reads) get
the same request units and the same answer when empty, so the engine works
on one group at a time, with the free amounts of all its hosts in one
numpy array. Zones do not split groups: each host's zone is a code, and
per-zone sums are counted from the codes.
"""

import dataclasses

import numpy

from flavor_exporter.capacity.filters import host_reads
from flavor_exporter.capacity.fit import fit


@dataclasses.dataclass
class HostGroup:
    """Hosts of one shape, in snapshot order."""

    hosts: list  # model.Host
    positions: numpy.ndarray  # index of each host in the snapshot
    representative: object  # model.Host: the first of them
    # The aggregate metadata values of the keys read (host_reads), as the
    # filter reads them: the same for every host of the group.
    metadata: dict
    # {provider uuid of the representative or pool class: {rc: column}}:
    # what fit.units takes as free amounts to refer to columns instead.
    columns: dict
    # Free amounts, never below 0 (fit._slots clips them): row 0 when the
    # cloud is empty (the same for every host of the group), then one row
    # per host with its current usage.
    free: numpy.ndarray
    zone_codes: numpy.ndarray  # per host: index into the snapshot's zones
    zone_counts: numpy.ndarray  # hosts of the group in each zone
    # What the group's hosts have in common (_shape): equal shapes and
    # equal free amounts give equal fits, whichever refresh they come from.
    shape: tuple = ()

    def fingerprint(self):
        """A key for everything vector_fit reads of the group.

        Its shape, and its free amounts (row 0 and each host's, in order).
        """
        return (self.shape, self.free.shape, self.free.tobytes())

    def __len__(self):
        return len(self.hosts)


def _shape(host, metadata):
    """Everything engine and fit read of a host but usages and names."""
    index = {p.uuid: i for i, p in enumerate(host.providers)}
    providers = tuple(
        (index.get(p.parent_uuid), p.traits,
         tuple(sorted(p.inventories.items())))
        for p in host.providers)
    pools = tuple((pool.gpu_type, pool.count) for pool in host.gpu_pools)
    values = tuple(sorted((key, tuple(sorted(found)))
                          for key, found in metadata.items()))
    return (host.enabled, host.up, host.unreadable is not None, providers,
            pools, values, host.max_instances,
            host.numa.emptied() if host.numa is not None else None)


def _layout(host):
    """[(provider index or pool class, rc)], one per column.

    Providers are matched by position: hosts of one shape have the same
    tree in the same order, but not the same uuids.
    """
    layout = [(i, rc) for i, p in enumerate(host.providers)
              for rc in sorted(p.inventories)]
    pools = fit.free_amounts(host, empty=True).keys() - {
        p.uuid for p in host.providers}
    return layout + [(pool_rc, pool_rc) for pool_rc in sorted(pools)]


def _free_row(host, layout, empty):
    pools = {}
    for pool in host.gpu_pools:
        # The first pool of a type is the one matched, as in fit.
        pools.setdefault(fit.pool_class(pool.gpu_type),
                         pool.count - (0 if empty else pool.used))
    if host.max_instances is not None:
        pools[fit.INSTANCES] = host.max_instances - (
            0 if empty else host.num_instances)
    row = []
    for where, rc in layout:
        if where in pools:
            row.append(pools[where])
            continue
        provider = host.providers[where]
        row.append(provider.inventories[rc].capacity
                   - (0 if empty else provider.usages.get(rc, 0)))
    return row


def group_hosts(hosts, zones, metadata_keys=frozenset()):
    """[HostGroup] of hosts, in order of their first host.

    zones lists every availability zone of hosts, None included if a host
    has none; a host's zone code is its zone's index there. metadata_keys:
    the aggregate metadata keys some request reads (host_reads); other
    keys do not split groups.
    """
    zone_index = {zone: i for i, zone in enumerate(zones)}
    shapes = {}
    for position, host in enumerate(hosts):
        metadata = host_reads.host_metadata(host, metadata_keys)
        key = _shape(host, metadata)
        members = shapes.get(key)
        if members is None:
            members = shapes[key] = (metadata, [])
        members[1].append(position)
    groups = []
    for shape, (metadata, positions) in shapes.items():
        members = [hosts[p] for p in positions]
        representative = members[0]
        layout = _layout(representative)
        columns = {}
        for column, (where, rc) in enumerate(layout):
            key = (representative.providers[where].uuid
                   if isinstance(where, int) else where)
            columns.setdefault(key, {})[rc] = column
        for p in representative.providers:
            columns.setdefault(p.uuid, {})
        rows = [_free_row(representative, layout, True)]
        rows += [_free_row(h, layout, False) for h in members]
        free = numpy.array(rows, dtype=numpy.int64).reshape(
            len(rows), len(layout))
        numpy.maximum(free, 0, out=free)
        # Column by column access: each column contiguous.
        free = numpy.asfortranarray(free)
        codes = numpy.array([zone_index[h.availability_zone]
                             for h in members], dtype=numpy.int64)
        groups.append(HostGroup(
            hosts=members,
            positions=numpy.array(positions, dtype=numpy.int64),
            representative=representative, metadata=metadata,
            columns=columns, free=free, zone_codes=codes,
            zone_counts=numpy.bincount(codes, minlength=len(zones)),
            shape=shape))
    return groups
