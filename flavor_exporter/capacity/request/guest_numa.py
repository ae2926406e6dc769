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
"""The guest NUMA topology Nova builds from a flavor.

Nova's API runs nova.virt.hardware.numa_get_constraints on every boot. A
flavor gets a guest NUMA topology when it asks for NUMA nodes
(hw:numa_nodes), pins CPUs (hw:cpu_policy dedicated or mixed, or
resources:PCPU), asks for a memory page size (hw:mem_page_size) or for
vPMEM (hw:pmem); then NUMATopologyFilter must fit each guest cell in a
host NUMA cell of its own (numa_fit.py). The cells split the guest's CPUs
and memory evenly, or as hw:numa_cpus.N and hw:numa_mem.N (MiB) say.
The image's hw_numa_* properties are not the flavor's: not read here.
"""

import dataclasses

from oslo_utils import strutils
from oslo_utils import units

from flavor_exporter.capacity.request import cpu_policy

# hw:mem_page_size's words, as Nova encodes them.
SMALL, LARGE, ANY = -1, -2, -3
_PAGE_WORDS = {'small': SMALL, 'large': LARGE, 'any': ANY}
# Nova reads hw:numa_cpus.N / hw:numa_mem.N for N below this, in order,
# up to the first missing one (ImageMetaProps.NUMA_NODES_MAX).
_NODES_MAX = 128


@dataclasses.dataclass(frozen=True)
class GuestCell:
    """One guest NUMA cell: its shared and its pinned CPUs, its memory."""

    cpus: frozenset  # guest CPU ids on shared host CPUs
    pcpus: frozenset  # guest CPU ids pinned to dedicated host CPUs
    memory: int  # MiB


@dataclasses.dataclass(frozen=True)
class Guest:
    """A flavor's guest NUMA topology, as NUMATopologyFilter sees it."""

    cells: tuple  # GuestCell, guest cell 0 first
    pagesize: int | None  # KiB, or SMALL/LARGE/ANY; None: not asked
    policy: str | None  # None, shared, dedicated or mixed
    thread_policy: str | None  # prefer, isolate, require or None
    emulator_isolated: bool  # one more dedicated CPU, on guest cell 0

    @property
    def pinned(self):
        return self.policy in ('dedicated', 'mixed')

    def describe(self):
        """What the flavor asks of host NUMA cells, in a few words."""
        words = ['%d guest NUMA node%s' % (len(self.cells),
                                           's' if len(self.cells) > 1
                                           else '')]
        if self.pinned:
            words.append('pinned CPUs')
        if self.pagesize is not None:
            words.append('%s pages' % (
                {SMALL: 'small', LARGE: 'large', ANY: 'any'}.get(
                    self.pagesize) or '%d KiB' % self.pagesize))
        return ', '.join(words)


def _page_size(value):
    """hw:mem_page_size in KiB or a word (flavor_features checked it)."""
    if value in _PAGE_WORDS:
        return _PAGE_WORDS[value]
    if value.isdigit():
        return int(value)
    return strutils.string_to_bytes(value, return_int=True) // units.Ki


def _numbered(specs, key, parse):
    """hw:numa_cpus.N or hw:numa_mem.N from N = 0 up to the first gap."""
    found = []
    for node in range(_NODES_MAX):
        name = '%s.%d' % (key, node)
        if name not in specs:
            break
        found.append(parse(name, specs[name]))
    return found or None


def guest(flavor, specs, cpu, fail):
    """The Guest of flavor, or None when Nova makes no NUMA topology.

    :param flavor: a model.Flavor.
    :param specs: its extra specs; cpu_policy and flavor_features have
        checked what they read.
    :param cpu: its cpu_policy.CpuRequest.
    :param fail: fail(key, reason), called on what Nova would refuse.
    """
    nodes = specs.get('hw:numa_nodes')
    nodes = int(nodes) if nodes else None
    pagesize = (_page_size(specs['hw:mem_page_size'])
                if specs.get('hw:mem_page_size') else None)
    pmem = bool((specs.get('hw:pmem') or '').strip(', '))
    if not (nodes or pagesize or pmem or cpu.effective_policy in (
            'dedicated', 'mixed')):
        return None
    nodes = nodes or 1

    def cpus_of(key, value):
        return cpu_policy.parse_cpu_set(value, fail, key)

    def memory_of(key, value):
        if not strutils.is_int_like(value):
            fail(key, '%r is not a number of MiB' % value)
        return int(value)

    cpu_lists = _numbered(specs, 'hw:numa_cpus', cpus_of)
    memory_lists = _numbered(specs, 'hw:numa_mem', memory_of)
    if cpu_lists is None and memory_lists is None:
        if flavor.vcpus % nodes or flavor.ram % nodes:
            fail('hw:numa_nodes', '%d vCPUs and %d MiB do not split evenly '
                 'over %d NUMA nodes' % (flavor.vcpus, flavor.ram, nodes))
        per_node = flavor.vcpus // nodes
        cpu_lists = [set(range(node * per_node, (node + 1) * per_node))
                     for node in range(nodes)]
        memory_lists = [flavor.ram // nodes] * nodes
    elif (cpu_lists is None or memory_lists is None
          or len(cpu_lists) != nodes or len(memory_lists) != nodes):
        fail('hw:numa_cpus.0', 'hw:numa_cpus.N and hw:numa_mem.N must be '
             'given for each of the %d NUMA nodes' % nodes)
    else:
        _check_manual(flavor, cpu_lists, memory_lists, fail)
    pinned = cpu.dedicated_cpus
    cells = tuple(GuestCell(cpus=frozenset(cpus - pinned),
                            pcpus=frozenset(cpus & pinned), memory=memory)
                  for cpus, memory in zip(cpu_lists, memory_lists))
    return Guest(cells=cells, pagesize=pagesize,
                 policy=cpu.effective_policy,
                 thread_policy=cpu.thread_policy,
                 emulator_isolated=cpu.emulator_isolated)


def _check_manual(flavor, cpu_lists, memory_lists, fail):
    """What _get_numa_topology_manual refuses."""
    unassigned = set(range(flavor.vcpus))
    for node, cpus in enumerate(cpu_lists):
        key = 'hw:numa_cpus.%d' % node
        for cpu in sorted(cpus):
            if cpu >= flavor.vcpus:
                fail(key, 'vCPU %d is out of range 0-%d'
                     % (cpu, flavor.vcpus - 1))
            if cpu not in unassigned:
                fail(key, 'vCPU %d is in two NUMA nodes' % cpu)
            unassigned.discard(cpu)
    if unassigned:
        fail('hw:numa_cpus.0', 'vCPUs %s are in no NUMA node'
             % ','.join(map(str, sorted(unassigned))))
    if sum(memory_lists) != flavor.ram:
        fail('hw:numa_mem.0', 'the nodes have %d MiB, the flavor %d'
             % (sum(memory_lists), flavor.ram))
