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
"""Fragmentation: what free resources would start if they were pooled.

A flavor's *pooled* count in one availability zone is what its free
resources would start if they were one host: over the hosts it counts
in ``available`` there (hosts the scheduler considers for it, aggregate
metadata, traits and tenancy included: a flavor an aggregate restricts
pools within that aggregate), the sum of each demand's free amount,
divided by what one instance takes of it, the smallest of these::

    pooled(F, zone) = min over demands d of
                      floor(sum over hosts h of free(h, d) / need(F, d))

A demand is a resource class of the request (VCPU, MEMORY_MB, a VGPU of
a numbered group, ...), a PCI alias' devices, or one instance slot on
hosts with an instance cap. free(h, d) is the free amount (capacity
with its allocation ratio, minus usage, never below 0) of the class on
the providers of h that could serve it: those the request's group does
not forbid by trait, and for a numbered group or PCI alias those with
its required traits (Nova's own PCI device providers only, else the
host's GPU aggregate pool). Per-host limits (max_unit, NUMA cells, one
provider per numbered group) are what pooling removes, so they are not
applied.

``fragmented`` = the sum over zones of max(0, pooled - available): the
instances the free resources would hold but no host can take now. A
live migration moves resources within a zone, so no more than that can
be won back by moving servers (defrag.py finds the moves).

The hosts whose leftovers make it up are those closest to fitting one
more: after the instances they take now, the smallest fraction of a
demand left (leftover / need) is largest. The top FRAGMENT_HOSTS are
named, for flavors with something fragmented.

Cost: the free amounts of each host group's columns per zone are
summed once per refresh (shared by every request), so a request costs
a few vector additions per host group it counts on.
"""

import collections
import dataclasses

import numpy

from flavor_exporter.capacity.filters import tenancy
from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity.fit import host_numbers

#: Hosts named per flavor as making up its fragmented count.
FRAGMENT_HOSTS = 10


@dataclasses.dataclass
class Fragment:
    """A host whose leftovers are part of a flavor's fragmented count."""

    position: int
    host: str
    availability_zone: str | None
    # demand -> what is left after the instances the host takes now
    leftover: dict
    # The smallest leftover / need: how close the host is to one more.
    closeness: float


@dataclasses.dataclass
class Figures:
    pooled: int = 0
    fragmented: int = 0
    # zone -> fragmented there, zones with something fragmented only
    zones: dict = dataclasses.field(default_factory=dict)
    fragments: list = dataclasses.field(default_factory=list)

    def unrestricted(self, zone):
        """zone's figure is the cloud's (engine.unrestricted_zones)."""
        if self.fragmented:
            self.zones[zone] = self.fragmented
        else:
            self.zones.pop(zone, None)


def demands(request):
    """{demand: (need per instance, [(kind, rc, required, forbidden)])}.

    kind: 'any' (an unnumbered group's class), 'numbered', 'pci' (Nova's
    device providers, else the alias' GPU aggregate pool).
    """
    found = collections.OrderedDict()

    def add(key, amount, spec):
        need, specs = found.get(key, (0, []))
        found[key] = (need + amount, specs + [spec])
    for group in request.groups:
        for rc, amount in sorted(group.resources.items()):
            if amount > 0:
                add(rc, amount, ('numbered' if group.suffix else 'any', rc,
                                 group.required_traits if group.suffix
                                 else frozenset(), group.forbidden_traits))
    for demand in request.pci:
        key = demand.resource_class or fit.pool_class(demand.alias)
        add(key, demand.count, ('pci', demand.resource_class,
                                demand.traits, demand.alias))
    return found


def _sources(specs, providers, pool_keys):
    """[(provider uuid or pool key, rc)] a demand may take from."""
    found = []
    for kind, rc, required, other in specs:
        if kind == 'pci':
            own = [p for p in providers if fit.MANAGED_PCI_TRAIT in p.traits
                   and rc in p.inventories and required <= p.traits]
            if rc and own:
                found += [(p.uuid, rc) for p in own]
                continue
            pool = fit.pool_class(other)
            if pool in pool_keys:
                found.append((pool, pool))
            continue
        found += [(p.uuid, rc) for p in providers
                  if rc in p.inventories and not (other & p.traits)
                  and required <= p.traits]
    return sorted(set(found))


def host_sources(request, host, pool_keys):
    """{demand: (need, sources)} for a host, instance cap included."""
    found = {key: (need, _sources(specs, host.providers, pool_keys))
             for key, (need, specs) in demands(request).items()}
    if fit.INSTANCES in pool_keys:
        found[fit.INSTANCES] = (1, [(fit.INSTANCES, fit.INSTANCES)])
    return found


class _Pools:
    """Per host group, the free amounts of column sets, per zone and host.

    Kept for one refresh: what a set of columns sums to is the same for
    every request that reads it.
    """

    def __init__(self, zone_count):
        self.zone_count = zone_count
        self._zones = {}
        self._hosts = {}
        self._columns = {}

    def columns(self, group, request_key, request):
        key = (id(group), request_key)
        found = self._columns.get(key)
        if found is None:
            pool_keys = {k for k in group.columns
                         if k.startswith(fit.GPU_POOL) or k == fit.INSTANCES}
            found = {}
            for demand, (need, sources) in host_sources(
                    request, group.representative, pool_keys).items():
                found[demand] = (need, tuple(sorted(
                    group.columns[where][rc] for where, rc in sources
                    if rc in group.columns.get(where, {}))))
            self._columns[key] = found
        return found

    def per_host(self, group, columns):
        key = (id(group), columns)
        found = self._hosts.get(key)
        if found is None:
            found = (group.free[1:, list(columns)].sum(axis=1)
                     if columns else numpy.zeros(len(group),
                                                 dtype=numpy.int64))
            self._hosts[key] = found
        return found

    def per_zone(self, group, columns):
        key = (id(group), columns)
        found = self._zones.get(key)
        if found is None:
            found = numpy.bincount(
                group.zone_codes, weights=self.per_host(group, columns),
                minlength=self.zone_count).round().astype(numpy.int64)
            self._zones[key] = found
        return found


def _pooled(free, needs):
    """Instances per zone the pooled free amounts hold (vector)."""
    counts = None
    for demand, need in needs.items():
        held = free[demand] // need
        counts = held if counts is None else numpy.minimum(counts, held)
    return counts


def compute(report, zone_names, options, request_key):
    """Set each valid flavor's fragmentation figures (Figures) on report.

    zone_names: the engine's zones
    (None last when a host has none); request_key(request): the
    engine's key of equal numbers. Flavors counted host by host
    (host_numbers.HostRows) are left to reference().
    """
    pools = _Pools(len(zone_names))
    done = {}
    for result in report.flavors:
        per_host = result.per_host
        if result.request is None or not isinstance(
                per_host, host_numbers.HostNumbers):
            continue
        figures = done.get(id(per_host))
        if figures is None:
            figures = done[id(per_host)] = _request_figures(
                result.request, request_key(result.request), per_host,
                pools, zone_names, options)
        result.fragmentation = figures


def _request_figures(request, key, per_host, pools, zone_names, options):
    free = collections.defaultdict(
        lambda: numpy.zeros(len(zone_names), dtype=numpy.int64))
    available = numpy.zeros(len(zone_names), dtype=numpy.int64)
    needs = {}
    counted = []
    for group, _, found, _, _ in per_host.entries:
        if not tenancy.is_open(group.metadata, options.tenancy):
            continue
        columns = pools.columns(group, key, request)
        counted.append((group, found, columns))
        available += numpy.bincount(group.zone_codes, weights=found,
                                    minlength=len(zone_names)).astype(
                                        numpy.int64)
        for demand, (need, cols) in columns.items():
            needs[demand] = need
            free[demand] += pools.per_zone(group, cols)
    figures = Figures()
    if not needs:
        return figures
    pooled = _pooled(free, needs)
    lost = numpy.maximum(pooled - available, 0)
    figures.pooled = int(pooled.sum())
    figures.fragmented = int(lost.sum())
    figures.zones = {zone: int(lost[i]) for i, zone in enumerate(zone_names)
                     if lost[i]}
    if figures.fragmented:
        figures.fragments = _fragments(counted, pools, lost > 0)
    return figures


def _fragments(counted, pools, zones_lost):
    """The FRAGMENT_HOSTS hosts closest to one more instance.

    Vectors over each group's hosts; only the chosen hosts are made
    into Fragments (10,000 hosts x 1,000 flavors are too many tuples).
    """
    scores, positions, where = [], [], []
    for index, (group, found, columns) in enumerate(counted):
        in_zone = zones_lost[group.zone_codes]
        if not in_zone.any():
            continue
        closeness = None
        for demand, (need, cols) in columns.items():
            share = (pools.per_host(group, cols) - found * need) / need
            closeness = share if closeness is None else numpy.minimum(
                closeness, share)
        closeness = numpy.where(in_zone, closeness, 0)
        scores.append(closeness)
        positions.append(group.positions)
        where.append(numpy.stack([numpy.full(len(group), index),
                                  numpy.arange(len(group))]))
    if not scores:
        return []
    scores = numpy.concatenate(scores)
    positions = numpy.concatenate(positions)
    where = numpy.concatenate(where, axis=1)
    keep = numpy.flatnonzero(scores > 0)
    if len(keep) > FRAGMENT_HOSTS:
        # The largest closeness, ties by position: as sorting them all.
        cut = numpy.partition(scores[keep], -FRAGMENT_HOSTS)[
            -FRAGMENT_HOSTS]
        keep = keep[scores[keep] >= cut]
    chosen = sorted(keep.tolist(),
                    key=lambda i: (-scores[i], positions[i]))[:FRAGMENT_HOSTS]
    found = []
    for i in chosen:
        group, available, columns = counted[int(where[0, i])]
        at = int(where[1, i])
        host = group.hosts[at]
        leftover = {demand: int(pools.per_host(group, cols)[at]
                                - available[at] * need)
                    for demand, (need, cols) in sorted(columns.items())}
        found.append(Fragment(int(positions[i]), host.name,
                              host.availability_zone, leftover,
                              round(float(scores[i]), 3)))
    return found


def reference(result, hosts, options, host_metadata):
    """The Figures of a flavor counted host by host (the definition).

    hosts: the snapshot's; host_metadata: {host name: aggregate metadata}.
    """
    if result.request is None:
        return None
    figures = Figures()
    by_name = {h.name: (i, h) for i, h in enumerate(hosts)}
    free = collections.defaultdict(lambda: collections.Counter())
    available = collections.Counter()
    needs = {}
    rows = []
    for row in result.hosts:
        position, host = by_name[row.host]
        if not tenancy.is_open(host_metadata[host.name], options.tenancy):
            continue
        frees = fit.free_amounts(host)
        sources = host_sources(result.request, host, set(frees))
        left = {}
        for demand, (need, where) in sources.items():
            needs[demand] = need
            amount = sum(max(0, frees.get(w, {}).get(rc, 0))
                         for w, rc in where)
            free[demand][host.availability_zone] += amount
            left[demand] = amount - row.available * need
        available[host.availability_zone] += row.available
        rows.append((position, host, left))
    if not needs:
        return figures
    zones = sorted({h.availability_zone for _, h, _ in rows},
                   key=lambda z: (z is None, z or ''))
    for zone in zones:
        pooled = min(free[d][zone] // need for d, need in needs.items())
        figures.pooled += pooled
        lost = max(0, pooled - available[zone])
        if lost:
            figures.zones[zone] = lost
            figures.fragmented += lost
    best = []
    for position, host, left in rows:
        if host.availability_zone not in figures.zones:
            continue
        closeness = min(left[d] / need for d, need in needs.items())
        if closeness > 0:
            best.append((-closeness, position, host, left))
    best.sort(key=lambda item: item[:2])
    figures.fragments = [
        Fragment(position, host.name, host.availability_zone,
                 dict(sorted(left.items())), round(-minus, 3))
        for minus, position, host, left in best[:FRAGMENT_HOSTS]]
    return figures


def gpu_figures(report):
    """Each GPU type's fragmented devices, from its flavors' figures.

    A type's figure is, over the flavors asking for its devices, the
    most devices one of them would put to use if the free resources
    were pooled (fragmented instances x devices per instance).
    """
    for gpu_type in report.gpus:
        by_flavor = {}
        devices = 0
        zones = {}
        for result in report.flavors:
            figures = getattr(result, 'fragmentation', None)
            if result.gpu is None or result.gpu[0] != gpu_type.name or \
                    figures is None:
                continue
            per_instance = result.gpu[1]
            by_flavor[result.flavor.name] = figures.fragmented
            devices = max(devices, figures.fragmented * per_instance)
            for zone, lost in figures.zones.items():
                zones[zone] = max(zones.get(zone, 0), lost * per_instance)
        gpu_type.fragmented = devices
        gpu_type.fragmented_zones = zones
        gpu_type.fragmented_by_flavor = dict(sorted(by_flavor.items()))
