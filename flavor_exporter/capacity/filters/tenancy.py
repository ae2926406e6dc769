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
"""Hosts reserved for projects: Nova's two tenant filters, pure.

AggregateMultiTenancyIsolation (a host filter, when enabled): a host in
an aggregate with ``filter_tenant_id`` metadata takes only the projects
named there. It reads the values as every aggregate filter does
(nova.scheduler.filters.utils.aggregate_metadata_get_by_host: split on
',' and stripped). Nova 29 (2024.1) reads the key ``filter_tenant_id``
alone; Nova 30 (2024.2) and later every key starting with it, so that
more projects than one value holds can be named.

require_tenant_aggregate (a request filter, behind [scheduler]
limit_tenants_to_placement_aggregate): the aggregates of a project are
those with a metadata value that *is* the project id and a
``filter_tenant_id*`` key (AggregateList.get_by_metadata compares whole
values, so ``a,b`` names neither a nor b here). A project that has some
is placed only on their hosts (member_of in Placement, where Nova
mirrors its aggregates onto the compute node providers, which span their
trees); a project that has none is placed anywhere, or, with
placement_aggregate_required_for_tenants, nowhere. An aggregate without
hosts still counts: it confines its projects to nothing.

For the cloud-wide documents a host is *open* when a project named in no
aggregate could use it; hosts that only named projects may use are
*reserved* (counted apart, never in total/available).
"""

import dataclasses

KEY = 'filter_tenant_id'
#: Why no project at all may use a host (the request filter, required).
NO_PROJECT = 'in no aggregate of a project (placement_aggregate_required' \
             '_for_tenants)'


@dataclasses.dataclass(frozen=True)
class TenantIsolation:
    """Which tenant filters the scheduler runs, and how (nova.conf)."""

    #: AggregateMultiTenancyIsolation is enabled.
    host_filter: bool = False
    #: It reads every filter_tenant_id* key (Nova 30 and later).
    host_filter_prefix: bool = True
    #: [scheduler] limit_tenants_to_placement_aggregate.
    request_filter: bool = False
    #: [scheduler] placement_aggregate_required_for_tenants.
    required: bool = False

    @property
    def enabled(self):
        return self.host_filter or self.request_filter


OFF = TenantIsolation()


def is_tenant_key(key):
    return key.startswith(KEY)


def _host_filter_key(key, isolation):
    return key.startswith(KEY) if isolation.host_filter_prefix \
        else key == KEY


def read_keys(isolation, present):
    """The metadata keys the tenant filters read, of those present."""
    if not isolation.enabled:
        return set()
    return {key for key in present if is_tenant_key(key)}


def host_filter_projects(metadata, isolation):
    """The projects a host takes (AggregateMultiTenancyIsolation).

    metadata: {key: set of values} of the host's aggregates, split as
    aggregate_filter.host_aggregate_metadata splits them. None when the
    filter lets every project in.
    """
    if not isolation.host_filter:
        return None
    named = set()
    for key, values in metadata.items():
        if _host_filter_key(key, isolation):
            named |= values
    return frozenset(named) if named else None


def is_open(metadata, isolation):
    """Whether a project named in no aggregate may use the host."""
    if isolation.request_filter and isolation.required:
        return False
    return host_filter_projects(metadata, isolation) is None


def usable_by_someone(metadata, isolation):
    """False when no project at all may use the host.

    With placement_aggregate_required_for_tenants every project is kept
    to its aggregates: a host in none of them takes nobody.
    """
    if not (isolation.request_filter and isolation.required):
        return True
    return any(is_tenant_key(key) for key in metadata)


def _aggregate_id(aggregate):
    return aggregate.uuid or aggregate.name


def aggregate_ids(aggregates):
    """The ids project_aggregates() names aggregates by."""
    return frozenset(_aggregate_id(aggregate) for aggregate in aggregates)


def project_aggregates(aggregates, project_id):
    """The ids of the aggregates require_tenant_aggregate gives a project.

    As Nova finds them: an aggregate with some metadata value equal to
    the project id (AggregateList.get_by_metadata(value=...)) and some
    filter_tenant_id* key, not necessarily the same one.
    """
    return frozenset(
        _aggregate_id(aggregate) for aggregate in aggregates
        if project_id in (aggregate.metadata or {}).values()
        and any(is_tenant_key(key) for key in aggregate.metadata))


def why_not(host_metadata, host_aggregate_ids, project_id, own, isolation):
    """Why the scheduler would not place project_id's instance on a host.

    host_metadata: the host's split metadata; host_aggregate_ids: the ids
    of its aggregates (aggregate_ids()); own: project_aggregates() of the
    project. None when it may.
    """
    if isolation.host_filter:
        named = host_filter_projects(host_metadata, isolation)
        if named is not None and project_id not in named:
            return 'reserved for other projects (filter_tenant_id)'
    if isolation.request_filter:
        if own and own.isdisjoint(host_aggregate_ids):
            return 'outside the project\'s aggregates'
        if not own and isolation.required:
            return 'the project is in no aggregate'
    return None
