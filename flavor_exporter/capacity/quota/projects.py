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
"""What one project can start: pure, in two parts that change apart.

Which hosts a project may use (tenancy.py) decides its capacity: every
project the aggregates do not name may use the same hosts, and those
they name their own, so a cloud has a few host *patterns*, whatever its
number of projects. A pattern's per-flavor numbers are sums of the
per-host columns the refresh made; they change with every refresh.

How many instances a project's quota allows (quota.py) depends on its
quota reading and, per flavor, on what one instance counts against the
quota (quota.Footprint), which many flavors share; it changes when the
quota is read again.

So the worker computes the patterns once per refresh and a project's
headroom once per footprint and quota reading; publication/projects.py
joins them with the cloud-wide list into the document the API serves.
Nothing here reads the cloud.
"""

import dataclasses
import hashlib

import numpy

from flavor_exporter.capacity.filters import aggregate_filter
from flavor_exporter.capacity.filters import tenancy
from flavor_exporter.capacity.quota import quota as quota_mod


@dataclasses.dataclass(frozen=True)
class Pattern:
    """Which hosts of a report a project may use, and why not the others.

    names: the reasons, names[0] None (may use); codes: per host of the
    report, the index of its reason.
    """

    names: tuple
    codes: bytes

    @property
    def name(self):
        """A short name of the pattern, the same for equal patterns."""
        digest = hashlib.blake2b(repr((self.names, self.codes)).encode(),
                                 digest_size=8)
        return digest.hexdigest()


@dataclasses.dataclass
class Numbers:
    """A flavor's capacity on the hosts of one pattern."""

    total: int
    available: int
    zones: dict  # zone -> [total, available]
    excluded: dict  # why -> hosts the flavor fits on that are not usable


def host_pattern(report, project_id, isolation):
    """The Pattern of project_id over report.

    project_id None: a project no aggregate names.
    """
    names = [None]
    index = {None: 0}
    codes = bytearray()
    own = tenancy.project_aggregates(report.aggregates, project_id) \
        if project_id is not None else frozenset()
    for host in report.hosts:
        why = None
        if isolation.enabled:
            keys = tenancy.read_keys(isolation, {
                key for agg in host.aggregates
                for key in (agg.metadata or ())})
            metadata = aggregate_filter.host_aggregate_metadata(
                host.aggregates, keys)
            why = tenancy.why_not(metadata,
                                  tenancy.aggregate_ids(host.aggregates),
                                  project_id, own, isolation)
        if why not in index:
            index[why] = len(names)
            names.append(why)
        codes.append(index[why])
    return Pattern(tuple(names), bytes(codes))


def named_projects(report, isolation):
    """The projects the report's aggregates name to the tenant filters."""
    if not isolation.enabled:
        return set()
    found = set()
    for aggregate in report.aggregates:
        for key, value in (aggregate.metadata or {}).items():
            if tenancy.is_tenant_key(key) and value:
                found.add(value.strip())
                found.update(v.strip() for v in value.split(',')
                             if v.strip())
    return found


def patterns(report, isolation):
    """(the default Pattern, {named project: its Pattern}).

    The default is every project the aggregates do not name.
    """
    return (host_pattern(report, None, isolation),
            {project_id: host_pattern(report, project_id, isolation)
             for project_id in sorted(named_projects(report, isolation))})


def own_aggregates(report, project_id, isolation):
    """Names of the aggregates the request filter keeps a project to."""
    if not isolation.request_filter:
        return []
    own = tenancy.project_aggregates(report.aggregates, project_id)
    return sorted(agg.name for agg in report.aggregates
                  if tenancy.aggregate_ids([agg]) & own)


def _columns(capacity):
    """(positions, totals, available) arrays of a flavor's per-host rows."""
    positions, totals, available, _, _ = capacity.per_host.arrays()
    return positions, totals, available


def capacity(report, pattern, columns=None):
    """{flavor id: Numbers} of the valid flavors on pattern's hosts.

    columns: a dict kept by the caller for all patterns of one report:
    the per-host columns of its flavors, made once for all of them.
    """
    codes = numpy.frombuffer(pattern.codes, dtype=numpy.uint8).astype(
        numpy.int64)
    allowed = codes == 0
    zones = sorted({h.availability_zone for h in report.hosts
                    if h.availability_zone})
    zone_index = {zone: i for i, zone in enumerate(zones)}
    # Hosts without a zone count in no zone, as in the cloud-wide list.
    zone_codes = numpy.array([zone_index.get(h.availability_zone,
                                             len(zones))
                              for h in report.hosts], dtype=numpy.int64)
    columns = {} if columns is None else columns
    found = {}
    for flavor in report.flavors:
        if flavor.request is None:
            continue
        key = id(flavor.per_host)
        if key not in columns:
            columns[key] = _columns(flavor)
        positions, totals, available = columns[key]
        mine = allowed[positions] if len(positions) else \
            numpy.zeros(0, dtype=bool)
        counts = numpy.bincount(codes[positions],
                                minlength=len(pattern.names))
        in_zone = zone_codes[positions[mine]]
        zone_total = numpy.bincount(in_zone, weights=totals[mine],
                                    minlength=len(zones) + 1)
        zone_available = numpy.bincount(in_zone, weights=available[mine],
                                        minlength=len(zones) + 1)
        total, free = int(totals[mine].sum()), int(available[mine].sum())
        in_zones = {zone: [int(zone_total[i]), int(zone_available[i])]
                    for i, zone in enumerate(zones)}
        # A boot into these is not restricted (engine.unrestricted_zones).
        in_zones.update({zone: [total, free]
                         for zone in report.unrestricted_zones})
        found[flavor.flavor.id] = Numbers(
            total, free, in_zones,
            {pattern.names[i]: int(counts[i])
             for i in range(1, len(pattern.names)) if counts[i]})
    return found


def footprints(report, counting=quota_mod.Counting()):
    """({flavor id: index}, [quota.Footprint]) of the report's flavors.

    counting: how the cloud's Nova counts quotas (quota.Counting).
    """
    index = {}
    prints = []
    of_flavor = {}
    for flavor in report.flavors:
        print_ = quota_mod.footprint(flavor.flavor, flavor.request,
                                     counting)
        if print_ not in index:
            index[print_] = len(prints)
            prints.append(print_)
        of_flavor[flavor.flavor.id] = index[print_]
    return of_flavor, prints


def headrooms(quota, prints):
    """[quota.Headroom] of a project's quota reading, per footprint."""
    return [quota_mod.footprint_headroom(quota, print_) for print_ in prints]
