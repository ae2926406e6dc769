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

"""GPU devices by type: how many exist, are used, are free, are stranded.

A flavor's ``available`` hides free GPUs on hosts whose CPU or RAM is
full; these figures show them. Which devices a host has, and of which
type, gpu_devices says.

A device is *stranded* when it is free but no flavor that could take it
can start on its host now: the devices Nova cannot hand out, though
they are free. A flavor could take it when Placement (or the GPU
aggregate) would offer that provider's devices to its request on that
host (fit.units). What blocks them is, among those flavors' requests, the
reason most of them give on that host: the resource class that limits
them (fit's label), why the scheduler would not consider the host
(engine._exclusion), "does not fit" when the request does not fit there
even empty, or NO_FLAVOR when no flavor could take them.

figures() works on the engine's host groups and per-host numbers, so a
request's numbers are computed once; reference_figures() goes host by
host and is the definition figures() is tested against.
"""

import collections
import dataclasses

import numpy

from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity.gpus import gpu_devices
from flavor_exporter.capacity.request import request as request_mod

#: Why free devices are stranded when no flavor could take them.
NO_FLAVOR = 'no flavor requests them'
#: Why a request does not fit a host even when the cloud is empty.
DOES_NOT_FIT = 'does not fit'
#: The reason of a request that fits nowhere for no single class (fit
#: placed instances one by one and named none).
UNNAMED = 'no single resource class'


@dataclasses.dataclass
class HostDevices:
    """The devices of one type on one host."""

    position: int  # the host's index in the snapshot
    host: str
    node: str
    availability_zone: str | None
    total: int
    used: int
    free: int
    stranded: int
    blocked_by: str | None  # when stranded: why


@dataclasses.dataclass
class Devices:
    """Devices of one type counted together: in the cloud, or a zone."""

    total: int = 0
    used: int = 0
    free: int = 0  # total - used per provider, never below 0
    stranded: int = 0
    stranded_by: collections.Counter = dataclasses.field(
        default_factory=collections.Counter)  # reason -> devices

    def add(self, row):
        self.total += row.total
        self.used += row.used
        self.free += row.free
        self.stranded += row.stranded
        if row.stranded:
            self.stranded_by[row.blocked_by] += row.stranded


@dataclasses.dataclass
class GpuType:
    """One type's devices over the snapshot."""

    kind: gpu_devices.Kind
    counted_from: set = dataclasses.field(default_factory=set)
    devices: Devices = dataclasses.field(default_factory=Devices)
    # zone -> Devices, named zones only (as a flavor's zones)
    zones: dict = dataclasses.field(default_factory=dict)
    hosts: list = dataclasses.field(default_factory=list)  # HostDevices
    # Devices pooling the free resources would put to use
    # (fragmentation.gpu_figures), and each flavor's fragmented count.
    fragmented: int = 0
    fragmented_zones: dict = dataclasses.field(default_factory=dict)
    fragmented_by_flavor: dict = dataclasses.field(default_factory=dict)

    @property
    def name(self):
        return self.kind.name

    def add(self, row):
        """Count one host's HostDevices."""
        self.hosts.append(row)
        self.devices.add(row)
        if row.availability_zone:
            self.zones.setdefault(row.availability_zone, Devices()).add(row)


def _classes(request):
    """Every class (and pool class) request could take devices of."""
    found = {rc for group in request.groups
             for rc, amount in group.resources.items() if amount}
    for demand in request.pci:
        if demand.resource_class:
            found.add(demand.resource_class)
        found.add(fit.pool_class(demand.alias))
    return found


def flavor_gpu(request, kinds):
    """(type name, devices per instance) of request, or None.

    The type is named as the report's GPU types (gpu_devices.Kind) are:
    a PCI alias is the type it names; a class asked for is the one type
    of that class its group can use (_one_kind), or the class itself
    where the cloud has no such devices (VGPU, PGPU). A flavor that asks
    for devices of several types (two PCI aliases, say) names them all,
    joined by ','; one that could take any of several types names one
    (the seed's gpu_type, the report's column: never a list of
    candidates).
    """
    names = []
    count = 0
    for demand in request.pci:
        names.append(demand.alias)
        count += demand.count
    for group in request.groups:
        for rc, amount in group.resources.items():
            if amount <= 0:
                continue
            name = _one_kind(group, rc, kinds)
            if name is None and rc in gpu_devices.DEVICE_CLASSES:
                name = rc
            if name is not None:
                names.append(name)
                count += amount
    if not names:
        return None
    return ','.join(sorted(set(names))), count


def _one_kind(group, rc, kinds):
    """The name of the type of class rc group asks for, or None.

    A kind is a candidate unless the group forbids one of its traits or,
    in a numbered group (whose traits are its own provider's), requires
    a custom trait it lacks. One candidate is that type; of several, the
    one whose custom traits are exactly those the group requires (an
    untraited VGPU flavor uses the untraited VGPUs, named "VGPU", as a
    traited one names "VGPU:CUSTOM_NVIDIA_11"); else the class and the
    traits asked for, which describes every candidate and is the name a
    type with exactly those traits would have.
    """
    custom = frozenset(t for t in group.required_traits
                       if t.startswith(gpu_devices.CUSTOM))
    candidates = [k for k in kinds if k.resource_class == rc
                  and not group.forbidden_traits & set(k.traits)
                  and not (group.suffix and custom - set(k.traits))]
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0].name
    for kind in candidates:
        if {t for t in kind.traits
                if t.startswith(gpu_devices.CUSTOM)} == custom:
            return kind.name
    return rc + (':' + ','.join(sorted(custom)) if custom else '')


def _asked(request, host, frees, keys):
    """The (key, rc) of keys that request's units could take on host."""
    if not _classes(request) & {rc for _, rc in keys}:
        return set()
    # The devices' part of a request takes nothing from the root: what
    # Placement offers it, not what Nova keeps of it (fit._root_rule).
    units = fit.offered_units(request, host, frees)
    if not units:
        return set()
    return {(key, rc) for unit in units for key, _ in unit.candidates
            for rc in unit.resources if (key, rc) in keys}


def _device_part(request, classes):
    """(key, make): the part of request that decides what it asks.

    Which devices a request could take depends only on its groups that
    ask for device classes, its PCI demands, and, when the unnumbered
    group requires traits, that whole group (Placement may meet a trait
    through any of its classes). Flavors that differ only in CPU, RAM or
    disk share this part: their units are made once per host group.
    """
    groups = []
    for group in request.groups:
        resources = group.resources
        if group.suffix or not group.required_traits:
            if not classes & {rc for rc, n in resources.items() if n}:
                continue
            if not group.suffix:
                resources = {rc: n for rc, n in resources.items()
                             if rc in classes}
        groups.append(request_mod.RequestGroup(
            resources, group.required_traits, group.forbidden_traits,
            group.suffix))
    key = (tuple((g.suffix, tuple(sorted(g.resources.items())),
                  g.required_traits, g.forbidden_traits) for g in groups),
           request.group_policy, tuple(request.pci))
    return key, lambda: dataclasses.replace(request, groups=groups)


def _most_common(reasons):
    """The reason most requests give; ties go to the first by name."""
    counts = collections.Counter(reasons)
    return min(counts, key=lambda reason: (-counts[reason], reason))


class _Types(dict):
    """{type name: GpuType}, filled host by host."""

    def add(self, kind, counted_from, row):
        """Count row (HostDevices) under kind, counted from those sources."""
        found = self.get(kind.name)
        if found is None:
            found = self[kind.name] = GpuType(kind)
        found.counted_from |= counted_from
        found.add(row)

    def result(self):
        types = [self[name] for name in sorted(self)]
        for found in types:
            found.hosts.sort(key=lambda row: row.position)
        return types


def reference_figures(hosts, requests, options, exclusion, metadata):
    """[GpuType] of hosts, host by host through fit.fit: the definition.

    requests: the distinct valid requests of the report's flavors;
    exclusion(host, request, options, metadata): why the scheduler would
    not consider host for request (engine._exclusion); metadata: {host
    name: aggregate metadata}.
    """
    by_class = gpu_devices.aliases_by_class(options.aliases)
    types = _Types()
    for position, host in enumerate(hosts):
        if host.unreadable:
            continue  # nothing is known of its devices
        rows = gpu_devices.device_rows(host, options.aliases, by_class)
        if not rows:
            continue
        frees = fit.free_amounts(host)
        keys = {gpu_devices.row_key(host, row): row for row in rows}
        reasons = collections.defaultdict(list)  # type name -> [reason]
        fits = set()
        for request in requests:
            names = {keys[key].kind.name
                     for key in _asked(request, host, frees, keys)}
            if not names:
                continue
            why = exclusion(host, request, options, metadata[host.name])
            count = 0
            if why is None:
                total, _ = fit.fit(request, host, empty=True)
                count, label = fit.fit(request, host, frees=frees)
                why = (DOES_NOT_FIT if total == 0
                       else None if count else label or UNNAMED)
            for name in names:
                reasons[name].append(why)
                if count:
                    fits.add(name)
        amounts = [gpu_devices.amounts(host, row) for row in rows]
        by_type = gpu_devices.by_type(rows)
        for name, (kind, sources, indexes) in by_type.items():
            total = sum(amounts[i][0] for i in indexes)
            used = sum(amounts[i][1] for i in indexes)
            free = sum(max(0, amounts[i][0] - amounts[i][1])
                       for i in indexes)
            stranded = free if name not in fits else 0
            blocked = None
            if stranded:
                blocked = (_most_common(reasons[name]) if reasons[name]
                           else NO_FLAVOR)
            types.add(kind, sources, HostDevices(
                position, host.name, host.node, host.availability_zone,
                total, used, free, stranded, blocked))
    return types.result()


class _Reasons(list):
    """Reason strings by code, codes handed out as they are first seen."""

    def __init__(self):
        super().__init__()
        self._codes = {}

    def code(self, reason):
        if reason not in self._codes:
            self._codes[reason] = len(self)
            self.append(reason)
        return self._codes[reason]


def _request_reasons(found, n, why, reasons):
    """(available, reason codes) per host of one request on one group.

    found: the request's (available, limits, labels) on the group, or
    None when the engine did not count it there; why: then the reason.
    """
    if found is None:
        return (numpy.zeros(n, dtype=numpy.int64),
                numpy.full(n, reasons.code(why), dtype=numpy.int64))
    available, limits, labels = found
    codes = numpy.array([reasons.code(label) for label in labels]
                        + [reasons.code(UNNAMED)], dtype=numpy.int64)
    # limits index labels, -1 (the last code) when no single class.
    return numpy.asarray(available), codes[limits]


def _most_common_codes(codes, reasons):
    """Per column of codes (requests x hosts), _most_common's choice."""
    present = sorted(numpy.unique(codes).tolist(),
                     key=lambda code: reasons[code])
    counts = numpy.stack([(codes == code).sum(axis=0) for code in present])
    # argmax takes the first largest count: the first reason by name.
    return numpy.array(present)[counts.argmax(axis=0)]


def _group_amounts(group, rows):
    """(capacity, used) arrays, hosts x rows."""
    amounts = numpy.array([[gpu_devices.amounts(host, row)
                            for row in rows] for host in group.hosts],
                          dtype=numpy.int64)
    return amounts[:, :, 0], amounts[:, :, 1]


def figures(groups, requests, options, exclusion):
    """[GpuType] over host groups: reference_figures' numbers, faster.

    requests: [(request, host_numbers.HostNumbers)] of the distinct valid
    requests; each HostNumbers entry holds the request's per-host numbers
    on one group where it was counted. A request is looked at only on
    groups where its units can take devices, and its numbers are the
    engine's.
    """
    by_class = gpu_devices.aliases_by_class(options.aliases)
    counted = []
    for request, per_host in requests:
        counted.append((request, {id(entry[0]): (entry[2], entry[3],
                                                 entry[4])
                                  for entry in per_host.entries}))
    reasons = _Reasons()
    types = _Types()
    for group in groups:
        representative = group.representative
        if representative.unreadable:
            continue
        rows = gpu_devices.device_rows(representative, options.aliases,
                                       by_class)
        if not rows:
            continue
        _add_group(types, group, rows, counted, options, exclusion, reasons)
    return types.result()


def _add_group(types, group, rows, counted, options, exclusion, reasons):
    representative = group.representative
    n = len(group)
    keys = {gpu_devices.row_key(representative, row): row for row in rows}
    classes = {rc for _, rc in keys}
    asked = {}  # _device_part key -> type names
    asking = collections.defaultdict(list)  # name -> [(available, codes)]
    for request, found in counted:
        if not _classes(request) & classes:
            continue
        part, reduced = _device_part(request, classes)
        names = asked.get(part)
        if names is None:
            names = asked[part] = {keys[key].kind.name for key in _asked(
                reduced(), representative, group.columns, keys)}
        if not names:
            continue
        mine = found.get(id(group))
        why = None if mine is not None else (exclusion(
            representative, request, options, group.metadata)
            or DOES_NOT_FIT)
        numbers = _request_reasons(mine, n, why, reasons)
        for name in names:
            asking[name].append(numbers)
    capacity, used = _group_amounts(group, rows)
    free = numpy.maximum(capacity - used, 0)
    by_type = gpu_devices.by_type(rows)
    for name, (kind, sources, indexes) in by_type.items():
        totals = capacity[:, indexes].sum(axis=1)
        useds = used[:, indexes].sum(axis=1)
        frees = free[:, indexes].sum(axis=1)
        stranded = frees.copy()
        blocked = numpy.full(n, reasons.code(NO_FLAVOR), dtype=numpy.int64)
        if asking[name]:
            available = numpy.stack([a for a, _ in asking[name]])
            stranded[(available > 0).any(axis=0)] = 0
            blocked = _most_common_codes(
                numpy.stack([c for _, c in asking[name]]), reasons)
        for i, host in enumerate(group.hosts):
            lost = int(stranded[i])
            types.add(kind, sources, HostDevices(
                int(group.positions[i]), host.name, host.node,
                host.availability_zone, int(totals[i]), int(useds[i]),
                int(frees[i]), lost,
                reasons[int(blocked[i])] if lost else None))
