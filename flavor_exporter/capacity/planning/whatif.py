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
"""What if the cloud changed? Today's snapshot, changed, counted again.

A what-if (common/whatif_request.WhatIf) is applied to a copy of the
snapshot the last refresh read, and the copy goes through the same
engine (engine.compute) and, for servers evacuated from drained hosts,
the same scheduler simulation as set checks (set_check/moves.place_each):
there is no second model of Nova. What each change does to the copy is
what the change does to Nova's view:

- drain: the hosts' compute services disabled (the scheduler skips
  them; Placement keeps their inventory and usage). With "evacuate", the
  servers listed on them are moved one by one in the order given
  (worker/whatif.py lists them as Nova does), each a request of its
  own, and then counted on the hosts they land on, no longer on theirs;
- add: copies of an existing host, empty (no usage, no instances, NUMA
  cells free), under new names and provider uuids, in the aggregates and
  zone asked for (else those of the host copied);
- remove: the hosts leave the cloud with their servers;
- change: the providers' inventories of the selected hosts get the new
  allocation ratio or reserved amount of each class (where they have the
  class), as a new ``[DEFAULT] *_allocation_ratio``/``reserved_host_*``
  or a Placement inventory update would make them;
- flavors: a flavor's fields and extra specs changed, or a new one.
"""

import collections
import dataclasses

import numpy

from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity.fit import vector_fit
from flavor_exporter.capacity import model
from flavor_exporter.capacity.planning.set_check import columns as set_columns
from flavor_exporter.capacity.planning.set_check import moves
from flavor_exporter.common import whatif_request as wr

#: The id prefix of a flavor the what-if adds.
NEW_FLAVOR = 'whatif:'
#: Memory and disk the compute node's record counts (SchedulerFigures).
_RAM, _DISK, _VCPU = 'MEMORY_MB', 'DISK_GB', 'VCPU'


class Borrowed(vector_fit.Fits):
    """Group fits that reuse a refresh's (base) and never change them.

    Most hosts of the changed copy are those of the cloud, with the same
    free amounts: their fits are the last refresh's. A group whose
    fingerprint the refresh knows takes its fits whole; a group whose
    hosts all come from one group of the refresh, of the same shape and
    with the same free amounts (a group some drained or removed hosts
    left), takes their rows of it: a host's fit depends on its own free
    amounts only. base is the refresher's vector_fit.Fits, which its own
    thread replaces at each refresh: it is only read. Fits of one
    what-if's copies are kept for its next (an evacuation counts twice).
    """

    def __init__(self, base=None):
        super().__init__()
        self._base = base
        self._index = None  # host name -> (base group, row), made once
        self._rows = {}  # id(group) -> (fits of the base group, rows)
        self.borrowed = 0

    def start(self, groups):
        merged = dict(self._base._by_group) if self._base else {}
        self._base_fits = dict(merged)
        merged.update(self._by_group)
        self._by_group = merged
        if self._index is None:
            self._index = {host.name: (group, row)
                           for group in (self._base.groups if self._base
                                         else ())
                           for row, host in enumerate(group.hosts)}
        self._rows = {}
        super().start(groups)

    def fit(self, request_key, request, group):
        last, now = self._of[id(group)]
        if request_key not in now and request_key not in last:
            found = self._subset(request_key, group)
            if found is not None:
                self.borrowed += 1
                now[request_key] = found
                return found
        return super().fit(request_key, request, group)

    def _subset(self, request_key, group):
        rows = self._rows.get(id(group))
        if rows is None:
            rows = self._rows[id(group)] = self._rows_of(group) or ()
        if not rows:
            return None
        fits, picked = rows
        whole = fits.get(request_key)
        if whole is None:
            return None
        return vector_fit.GroupFit(
            whole.total, whole.available[picked], whole.limits[picked],
            whole.labels, whole.certain)

    def _rows_of(self, group):
        """(the base group's fits, group's rows in it), or None."""
        base = picked = None
        for host in group.hosts:
            found = self._index.get(host.name)
            if found is None or (base is not None and found[0] is not base):
                return None
            base = found[0]
            picked = [found[1]] if picked is None else picked + [found[1]]
        if base is None or base.shape != group.shape:
            return None
        picked = numpy.array(picked, dtype=numpy.int64)
        if not (numpy.array_equal(base.free[0], group.free[0]) and
                numpy.array_equal(base.free[picked + 1], group.free[1:])):
            return None
        fits = self._base_fits.get(base.fingerprint())
        return (fits, picked) if fits else None


class InvalidChange(ValueError):
    """A change that names what the cloud lacks; says what."""


@dataclasses.dataclass
class Applied:
    """The snapshot changed, and what changed in it (host names)."""

    snapshot: model.Snapshot
    drained: list
    evacuated: list  # drained hosts whose servers move, in order
    added: list
    removed: list
    changed: list
    flavors: dict  # flavor id -> 'added' or 'changed'


def select(snapshot, selector, hosts=None):
    """The hosts of a Selector (a list, snapshot order); InvalidChange."""
    hosts = snapshot.hosts if hosts is None else hosts
    if selector.hosts:
        by_name = {}
        for host in hosts:
            by_name.setdefault(host.name, host)
            by_name.setdefault(host.node, host)
        missing = [name for name in selector.hosts if name not in by_name]
        if missing:
            raise InvalidChange('no compute host %s in the cloud'
                                % ', '.join(missing[:10]))
        return list({id(by_name[n]): by_name[n]
                     for n in selector.hosts}.values())
    if selector.aggregate is not None:
        found = [host for host in hosts if any(
            selector.aggregate in (agg.name, agg.uuid)
            for agg in host.aggregates)]
        if not found and not any(selector.aggregate in (agg.name, agg.uuid)
                                 for agg in snapshot.aggregates):
            raise InvalidChange('no host aggregate %s in the cloud'
                                % selector.aggregate)
        return found
    found = [host for host in hosts
             if host.availability_zone == selector.availability_zone]
    if not found:
        raise InvalidChange('no compute host in availability zone %s'
                            % selector.availability_zone)
    return found


def _changed_flavor(flavor, change):
    specs = dict(flavor.extra_specs)
    for key, value in change.extra_specs:
        if value is None:
            specs.pop(key, None)
        else:
            specs[key] = value
    fields = dict(change.fields)
    if change.name is not None:
        fields['name'] = change.name
    return dataclasses.replace(flavor, extra_specs=specs, **fields)


def _flavors(snapshot, changes):
    flavors = list(snapshot.flavors)
    marks = {}
    for change in changes:
        if change.flavor is None:
            if any(f.name == change.name for f in flavors):
                raise InvalidChange(
                    'a flavor named %s exists: name it in "flavor" to '
                    'change it' % change.name)
            new = _changed_flavor(model.Flavor(
                id=NEW_FLAVOR + change.name, name=change.name, vcpus=1,
                ram=1, disk=0), change)
            flavors.append(new)
            marks[new.id] = 'added'
            continue
        index = next((i for i, f in enumerate(flavors)
                      if f.id == change.flavor), None)
        if index is None:
            index = next((i for i, f in enumerate(flavors)
                          if f.name == change.flavor), None)
        if index is None:
            raise InvalidChange('no flavor with the id or name %s'
                                % change.flavor)
        flavors[index] = _changed_flavor(flavors[index], change)
        marks.setdefault(flavors[index].id, 'changed')
    return flavors, marks


def _zone_aggregates(snapshot, zone):
    found = [agg for agg in snapshot.aggregates
             if (agg.metadata or {}).get('availability_zone') == zone]
    return found or [model.Aggregate(zone, {'availability_zone': zone})]


def _aggregates(snapshot, like, add):
    if add.aggregates is None:
        chosen = list(like.aggregates)
    else:
        by_name = {agg.name: agg for agg in snapshot.aggregates}
        by_name.update((agg.name, agg) for host in snapshot.hosts
                       for agg in host.aggregates)
        missing = [name for name in add.aggregates if name not in by_name]
        if missing:
            raise InvalidChange('no host aggregate %s in the cloud'
                                % ', '.join(missing))
        chosen = [by_name[name] for name in add.aggregates]
    if add.availability_zone is None:
        return chosen, like.availability_zone if add.aggregates is None \
            else _zone_of(chosen, like.availability_zone)
    chosen = [agg for agg in chosen
              if 'availability_zone' not in (agg.metadata or {})]
    return (chosen + _zone_aggregates(snapshot, add.availability_zone),
            add.availability_zone)


def _zone_of(aggregates, default):
    for agg in aggregates:
        zone = (agg.metadata or {}).get('availability_zone')
        if zone:
            return zone
    return default


def _empty_figures(figures, root):
    if figures is None:
        return None
    inventories = root.inventories if root else {}

    def free(rc):
        inv = inventories.get(rc)
        return inv.total - inv.reserved if inv else 0
    least = figures.disk_available_least
    return dataclasses.replace(
        figures, free_ram_mb=free(_RAM), free_disk_gb=free(_DISK),
        disk_available_least=None if least is None else free(_DISK),
        vcpus_used=0, io_ops=0, failed_builds=0 if figures.failed_builds
        is not None else None)


def _copy(like, name, number, aggregates, zone):
    """An empty copy of host like, named name, with providers of its own."""
    uuids = {p.uuid: '%s-whatif-%d' % (p.uuid, number)
             for p in like.providers}
    providers = [dataclasses.replace(
        p, uuid=uuids[p.uuid],
        name=p.name.replace(like.node, name, 1) if p.name else p.name,
        parent_uuid=uuids.get(p.parent_uuid, p.parent_uuid), usages={},
        traits=p.traits - {'COMPUTE_STATUS_DISABLED'})
        for p in like.providers]
    numa = like.numa
    if numa is not None and numa is not numa_fit.NO_TOPOLOGY:
        numa = numa.emptied()
    figures = like.figures
    if figures is not None:
        figures = dataclasses.replace(
            _empty_figures(figures, providers[0] if providers else None),
            pci_free=None if figures.pci_free is None else sum(
                inv.capacity for p in providers
                if fit.MANAGED_PCI_TRAIT in p.traits
                for inv in p.inventories.values()))
    return dataclasses.replace(
        like, name=name, node=name, enabled=True, up=True,
        availability_zone=zone, aggregates=list(aggregates),
        providers=providers, num_instances=0, numa=numa, figures=figures,
        gpu_pools=[dataclasses.replace(pool, used=0)
                   for pool in like.gpu_pools], unreadable=None)


def _add(snapshot, hosts, add, taken):
    like = select(snapshot, wr.Selector(hosts=(add.like,)))[0]
    if like.unreadable or not like.providers:
        raise InvalidChange('host %s cannot be copied: its resources are '
                            'not known' % add.like)
    aggregates, zone = _aggregates(snapshot, like, add)
    names = add.names or tuple('%s-new-%d' % (like.name, i + 1)
                               for i in range(add.count))
    added = []
    for name in names:
        if name in taken:
            raise InvalidChange('host %s exists: name the new hosts apart'
                                % name)
        taken.add(name)
        added.append(_copy(like, name, len(taken), aggregates, zone))
    hosts.extend(added)
    return [host.name for host in added]


def _inventory(inventory, rc, change):
    ratio = dict(change.allocation_ratio).get(rc)
    reserved = dict(change.reserved).get(rc)
    return dataclasses.replace(
        inventory,
        allocation_ratio=inventory.allocation_ratio if ratio is None
        else ratio,
        reserved=inventory.reserved if reserved is None else reserved)


def _changed_host(host, change):
    providers = [dataclasses.replace(p, inventories={
        rc: _inventory(inv, rc, change) for rc, inv in p.inventories.items()})
        for p in host.providers]
    ratios = dict(change.allocation_ratio)
    numa = host.numa
    if numa is not None and numa is not numa_fit.NO_TOPOLOGY and (
            _VCPU in ratios or _RAM in ratios):
        numa = numa_fit.HostNuma(numa.cells,
                                 ratios.get(_VCPU, numa.cpu_ratio),
                                 ratios.get(_RAM, numa.ram_ratio))
    figures = host.figures
    if figures is not None:
        old = host.root.inventories if host.root else {}
        new = providers[0].inventories if providers else {}

        def less(rc):
            # What the node's record frees when its reservation shrinks.
            return (old[rc].reserved - new[rc].reserved) if rc in old else 0
        figures = dataclasses.replace(
            figures, free_ram_mb=figures.free_ram_mb + less(_RAM),
            free_disk_gb=figures.free_disk_gb + less(_DISK),
            cpu_ratio=ratios.get(_VCPU, figures.cpu_ratio)
            if figures.cpu_ratio is not None else None)
    return dataclasses.replace(host, providers=providers, numa=numa,
                               figures=figures)


def apply(snapshot, whatif):
    """Applied: a copy of snapshot with whatif's changes; InvalidChange.

    The snapshot itself is not changed (its hosts, providers and
    flavors are replaced in the copy, never altered).
    """
    flavors, marks = _flavors(snapshot, whatif.flavors)
    hosts = list(snapshot.hosts)
    taken = {host.name for host in hosts}
    added = []
    for add in whatif.add:
        added += _add(snapshot, hosts, add, taken)
    changed = {}
    for change in whatif.change:
        for host in select(snapshot, change.hosts, hosts):
            changed.setdefault(host.name, []).append(change)
    for i, host in enumerate(hosts):
        for change in changed.get(host.name, ()):
            host = hosts[i] = _changed_host(host, change)
    removed = {host.name for selector in whatif.remove
               for host in select(snapshot, selector)}
    drained, evacuated = {}, {}
    for drain in whatif.drain:
        for host in select(snapshot, drain.hosts):
            if host.name in removed:
                continue
            drained[host.name] = None
            if drain.servers == wr.EVACUATE:
                evacuated[host.name] = None
    hosts = [dataclasses.replace(host, enabled=False)
             if host.name in drained else host
             for host in hosts if host.name not in removed]
    return Applied(
        dataclasses.replace(snapshot, hosts=hosts, flavors=flavors),
        list(drained), list(evacuated), added, sorted(removed),
        sorted(changed), marks)


@dataclasses.dataclass(frozen=True)
class Server:
    """A server of an evacuated host, as Nova lists it."""

    id: str
    name: str
    host: str
    flavor: str  # the id of a flavor of the snapshot with its resources
    project_id: str | None
    flavor_name: str | None = None  # as the server's record names it


def evacuate(report, options, settings, servers, numa_counts=None):
    """Place servers (each a Server) on report (the drained cloud's).

    (placed, hosts): placed as moves.place_each's, one per server;
    hosts: {host name: model.Host} as the moves leave the hosts they
    went to (usages, NUMA cells, instances, the node's figures), to put
    in the snapshot before it is counted again.
    """
    columns = set_columns.Columns(report, settings)
    placed, state = moves.place_each(
        report, options, settings, columns,
        [(server.flavor, server.project_id) for server in servers],
        numa_counts)
    hosts = {}
    c = state.columns
    arrived = collections.Counter(where.host for where, _ in placed
                                  if where is not None)
    for position in sorted(state.touched):
        host = report.hosts[position]
        frees = state.frees[position]
        providers = [dataclasses.replace(p, usages={
            rc: inv.capacity - frees[p.uuid][rc]
            for rc, inv in p.inventories.items()}) for p in host.providers]
        pools = []
        for pool in host.gpu_pools:
            rc = fit.pool_class(pool.gpu_type)
            pools.append(dataclasses.replace(
                pool, used=pool.count - frees.get(rc, {}).get(
                    rc, pool.count - pool.used)))
        figures = host.figures
        if figures is not None:
            figures = dataclasses.replace(
                figures, free_ram_mb=int(c.free_ram[position]),
                free_disk_gb=int(c.free_disk_gb[position]),
                vcpus_used=int(c.vcpus_used[position]),
                pci_free=None if figures.pci_free is None
                else int(c.pci_free[position]))
        hosts[host.name] = dataclasses.replace(
            host, providers=providers, gpu_pools=pools,
            num_instances=host.num_instances + arrived[host.name],
            numa=state.numa.get(position, host.numa), figures=figures,
            max_instances=None)
    return placed, hosts


def emptied(host):
    """host with no server on it (its servers all moved away)."""
    numa = host.numa
    if numa is not None and numa is not numa_fit.NO_TOPOLOGY:
        numa = numa.emptied()
    return dataclasses.replace(
        host, providers=[dataclasses.replace(p, usages={})
                         for p in host.providers],
        gpu_pools=[dataclasses.replace(pool, used=0)
                   for pool in host.gpu_pools],
        num_instances=0, numa=numa)


def moved(snapshot, hosts, emptied_names):
    """snapshot with hosts (name -> Host) in place of its own.

    The hosts named in emptied_names lose their servers.
    """
    return dataclasses.replace(snapshot, hosts=[
        _uncapped(hosts[host.name], host) if host.name in hosts
        else emptied(host) if host.name in emptied_names else host
        for host in snapshot.hosts])


def _uncapped(changed, original):
    # The engine sets max_instances again from the instance filters.
    return dataclasses.replace(changed, max_instances=original.max_instances)
