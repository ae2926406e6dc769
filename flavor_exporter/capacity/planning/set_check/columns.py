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
"""What the scheduler reads of every host, as arrays, and what weighers see.

Made once per report and copied for each check (worker/checks.py keeps
it between the checks of a report): each compute node's figures, else
Placement's, the hosts' zones and weight multipliers; weigher_values
says which of them each of Nova's weighers reads.
"""

import numpy

from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity.weights import weighers


class Columns:
    """What the scheduler reads of every host, as arrays (one report).

    Made once per report and copied for each check: the weighers' inputs
    (from each compute node's figures, else from Placement), the hosts'
    zones and multipliers.
    """

    def __init__(self, report, settings):
        hosts = report.hosts
        self.hosts = hosts
        self.position = {host.name: i for i, host in enumerate(hosts)}
        n = len(hosts)
        self.free_ram = numpy.zeros(n, dtype=numpy.int64)
        self.free_disk_gb = numpy.zeros(n, dtype=numpy.int64)
        # disk_available_least, +inf where the node reports none.
        self.least_gb = numpy.full(n, numpy.inf)
        self.vcpus = numpy.zeros(n, dtype=numpy.int64)
        self.cpu_ratio = numpy.ones(n)
        self.vcpus_used = numpy.zeros(n, dtype=numpy.int64)
        self.io_ops = numpy.zeros(n, dtype=numpy.int64)
        self.instances = numpy.zeros(n, dtype=numpy.int64)
        self.pci_free = numpy.zeros(n, dtype=numpy.int64)
        self.version = numpy.zeros(n, dtype=numpy.int64)
        self.failed_builds = numpy.zeros(n, dtype=numpy.int64)
        # Hosts weighed without the node's figures, without its stats.
        self.without_figures = self.without_stats = 0
        for i, host in enumerate(hosts):
            self._read(i, host)
        self.zones = [host.availability_zone for host in hosts]
        self.multipliers = weighers.host_multipliers(settings, hosts)
        self.unrestricted = set(report.unrestricted_zones)

    def _read(self, i, host):
        root = host.root
        inventories = root.inventories if root else {}
        usages = root.usages if root else {}

        def free(rc):
            inv = inventories.get(rc)
            return inv.total - inv.reserved - usages.get(rc, 0) if inv \
                else 0
        vcpu = inventories.get('VCPU')
        figures = host.figures
        if figures is not None and figures.cpu_ratio:
            self.cpu_ratio[i] = figures.cpu_ratio
        elif vcpu is not None:
            self.cpu_ratio[i] = vcpu.allocation_ratio
        if figures is not None:
            self.free_ram[i] = figures.free_ram_mb
            self.free_disk_gb[i] = figures.free_disk_gb
            if figures.disk_available_least is not None:
                self.least_gb[i] = figures.disk_available_least
            self.vcpus[i] = figures.vcpus
            self.vcpus_used[i] = figures.vcpus_used
            self.io_ops[i] = figures.io_ops
            self.version[i] = figures.hypervisor_version or 0
            self.failed_builds[i] = figures.failed_builds or 0
            self.without_stats += not figures.from_stats
        elif root is not None:
            self.without_figures += 1
            self.free_ram[i] = free('MEMORY_MB')
            self.free_disk_gb[i] = free('DISK_GB')
            self.vcpus[i] = sum(inventories[rc].total for rc in
                                ('VCPU', 'PCPU') if rc in inventories)
            self.vcpus_used[i] = usages.get('VCPU', 0) + usages.get('PCPU',
                                                                    0)
        self.instances[i] = host.num_instances
        pci = [p for p in host.providers if fit.MANAGED_PCI_TRAIT in p.traits]
        if figures is not None and figures.pci_free is not None:
            self.pci_free[i] = figures.pci_free
        elif pci:
            self.pci_free[i] = sum(inv.capacity - p.usages.get(rc, 0)
                                   for p in pci
                                   for rc, inv in p.inventories.items())
        else:
            self.pci_free[i] = sum(pool.count - pool.used
                                   for pool in host.gpu_pools)

    def copy(self):
        """A copy whose changing columns can change apart."""
        other = object.__new__(Columns)
        other.__dict__.update(self.__dict__)
        for name in ('free_ram', 'free_disk_gb', 'vcpus_used', 'io_ops',
                     'instances', 'pci_free'):
            setattr(other, name, getattr(self, name).copy())
        return other

    def disk_mb(self):
        """HostState.free_disk_mb as a new request reads each node."""
        least = numpy.minimum(self.free_disk_gb.astype(numpy.float64),
                              self.least_gb)
        return least.astype(numpy.int64) * 1024

    def weigher_values(self, weigher, candidates, disk_mb, members,
                       policy):
        """A weigher's raw value of each candidate host, or None.

        None: 0 for every host, the weigher adds nothing. disk_mb:
        disk_mb() as the request reads it; members: the server group's
        members per host; policy: the group's, or None.
        """
        c = self
        name = weigher.name
        if name == 'RAMWeigher':
            return c.free_ram[candidates]
        if name == 'CPUWeigher':
            return (c.vcpus[candidates] * c.cpu_ratio[candidates]
                    - c.vcpus_used[candidates])
        if name == 'DiskWeigher':
            return disk_mb[candidates]
        if name == 'IoOpsWeigher':
            return c.io_ops[candidates]
        if name == 'NumInstancesWeigher':
            return c.instances[candidates]
        if name == 'PCIWeigher':
            return weighers.pci_value(c.pci_free[candidates])
        if name == 'HypervisorVersionWeigher':
            return c.version[candidates]
        if name == 'BuildFailureWeigher':
            return c.failed_builds[candidates]
        if name == 'ServerGroupSoftAffinityWeigher' and \
                policy == 'soft-affinity':
            return members[candidates]
        if name == 'ServerGroupSoftAntiAffinityWeigher' and \
                policy == 'soft-anti-affinity':
            return -members[candidates]
        return None  # 0 for every host: adds nothing
