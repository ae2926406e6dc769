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
"""NUMA cells for the synthetic cloud's hosts, as a cell database has them.

Each host of synthetic_cloud gets two cells, as a two-socket server with
SMT reports them: its shared CPUs (VCPU inventory) and dedicated ones
(PCPU) split over the cells as pairs of thread siblings, its memory split
too, 1 GiB pages on the hosts that pin CPUs. Usage follows the host's
Placement usage (memory, shared CPUs, the first dedicated CPUs pinned),
spread unevenly over the cells, so that hosts with different usage have
different rows: the reader and the counts cannot lean on few states more
than a real cloud lets them.

    rows(cloud) -> [(host, hypervisor_hostname, numa_topology JSON,
                     cpu_allocation_ratio, ram_allocation_ratio)]
"""

import json

# 1 GiB pages per cell of the hosts that pin CPUs.
HUGE_PAGES_PER_CELL = 64


def _object(name, data, version):
    return {'nova_object.name': name, 'nova_object.namespace': 'nova',
            'nova_object.version': version, 'nova_object.data': data}


def _cell(index, shared, dedicated, memory_mb, huge, used):
    """One NUMACell primitive; used: (memory MB, shared CPUs, pinned)."""
    memory_used, cpus_used, pinned = used
    cpus = shared + dedicated
    small = (memory_mb - huge * 1024) * 256
    pages = [_object('NUMAPagesTopology', {
        'size_kb': 4, 'total': small, 'reserved': 0,
        'used': min(small, memory_used * 256)}, '1.1')]
    if huge:
        pages.append(_object('NUMAPagesTopology', {
            'size_kb': 1048576, 'total': huge, 'used': 0, 'reserved': 0},
            '1.1'))
    return _object('NUMACell', {
        'id': index, 'socket': index, 'cpuset': shared,
        'pcpuset': dedicated, 'memory': memory_mb,
        'memory_usage': memory_used, 'cpu_usage': cpus_used,
        'pinned_cpus': pinned,
        'siblings': [cpus[i:i + 2] for i in range(0, len(cpus), 2)],
        'mempages': pages,
        'network_metadata': _object('NetworkMetadata', {
            'physnets': [], 'tunneled': False}, '1.0')}, '1.5')


def topology(host, root):
    """The numa_topology column of one synthetic_cloud.Host."""
    inventories, usages = root.inventories, root.usages
    vcpus = inventories['VCPU']['total']
    pcpus = inventories.get('PCPU', {}).get('total', 0)
    memory = host.memory_gb * 1024 // 2
    huge = HUGE_PAGES_PER_CELL if pcpus else 0
    # Usage lands unevenly: two thirds on the first cell.
    memory_used = usages.get('MEMORY_MB', 0)
    shared_used = usages.get('VCPU', 0)
    pinned_used = usages.get('PCPU', 0)
    cells = []
    for index in range(2):
        share = 2 / 3 if index == 0 else 1 / 3
        shared = list(range(index * vcpus // 2, (index + 1) * vcpus // 2))
        first = vcpus + index * pcpus // 2
        dedicated = list(range(first, first + pcpus // 2))
        pinned = dedicated[:min(len(dedicated), round(pinned_used * share))]
        cells.append(_cell(index, shared, dedicated, memory, huge, (
            min(memory, round(memory_used * share)),
            round(shared_used * share), pinned)))
    return json.dumps(_object('NUMATopology', {'cells': cells}, '1.2'))


def rows(cloud):
    """compute_nodes rows of every host of cloud."""
    return [(host.name, host.node, topology(host, cloud.providers[host.uuid]),
             4.0, 1.0) for host in cloud.hosts]
