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
"""What the requests of one computation read of a host's aggregates.

Operators label aggregates freely (cells, racks, owners, maintenance
tickets). A label no request reads cannot change a number, but if host
groups were keyed on it, 10,000 hosts in 91 cells would be a thousand
groups instead of a few dozen, and the engine's cost grows with groups.
So the engine keys groups on the aggregate metadata its requests read,
and this module is the one place that says what that is.

Each entry of READERS is one scheduler filter (or request filter) that
reads aggregate metadata: given the requests, the engine options and
every metadata key present in the snapshot, it returns the keys it reads.
A filter modelled later (tenant isolation reads ``filter_tenant_id*``)
adds its reader here and nowhere else; a reader that returns too few
keys makes the fast path disagree with reference_compute, which the
seeded tests catch.

What the engine reads of a host besides aggregates (providers, service
state, GPU pools from GPU host aggregates, availability zone) is in
host_groups: the GPU aggregate keys (gpu, gpu_count, gpu_type) reach the
engine already turned into GpuPools by the source, zones as zone codes.
"""

from flavor_exporter.capacity.filters import aggregate_filter
from flavor_exporter.capacity.filters import isolated_aggregates
from flavor_exporter.capacity.filters import tenancy


def _aggregate_instance_extra_specs(requests, options, present):
    """AggregateInstanceExtraSpecsFilter: the keys some flavor names."""
    if not options.aggregate_instance_extra_specs:
        return set()
    return present & {key for request in requests
                      for key in request.aggregate_specs}


def _tenant_isolation(requests, options, present):
    """AggregateMultiTenancyIsolation, require_tenant_aggregate.

    Every filter_tenant_id* key when either runs: hosts reserved for
    projects are counted apart from the open ones (tenancy.py).
    """
    return tenancy.read_keys(options.tenancy, present)


def _isolate_aggregates(requests, options, present):
    """isolate_aggregates: every trait:* key, whatever the requests."""
    if not options.isolate_aggregates:
        return set()
    return {key for key in present
            if isolated_aggregates.is_isolation_key(key)}


def _type_affinity(requests, options, present):
    """AggregateTypeAffinityFilter: instance_type, the flavors named."""
    if not options.type_affinity:
        return set()
    return present & {'instance_type'}


# Every filter of the engine that reads aggregate metadata.
READERS = (_aggregate_instance_extra_specs, _isolate_aggregates,
           _tenant_isolation, _type_affinity)


def metadata_keys(requests, options, hosts):
    """frozenset of the aggregate metadata keys requests read on hosts."""
    present = {key for host in hosts for aggregate in host.aggregates
               for key in (aggregate.metadata or ())}
    keys = set()
    for reader in READERS:
        keys |= reader(requests, options, present)
    return frozenset(keys)


def host_metadata(host, keys):
    """{key: set of values} of host's aggregates, of keys only."""
    return aggregate_filter.host_aggregate_metadata(host.aggregates, keys)
