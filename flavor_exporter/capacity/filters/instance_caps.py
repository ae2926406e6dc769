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
"""Instances per host: NumInstancesFilter and AggregateNumInstancesFilter.

Nova's NumInstancesFilter refuses a host with ``max_instances_per_host``
([filter_scheduler], 50 by default) instances or more;
AggregateNumInstancesFilter takes the smallest ``max_instances_per_host``
of the host's aggregates' metadata instead, falling back to the option
when none has it or one cannot be read as a number
(nova.scheduler.filters.num_instances_filter). Both count the instances
as the scheduler's HostState does: the compute node's ``num_instances``
stat, which os-hypervisors reports as ``running_vms`` (every instance the
node holds, soft-deleted ones included), plus one per instance it places.

A host's cap is a resource of its own here: one unit per instance, its
capacity the cap, its usage the instances (fit.free_amounts), so that it
bounds every flavor's count and names itself when it is the limit.
"""

import dataclasses

KEY = 'max_instances_per_host'


@dataclasses.dataclass(frozen=True)
class Caps:
    """Which of the two filters the scheduler runs ([capacity])."""

    num_instances_filter: bool = False
    aggregate_num_instances_filter: bool = False
    #: [filter_scheduler] max_instances_per_host of nova.conf.
    max_instances_per_host: int = 50

    @property
    def enabled(self):
        return self.num_instances_filter or \
            self.aggregate_num_instances_filter


NONE = Caps()


def _aggregate_cap(host, default):
    values = {aggregate.metadata[KEY] for aggregate in host.aggregates
              if KEY in (aggregate.metadata or {})}
    if not values:
        return default
    try:
        return min(int(value) for value in values)
    except ValueError:
        return default  # Nova logs "Could not decode" and does the same


def host_cap(host, caps):
    """The most instances the scheduler lets on host, or None."""
    found = []
    if caps.num_instances_filter:
        found.append(caps.max_instances_per_host)
    if caps.aggregate_num_instances_filter:
        found.append(_aggregate_cap(host, caps.max_instances_per_host))
    return min(found) if found else None


def capped(hosts, caps):
    """hosts, each with its max_instances, when a filter runs."""
    if not caps.enabled:
        return hosts
    return [dataclasses.replace(host, max_instances=host_cap(host, caps))
            for host in hosts]
