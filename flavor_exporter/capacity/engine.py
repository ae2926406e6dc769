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

"""Per-flavor capacity of a snapshot: pure, no I/O.

total(F) is what would fit if the cloud were empty, available(F) what fits
now; both sum fit() over the hosts the Nova scheduler would consider.

compute() works on groups of hosts of one shape (host_groups) with numpy
(vector_fit), once per distinct request, and keeps per-host numbers as
arrays: 10,000 hosts x 1,000 flavors in about a second. reference_compute()
calls fit() host by host; it is the definition the fast path is tested
against.
"""

import collections
import dataclasses
import functools
import re

import numpy

from flavor_exporter.capacity.filters import aggregate_filter
from flavor_exporter.capacity.filters import cloud_filters
from flavor_exporter.capacity.filters import host_reads
from flavor_exporter.capacity.filters import instance_caps
from flavor_exporter.capacity.filters import isolated_aggregates
from flavor_exporter.capacity.filters import tenancy
from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity.fit import fragmentation
from flavor_exporter.capacity.fit import host_groups
from flavor_exporter.capacity.fit import host_numbers
from flavor_exporter.capacity.fit import numa_bounds
from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity.fit import vector_fit
from flavor_exporter.capacity.gpus import gpus
from flavor_exporter.capacity.request import request as request_mod

DISABLED_TRAIT = 'COMPUTE_STATUS_DISABLED'

# Added to a flavor's unsupported notes when fit.fit_certain could not
# prove a host's count exact.
UNCERTAIN = ('the count is not proven exact on some hosts: request groups '
             'compete for the same providers, or several providers could '
             'bring the required traits')


# Why a flavor does not count a host of an aggregate requiring a trait
# the flavor does not (isolate_aggregates).
ISOLATED = 'aggregate isolated for traits the flavor does not require'
# AggregateTypeAffinityFilter: the aggregate metadata key, and why a host
# whose aggregates name other flavors there is not counted.
TYPE_KEY = 'instance_type'
TYPE_AFFINITY = 'aggregate instance_type names other flavors'


# Why a flavor does not count a host the source could not read; the
# report's unreadable map (published as unreadable_hosts) names them.
UNREADABLE = 'host data unreadable'


@dataclasses.dataclass
class Options:
    """The engine's knobs, decoupled from oslo.config for testing."""

    aliases: dict = dataclasses.field(default_factory=dict)
    skip_patterns: tuple = ('DEPRECATED',)
    aggregate_instance_extra_specs: bool = True
    #: Which tenant filters the scheduler runs (tenancy.TenantIsolation).
    tenancy: object = tenancy.OFF
    # nova.conf [scheduler] enable_isolated_aggregate_filtering
    # (isolated_aggregates).
    isolate_aggregates: bool = False
    #: The instance count filters the scheduler runs (instance_caps.Caps).
    instance_caps: object = instance_caps.NONE
    #: nova.conf's default_availability_zone: the zone of hosts in no
    #: zone aggregate.
    default_availability_zone: str = 'nova'
    #: How NUMATopologyFilter fits guest cells (numa_fit.Rules).
    numa: object = numa_fit.Rules()
    #: Whether the scheduler runs AggregateTypeAffinityFilter.
    type_affinity: bool = False
    #: Lines every flavor carries for what the cloud's scheduler does that
    #: is not modelled (MetricsFilter, default_schedule_zone).
    cloud_lines: tuple = ()


@dataclasses.dataclass
class FlavorCapacity:
    flavor: object  # model.Flavor
    request: object = None  # request.ResourceRequest, None when invalid
    error: str | None = None
    total: int = 0
    available: int = 0
    zones: dict = dataclasses.field(default_factory=dict)  # az -> [t, a]
    # Per-host numbers (host_numbers.HostRows counted host by host, or
    # HostNumbers that make the rows on demand: 10 million objects for
    # 10,000 hosts x 1,000 flavors are too many to build unless a
    # document needs them).
    per_host: object = dataclasses.field(
        default_factory=host_numbers.HostRows)
    excluded: dict = dataclasses.field(default_factory=dict)  # why -> n
    limited_by: str | None = None
    # [total, available] on hosts only named projects may use (tenancy):
    # not in total and available, which a project named in no aggregate
    # could start. Their per-host numbers are in per_host.
    reserved: list = dataclasses.field(default_factory=lambda: [0, 0])
    # (type name, devices per instance) of a GPU flavor, the type named
    # as the report's GPU types are (gpus.flavor_gpu); None otherwise.
    gpu: tuple | None = None
    # fragmentation.Figures: what pooled free resources would add.
    fragmentation: object = None

    @property
    def hosts(self):
        """[HostCapacity] of the hosts the flavor fits on, snapshot order."""
        return self.per_host.rows()


@dataclasses.dataclass
class Report:
    source: str
    collected_at: object
    flavors: list  # FlavorCapacity, sorted by name
    problems: list
    api_calls: int = 0
    hosts: list = dataclasses.field(default_factory=list)  # model.Host
    aggregates: list = dataclasses.field(default_factory=list)
    gpus: list = dataclasses.field(default_factory=list)  # gpus.GpuType
    # Zones whose figures are the cloud's (unrestricted_zones).
    unrestricted_zones: list = dataclasses.field(default_factory=list)

    @property
    def unreadable(self):
        """{host name: why} of the hosts the source could not read."""
        return {host.name: host.unreadable for host in self.hosts
                if host.unreadable}


def _exclusion(host, request, options, metadata):
    """Why the scheduler would not consider host for request, or None."""
    if host.unreadable:
        # Not the scheduler's reason: this service's, for a host it could
        # not count.
        return UNREADABLE
    # The service state before the providers: it is the scheduler's own
    # reason, and the one that matters for a disabled or down host whose
    # data could not be read (census.account gives it no providers).
    if not host.enabled or DISABLED_TRAIT in host.traits:
        return 'compute service disabled'
    if not host.up:
        return 'compute service down'
    if not host.providers:
        return 'no resource provider'
    if not tenancy.usable_by_someone(metadata, options.tenancy):
        return tenancy.NO_PROJECT
    if not request.root_required <= host.traits:
        return 'compute node lacks required traits'
    if (options.aggregate_instance_extra_specs and request.aggregate_specs
            and not aggregate_filter.aggregate_metadata_matches(
                request.aggregate_specs, metadata)):
        return 'aggregate metadata does not match'
    if (options.isolate_aggregates and isolated_aggregates.isolated(
            request.all_required_traits, metadata)):
        return ISOLATED
    if (options.type_affinity and TYPE_KEY in metadata
            and request.flavor_name not in metadata[TYPE_KEY]):
        return TYPE_AFFINITY
    return None


def flavor_capacity(flavor, hosts, options, host_metadata, zones,
                    frees=None, cloud=cloud_filters.DEFAULT,
                    numa_counts=None):
    """Capacity of one flavor; frees: {id(host): (empty, now) amounts}.

    cloud: what the cloud's request filters add (cloud_filters);
    numa_counts: a numa_fit.Counts.
    """
    result = FlavorCapacity(flavor=flavor,
                            zones={zone: [0, 0] for zone in zones})
    try:
        result.request = request_mod.build_request(flavor, options.aliases,
                                                   cloud)
    except request_mod.InvalidExtraSpec as exc:
        result.error = str(exc)
        return result
    limits = collections.Counter()
    uncertain = False
    counter = _numa_counter(result.request, options,
                            numa_counts or numa_fit.Counts(options.numa))
    unknown = counted = 0
    for position, host in enumerate(hosts):
        why = _exclusion(host, result.request, options,
                         host_metadata[host.name])
        if why:
            result.excluded[why] = result.excluded.get(why, 0) + 1
            continue
        empty, now = frees[id(host)] if frees else (None, None)
        total, _, sure = fit.fit_certain(result.request, host, True, empty)
        available, limit, sure_now = fit.fit_certain(result.request, host,
                                                     False, now)
        uncertain = uncertain or not (sure and sure_now)
        if total and result.request.numa is not None:
            counted += 1
            bounded = counter and numa_bounds.host_counts(
                host, counter, total, available)
            if bounded:
                total, available, limited = bounded
                limit = numa_bounds.LIMIT if limited else limit
            else:
                unknown += 1
        if total == 0:
            result.excluded['does not fit'] = (
                result.excluded.get('does not fit', 0) + 1)
            continue
        result.per_host.append(position, host_numbers.HostCapacity(
            host.name, host.node, host.availability_zone, total, available,
            limit))
        if not tenancy.is_open(host_metadata[host.name], options.tenancy):
            result.reserved[0] += total
            result.reserved[1] += available
            continue
        result.total += total
        result.available += available
        zone = result.zones.setdefault(host.availability_zone, [0, 0])
        zone[0] += total
        zone[1] += available
        if limit:
            limits[limit] += 1
    if uncertain:
        result.request.unsupported.append(UNCERTAIN)
    line = _numa_line(result.request, options, unknown, counted)
    if line:
        result.request.unsupported.append(line)
    if limits:
        # The class that caps the most hosts is what to buy more of.
        result.limited_by = sorted(limits.items(),
                                   key=lambda item: (-item[1], item[0]))[0][0]
    return result


def _requested_classes(request):
    return {rc for group in request.groups
            for rc, amount in group.resources.items() if amount}


def source_notes(request, observable, pool_types):
    """Lines on what the snapshot's source could not see for request.

    observable: the classes the source sees (None: all of Placement's);
    pool_types: the GPU types of the snapshot's GPU host aggregates, which
    count devices of a PCI alias of that name.
    """
    lines = []
    if observable is not None:
        hidden = sorted(_requested_classes(request) - observable)
        fallback = request.fallback
        if hidden and fallback is not None and not (
                _requested_classes(fallback) - observable):
            lines.append('%s: not observable by this source; counted '
                         'through the VCPU fallback query only'
                         % ', '.join(hidden))
        elif hidden:
            lines.append('%s: not observable by this source (it sees %s); '
                         'not counted, use the placement source'
                         % (', '.join(hidden), ', '.join(sorted(observable))))
    for demand in request.pci:
        pooled = demand.alias in pool_types
        if demand.resource_class is None:
            if not pooled:
                lines.append('PCI alias %r is not in [pci] alias and no GPU '
                             'host aggregate offers it: nothing can be '
                             'counted' % demand.alias)
        elif (observable is not None and not pooled
              and demand.resource_class not in observable):
            lines.append('PCI alias %r (%s): not observable by this source '
                         'and no GPU host aggregate offers it; not counted'
                         % (demand.alias, demand.resource_class))
    return lines


def counting_notes(request, pool_types):
    """Lines on how request's GPUs were counted, when not from Placement.

    A cloud that does not report PCI devices to Placement describes them
    with GPU host aggregates, and needs no [pci] alias for that: these
    numbers are exact, so the line is information, not a limitation.
    """
    return ['PCI alias %r: GPUs counted from GPU host aggregates '
            '(gpu_count, gpu_type); name it in [pci] alias to count PCI '
            'devices reported to Placement instead' % demand.alias
            for demand in request.pci
            if demand.resource_class is None and demand.alias in pool_types]


def _add_source_notes(flavors, snapshot):
    pool_types = {pool.gpu_type for host in snapshot.hosts
                  for pool in host.gpu_pools}
    for result in flavors:
        if result.request is not None:
            result.request.unsupported.extend(source_notes(
                result.request, snapshot.observable, pool_types))
            result.request.notes.extend(counting_notes(result.request,
                                                       pool_types))


def _skipped(flavor, patterns):
    return flavor.disabled or any(p.search(flavor.name) for p in patterns)


def _report(snapshot, flavors, options):
    _add_source_notes(flavors, snapshot)
    for result in flavors:
        if result.request is not None:
            result.request.unsupported.extend(options.cloud_lines)
    return Report(source=snapshot.source,
                  collected_at=snapshot.collected_at,
                  flavors=flavors,
                  problems=list(snapshot.problems),
                  api_calls=snapshot.api_calls,
                  hosts=list(snapshot.hosts),
                  aggregates=list(snapshot.aggregates))


def unrestricted_zones(snapshot, options):
    """Zones Nova offers that booting into does not restrict.

    Nova's map_az_to_placement_aggregate keeps a boot into zone Z to the
    aggregates whose availability_zone metadata is Z; when none is, it
    adds no restriction, and no host filter checks the zone any more
    (Nova 29 and 34 alike). The API accepts a zone some enabled compute
    service is in. So the default zone of hosts in no zone aggregate,
    named by no aggregate, takes a boot on any host: its figures are the
    cloud's. A zone Nova does not offer (no enabled service in it) starts
    nothing: the API refuses it.
    """
    zone = options.default_availability_zone
    aggregates = list(snapshot.aggregates) + [
        agg for host in snapshot.hosts for agg in host.aggregates]
    if any((agg.metadata or {}).get('availability_zone') == zone
           for agg in aggregates):
        return []
    if any(host.enabled and host.availability_zone == zone
           for host in snapshot.hosts):
        return [zone]
    return []


def _unrestricted(report):
    """Each flavor's figures of the unrestricted zones: the cloud's."""
    for result in report.flavors:
        if result.request is not None:
            for zone in report.unrestricted_zones:
                result.zones[zone] = [result.total, result.available]
                if result.fragmentation is not None:
                    result.fragmentation.unrestricted(zone)


def _capped(snapshot, options):
    """snapshot with each host's instance cap (instance_caps.py)."""
    if not options.instance_caps.enabled:
        return snapshot
    return dataclasses.replace(snapshot, hosts=instance_caps.capped(
        snapshot.hosts, options.instance_caps))


def reference_compute(snapshot, options):
    """compute(), host by host through fit.fit: slow, the definition."""
    snapshot = _capped(snapshot, options)
    patterns = [re.compile(p) for p in options.skip_patterns if p]
    host_metadata = {host.name: aggregate_filter.host_aggregate_metadata(
        host.aggregates) for host in snapshot.hosts}
    zones = sorted({h.availability_zone for h in snapshot.hosts
                    if h.availability_zone})
    frees = {id(h): (fit.free_amounts(h, empty=True), fit.free_amounts(h))
             for h in snapshot.hosts}
    cloud = cloud_filters.read(snapshot.hosts)
    flavors = [flavor_capacity(f, snapshot.hosts, options, host_metadata,
                               zones, frees, cloud)
               for f in sorted(snapshot.flavors, key=lambda f: f.name)
               if not _skipped(f, patterns)]
    report = _report(snapshot, flavors, options)
    distinct = {}
    for result in flavors:
        if result.request is not None:
            distinct.setdefault(_numbers_key(result.request, options),
                                result.request)
    report.gpus = gpus.reference_figures(snapshot.hosts,
                                         list(distinct.values()), options,
                                         _exclusion, host_metadata)
    _name_gpus(report)
    for result in flavors:
        result.fragmentation = fragmentation.reference(
            result, snapshot.hosts, options, host_metadata)
    report.unrestricted_zones = unrestricted_zones(snapshot, options)
    _unrestricted(report)
    fragmentation.gpu_figures(report)
    return report


def _numbers_key(request, options):
    """_request_key, with what else a flavor's numbers depend on."""
    key = _request_key(request)
    # AggregateTypeAffinityFilter reads the flavor's name.
    return key + (request.flavor_name,) if options.type_affinity else key


def _request_key(request):
    """What of a request the fits depend on: equal keys, equal fits."""
    return (tuple((g.suffix, tuple(sorted(g.resources.items())),
                   g.required_traits, g.forbidden_traits)
                  for g in request.groups),
            request.group_policy, tuple(request.pci),
            tuple(sorted(request.aggregate_specs.items())),
            request.root_required, request.numa)


@dataclasses.dataclass
class _Numbers:
    """A request's numbers over the whole snapshot, shared by flavors."""

    total: int
    available: int
    zones: dict  # az -> [t, a], only the zones hosts were counted in
    excluded: dict
    limited_by: str | None
    per_host: host_numbers.HostNumbers
    certain: bool
    reserved: list
    numa_line: str | None = None  # numa_bounds.unsupported


def _numa_counter(request, options, numa_counts):
    """The numa_fit.GuestCounts bounding request's counts, or None."""
    if request.numa is None or not options.numa.enabled:
        return None
    return numa_counts.of(request.numa)


def _numa_line(request, options, unknown, counted):
    if request.numa is None:
        return None
    return numa_bounds.unsupported(request.numa, unknown, counted,
                                   options.numa.enabled)


def _request_numbers(request, groups, options, zone_names, fit=None,
                     numa_counts=None):
    """flavor_capacity's sums for request, one host group at a time.

    fit(request, group): the group's vector_fit.GroupFit (Fits.fit).
    numa_counts: the numa_fit.Counts of the refresh.
    """
    fit = fit or vector_fit.fit_any
    counter = _numa_counter(request, options, numa_counts)
    unknown = counted = 0
    excluded = {}
    limits = collections.Counter()
    total = available = 0
    zone_totals = numpy.zeros(len(zone_names), dtype=numpy.int64)
    zone_available = numpy.zeros(len(zone_names), dtype=numpy.int64)
    zone_seen = numpy.zeros(len(zone_names), dtype=bool)
    entries = []
    certain = True
    reserved = [0, 0]
    for group in groups:
        why = _exclusion(group.representative, request, options,
                         group.metadata)
        if why:
            excluded[why] = excluded.get(why, 0) + len(group)
            continue
        found = fit(request, group)
        certain = certain and found.certain
        if found.total and request.numa is not None:
            counted += len(group)
            bounded = counter and numa_bounds.group_fit(found, group,
                                                        counter)
            if bounded:
                found = bounded
            else:
                unknown += len(group)
        if found.total == 0:
            excluded['does not fit'] = (excluded.get('does not fit', 0)
                                        + len(group))
            continue
        entries.append((group, found.total,
                        found.available.astype(numpy.int32, copy=False),
                        found.limits,
                        found.labels))
        if not tenancy.is_open(group.metadata, options.tenancy):
            reserved[0] += found.total * len(group)
            reserved[1] += int(found.available.sum())
            continue
        total += found.total * len(group)
        available += int(found.available.sum())
        zone_totals += found.total * group.zone_counts
        zone_available += numpy.bincount(
            group.zone_codes, weights=found.available,
            minlength=len(zone_names)).astype(numpy.int64)
        zone_seen |= group.zone_counts > 0
        hits = numpy.bincount(found.limits[found.limits >= 0],
                              minlength=len(found.labels))
        for label, hit in zip(found.labels, hits):
            if hit:
                limits[label] += int(hit)
    limited_by = None
    if limits:
        limited_by = sorted(limits.items(),
                            key=lambda item: (-item[1], item[0]))[0][0]
    zones = {zone: [int(zone_totals[i]), int(zone_available[i])]
             for i, zone in enumerate(zone_names) if zone_seen[i]}
    return _Numbers(total, available, zones, excluded, limited_by,
                    host_numbers.HostNumbers(entries), certain, reserved,
                    _numa_line(request, options, unknown, counted))


def compute(snapshot, options, fits=None, numa_counts=None,
            fragmented=True):
    """A Report for every flavor of snapshot that is not skipped.

    The same numbers as reference_compute, computed per host group and
    once per distinct request. fits: a vector_fit.Fits kept between
    refreshes, to reuse what did not change; None computes everything.
    numa_counts: likewise, a numa_fit.Counts. fragmented: False leaves
    out the fragmentation figures (a what-if answers without them).
    """
    snapshot = _capped(snapshot, options)
    if numa_counts is None:
        numa_counts = numa_fit.Counts(options.numa)
    numa_counts.start()
    patterns = [re.compile(p) for p in options.skip_patterns if p]
    zones = sorted({h.availability_zone for h in snapshot.hosts
                    if h.availability_zone})
    zone_names = zones + ([None] if any(h.availability_zone is None
                                        for h in snapshot.hosts) else [])
    cloud = cloud_filters.read(snapshot.hosts)
    flavors = []
    for flavor in sorted(snapshot.flavors, key=lambda f: f.name):
        if _skipped(flavor, patterns):
            continue
        result = FlavorCapacity(flavor=flavor,
                                zones={zone: [0, 0] for zone in zones})
        flavors.append(result)
        try:
            result.request = request_mod.build_request(
                flavor, options.aliases, cloud)
        except request_mod.InvalidExtraSpec as exc:
            result.error = str(exc)
    requests = [result.request for result in flavors
                if result.request is not None]
    groups = host_groups.group_hosts(
        snapshot.hosts, zone_names,
        host_reads.metadata_keys(requests, options, snapshot.hosts))
    if fits is not None:
        fits.start(groups)
    known = {}
    distinct = []  # (request, HostNumbers) of each distinct request
    for result in flavors:
        if result.request is None:
            continue
        key = _numbers_key(result.request, options)
        numbers = known.get(key)
        if numbers is None:
            fit = (functools.partial(fits.fit, _request_key(result.request))
                   if fits is not None else None)
            numbers = known[key] = _request_numbers(
                result.request, groups, options, zone_names, fit,
                numa_counts)
            distinct.append((result.request, numbers.per_host))
        result.total = numbers.total
        result.available = numbers.available
        for zone, counts in numbers.zones.items():
            result.zones[zone] = list(counts)
        result.excluded = dict(numbers.excluded)
        result.limited_by = numbers.limited_by
        result.reserved = list(numbers.reserved)
        result.per_host = numbers.per_host
        if not numbers.certain:
            result.request.unsupported.append(UNCERTAIN)
        if numbers.numa_line:
            result.request.unsupported.append(numbers.numa_line)
    if fits is not None:
        fits.finish()
    report = _report(snapshot, flavors, options)
    report.gpus = gpus.figures(groups, distinct, options, _exclusion)
    _name_gpus(report)
    # Before _unrestricted: the zones' own figures, not the cloud's.
    if fragmented:
        fragmentation.compute(report, zone_names, options, _request_key)
    report.unrestricted_zones = unrestricted_zones(snapshot, options)
    _unrestricted(report)
    if fragmented:
        fragmentation.gpu_figures(report)
    return report


def _name_gpus(report):
    """Each flavor's GPUs, by the names of the report's GPU types."""
    kinds = [gpu_type.kind for gpu_type in report.gpus]
    for result in report.flavors:
        if result.request is not None:
            result.gpu = gpus.flavor_gpu(result.request, kinds)
