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
"""What one project can start: pure, from a Report and the project's quota.

The engine counts every host that some project may use (engine.py); a
project may use fewer: tenancy.py says which, host by host, from the
aggregates of the snapshot. A flavor's capacity for the project is the
sum of its per-host numbers over those hosts; the quota says how many
instances the project may still start (quota.py); ``startable`` is the
smaller, overall and per availability zone. Only the flavors the project
may use are listed: public ones, and private ones shared with it.

Nothing here reads the cloud: a project's numbers cost its quota reading
(worker/quotas.py) and a pass over per-host columns the refresh already
made.
"""

import dataclasses

import numpy

from flavor_exporter.capacity import aggregate_filter
from flavor_exporter.capacity import quota as quota_mod
from flavor_exporter.capacity import tenancy

QUOTA = 'quota'
CAPACITY = 'capacity'


@dataclasses.dataclass
class ProjectFlavor:
    """One flavor as one project sees it."""

    capacity: object  # engine.FlavorCapacity, of the cloud
    total: int | None
    available: int | None
    zones: dict  # zone -> [total, available]
    excluded: dict  # why -> hosts the flavor fits on that the project lacks
    headroom: object  # quota.Headroom
    startable: int
    limited_by: str | None  # QUOTA or CAPACITY (None: invalid flavor)


@dataclasses.dataclass
class ProjectReport:
    project_id: str
    report: object  # engine.Report
    quota: object  # quota.ProjectQuota, None for no quota system
    flavors: list  # ProjectFlavor
    aggregates: list  # names of the aggregates the project is kept to
    isolation: object  # tenancy.TenantIsolation


def may_use(flavor, project_id):
    """Whether a project may boot flavor (public, or shared with it)."""
    if flavor.is_public:
        return True
    return flavor.projects is not None and project_id in flavor.projects


def host_reasons(report, project_id, isolation):
    """[why not, or None] per host of report, for project_id."""
    if not isolation.enabled:
        return [None] * len(report.hosts)
    own = tenancy.project_aggregates(report.aggregates, project_id)
    reasons = []
    for host in report.hosts:
        keys = tenancy.read_keys(isolation, {
            key for agg in host.aggregates for key in (agg.metadata or ())})
        metadata = aggregate_filter.host_aggregate_metadata(host.aggregates,
                                                            keys)
        reasons.append(tenancy.why_not(
            metadata, tenancy.aggregate_ids(host.aggregates), project_id,
            own, isolation))
    return reasons


def _columns(capacity, position_of):
    """(positions, totals, available) arrays of a flavor's per-host rows."""
    per_host = capacity.per_host
    if hasattr(per_host, 'columns'):
        positions, totals, available, _, _ = per_host.columns()
    else:
        rows = capacity.hosts
        positions = [position_of[row.host] for row in rows]
        totals = [row.total for row in rows]
        available = [row.available for row in rows]
    return (numpy.asarray(positions, dtype=numpy.int64),
            numpy.asarray(totals, dtype=numpy.int64),
            numpy.asarray(available, dtype=numpy.int64))


def _smaller(available, allowed):
    return available if allowed is None else min(available, allowed)


def _flavor(capacity, headroom, allowed, reasons, zone_codes, zones,
            columns):
    """reasons: (why-not names, the name's index per host; 0: allowed)."""
    if capacity.request is None:
        # Nova's API refuses such a flavor: nothing starts.
        return ProjectFlavor(capacity, None, None, {}, {}, headroom, 0,
                             None)
    positions, totals, available = columns
    mine = allowed[positions] if len(positions) else \
        numpy.zeros(0, dtype=bool)
    names, codes = reasons
    counts = numpy.bincount(codes[positions], minlength=len(names))
    excluded = {names[i]: int(counts[i]) for i in range(1, len(names))
                if counts[i]}
    codes = zone_codes[positions[mine]]
    zone_total = numpy.bincount(codes, weights=totals[mine],
                                minlength=len(zones))
    zone_available = numpy.bincount(codes, weights=available[mine],
                                    minlength=len(zones))
    total = int(totals[mine].sum())
    free = int(available[mine].sum())
    startable = _smaller(free, headroom.instances)
    limited_by = (QUOTA if headroom.instances is not None
                  and headroom.instances <= free else CAPACITY)
    return ProjectFlavor(
        capacity, total, free,
        {zone: [int(zone_total[i]), int(zone_available[i])]
         for i, zone in enumerate(zones)},
        excluded, headroom, startable, limited_by)


def _coded(reasons):
    """(names, codes): index 0 for None, then each reason's own index."""
    names = [None]
    index = {None: 0}
    codes = numpy.zeros(len(reasons), dtype=numpy.int64)
    for i, why in enumerate(reasons):
        if why not in index:
            index[why] = len(names)
            names.append(why)
        codes[i] = index[why]
    return names, codes


def compute(report, project_id, quota, isolation=tenancy.OFF,
            columns=None):
    """The ProjectReport of project_id over report (engine.Report).

    quota: the project's quota.ProjectQuota, None when Nova enforces none.
    columns: a dict kept by the caller for all projects of one report:
    the per-host columns of its flavors, made once for all of them.
    """
    reasons = _coded(host_reasons(report, project_id, isolation))
    allowed = reasons[1] == 0
    zones = sorted({h.availability_zone for h in report.hosts
                    if h.availability_zone})
    if any(h.availability_zone is None for h in report.hosts):
        zones.append(None)
    zone_index = {zone: i for i, zone in enumerate(zones)}
    zone_codes = numpy.array([zone_index[h.availability_zone]
                              for h in report.hosts], dtype=numpy.int64)
    position_of = {host.name: i for i, host in enumerate(report.hosts)}
    # Flavors of one request share their columns (engine.HostNumbers).
    columns = {} if columns is None else columns
    flavors = []
    for capacity in report.flavors:
        if not may_use(capacity.flavor, project_id):
            continue
        key = id(capacity.per_host)
        if key not in columns:
            columns[key] = _columns(capacity, position_of)
        headroom = quota_mod.headroom(quota, capacity.flavor,
                                      capacity.request)
        flavors.append(_flavor(capacity, headroom, allowed, reasons,
                               zone_codes, zones, columns[key]))
    own = tenancy.project_aggregates(report.aggregates, project_id) \
        if isolation.request_filter else frozenset()
    names = sorted(agg.name for agg in report.aggregates
                   if tenancy.aggregate_ids([agg]) & own)
    return ProjectReport(project_id, report, quota, flavors, names,
                         isolation)
