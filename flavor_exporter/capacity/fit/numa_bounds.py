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
"""A flavor's counts bounded by NUMATopologyFilter, host by host.

Placement counts what a host's inventories allow; a flavor with a guest
NUMA topology (guest_numa) must also fit the host's NUMA cells
(numa_fit). Every server takes from both, so a host starts the smaller
of the two counts. Where a host's cells are unknown (no cell database
configured, or the host not in it) the Placement count stands and the
flavor says so in one line.
"""

import dataclasses

import numpy

#: The limit a host is given when its NUMA cells stop the flavor first.
LIMIT = 'NUMA cells'


def host_counts(host, counter, total, available):
    """(total, available, limited) of one host, or None when unknown.

    counter: the numa_fit.Counts of the request's guest; limited says
    whether the NUMA cells stop the host before Placement does.
    """
    if host.numa is None:
        return None
    numa_total = counter.count(host.numa.emptied(), total)
    numa_available = counter.count(host.numa, available)
    return numa_total, numa_available, numa_available < available


def group_fit(found, group, counter):
    """found (a vector_fit.GroupFit) bounded host by host, or None.

    None when the group's NUMA cells are unknown. The hosts of a group
    have the same empty cells (host_groups), so the group keeps one total.
    """
    if group.representative.numa is None:
        return None
    total = counter.count(group.representative.numa.emptied(), found.total)
    available = numpy.fromiter(
        (counter.count(host.numa, int(count))
         for host, count in zip(group.hosts, found.available)),
        dtype=found.available.dtype, count=len(group.hosts))
    limits, labels = found.limits, found.labels
    limited = available < found.available
    if limited.any():
        labels = list(labels) + [LIMIT]
        limits = numpy.where(limited, len(labels) - 1, limits)
    return dataclasses.replace(found, total=total, available=available,
                               limits=limits, labels=labels)


def unsupported(guest, unknown, hosts, enabled):
    """The flavor's line when its NUMA counts are not modelled, or None.

    unknown: hosts counted whose NUMA cells are unknown, of hosts counted.
    """
    if not enabled:
        return ('%s: NUMATopologyFilter is not in [capacity] '
                "(numa_topology_filter = false), so only the compute's "
                'claim checks the host NUMA cells; not modelled'
                % guest.describe())
    if unknown:
        return ('%s must fit host NUMA cells (NUMATopologyFilter); not '
                'modelled on %d of %d hosts whose cells are unknown (set '
                '[openstack] cell_database_connections)'
                % (guest.describe(), unknown, hosts))
    return None
