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
"""

import collections
import dataclasses
import re

from flavor_exporter.capacity import aggregate_filter
from flavor_exporter.capacity import fit
from flavor_exporter.capacity import request as request_mod

DISABLED_TRAIT = 'COMPUTE_STATUS_DISABLED'

# Added to a flavor's unsupported notes when fit.fit_certain could not
# prove a host's count maximal.
UNCERTAIN = ('request groups compete for the same providers: on some hosts '
             'the count is what one-by-one placement fits and may be low')


@dataclasses.dataclass
class Options:
    """The engine's knobs, decoupled from oslo.config for testing."""

    aliases: dict = dataclasses.field(default_factory=dict)
    skip_patterns: tuple = ('DEPRECATED',)
    aggregate_instance_extra_specs: bool = True


@dataclasses.dataclass
class HostCapacity:
    host: str
    node: str
    availability_zone: str | None
    total: int
    available: int
    limited_by: str | None


@dataclasses.dataclass
class FlavorCapacity:
    flavor: object  # model.Flavor
    request: object = None  # request.ResourceRequest, None when invalid
    error: str | None = None
    total: int = 0
    available: int = 0
    zones: dict = dataclasses.field(default_factory=dict)  # az -> [t, a]
    hosts: list = dataclasses.field(default_factory=list)  # HostCapacity
    excluded: dict = dataclasses.field(default_factory=dict)  # why -> n
    limited_by: str | None = None

    @property
    def gpu(self):
        return self.request.gpu if self.request else None


@dataclasses.dataclass
class Report:
    source: str
    collected_at: object
    flavors: list  # FlavorCapacity, sorted by name
    problems: list
    api_calls: int = 0


def _exclusion(host, request, options, metadata):
    """Why the scheduler would not consider host for request, or None."""
    if not host.providers:
        return 'no resource provider'
    if not host.enabled or DISABLED_TRAIT in host.traits:
        return 'compute service disabled'
    if not host.up:
        return 'compute service down'
    if not request.root_required <= host.traits:
        return 'compute node lacks required traits'
    if (options.aggregate_instance_extra_specs and request.aggregate_specs
            and not aggregate_filter.aggregate_metadata_matches(
                request.aggregate_specs, metadata)):
        return 'aggregate metadata does not match'
    return None


def flavor_capacity(flavor, hosts, options, host_metadata, zones,
                    frees=None):
    """Capacity of one flavor; frees: {id(host): (empty, now) amounts}."""
    result = FlavorCapacity(flavor=flavor,
                            zones={zone: [0, 0] for zone in zones})
    try:
        result.request = request_mod.build_request(flavor, options.aliases)
    except request_mod.InvalidExtraSpec as exc:
        result.error = str(exc)
        return result
    limits = collections.Counter()
    uncertain = False
    for host in hosts:
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
        if total == 0:
            result.excluded['does not fit'] = (
                result.excluded.get('does not fit', 0) + 1)
            continue
        result.hosts.append(HostCapacity(host.name, host.node,
                                         host.availability_zone, total,
                                         available, limit))
        result.total += total
        result.available += available
        zone = result.zones.setdefault(host.availability_zone, [0, 0])
        zone[0] += total
        zone[1] += available
        if limit:
            limits[limit] += 1
    if uncertain:
        result.request.unsupported.append(UNCERTAIN)
    if limits:
        # The class that caps the most hosts is what to buy more of.
        result.limited_by = sorted(limits.items(),
                                   key=lambda item: (-item[1], item[0]))[0][0]
    return result


def _skipped(flavor, patterns):
    return flavor.disabled or any(p.search(flavor.name) for p in patterns)


def compute(snapshot, options):
    """A Report for every flavor of snapshot that is not skipped."""
    patterns = [re.compile(p) for p in options.skip_patterns if p]
    host_metadata = {host.name: aggregate_filter.host_aggregate_metadata(
        host.aggregates) for host in snapshot.hosts}
    zones = sorted({h.availability_zone for h in snapshot.hosts
                    if h.availability_zone})
    frees = {id(h): (fit.free_amounts(h, empty=True), fit.free_amounts(h))
             for h in snapshot.hosts}
    flavors = [flavor_capacity(f, snapshot.hosts, options, host_metadata,
                               zones, frees)
               for f in sorted(snapshot.flavors, key=lambda f: f.name)
               if not _skipped(f, patterns)]
    return Report(source=snapshot.source,
                  collected_at=snapshot.collected_at,
                  flavors=flavors,
                  problems=list(snapshot.problems),
                  api_calls=snapshot.api_calls)
