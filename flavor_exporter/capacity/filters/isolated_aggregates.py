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

"""Aggregates kept for the flavors requiring their traits.

Nova's request filter isolate_aggregates ([scheduler]
enable_isolated_aggregate_filtering, off by default; the same on 2024.1
and 2026.2) forbids Placement every aggregate that has some metadata
``trait:T=required`` whose T the request does not require
(AggregateList.get_non_matching_by_metadata_keys): a host in any such
aggregate is left out. The traits it compares are
ResourceRequest.all_required_traits, those of every request group (the
flavor's, numbered or not, the features' and the PCI aliases'), not the
traits request filters add to the compute node (root_required), nor the
OWNER_NOVA that owner_nova_filter, running after it, adds to PCI groups.
"""

PREFIX = 'trait:'
REQUIRED = 'required'


def is_isolation_key(key):
    """Whether an aggregate metadata key is one isolate_aggregates reads."""
    return key.startswith(PREFIX)


def isolating_traits(metadata):
    """Traits host's aggregates require of a request to keep the host.

    metadata: {key: set of values} of the host's aggregates
    (aggregate_filter.host_aggregate_metadata). Nova compares the whole
    value in SQL; values here are split on ',' as its filters split them,
    which differs only for a value listing 'required' with other words.
    """
    return frozenset(key[len(PREFIX):] for key, values in metadata.items()
                     if is_isolation_key(key) and REQUIRED in values)


def isolated(required_traits, metadata):
    """Whether a host of these aggregates is forbidden to the request."""
    return not isolating_traits(metadata) <= required_traits
