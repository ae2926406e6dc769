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
"""The snapshot of a cloud that the capacity engine reads.

Both sources (Placement and the legacy os-hypervisors one) produce the same
snapshot, so the engine does not know where the numbers came from: a host is
a tree of resource providers with Placement-style inventories and usages,
plus the Nova-side facts Placement does not hold (service state, aggregate
metadata, GPU host aggregates).
"""

import dataclasses
import datetime


@dataclasses.dataclass(frozen=True)
class Inventory:
    """One resource class of one provider, as Placement reports it."""

    total: int
    reserved: int = 0
    min_unit: int = 1
    max_unit: int = 0  # 0 means "total"
    step_size: int = 1
    allocation_ratio: float = 1.0

    @property
    def capacity(self):
        # Placement's own formula: the ratio applies after the reservation.
        return int((self.total - self.reserved) * self.allocation_ratio)

    @property
    def largest_unit(self):
        return self.max_unit or self.total

    def accepts(self, amount):
        """Whether one allocation of this amount is allowed at all."""
        return (self.min_unit <= amount <= self.largest_unit
                and amount % self.step_size == 0)


@dataclasses.dataclass
class Provider:
    """A resource provider: a compute node or one of its children."""

    uuid: str
    name: str
    parent_uuid: str | None = None
    # resource class -> Inventory
    inventories: dict = dataclasses.field(default_factory=dict)
    usages: dict = dataclasses.field(default_factory=dict)  # rc -> int
    traits: frozenset = frozenset()
    generation: int | None = None


@dataclasses.dataclass(frozen=True)
class Aggregate:
    """A Nova host aggregate (only what capacity needs of it)."""

    name: str
    metadata: dict
    uuid: str | None = None


@dataclasses.dataclass(frozen=True)
class GpuPool:
    """GPUs a host has according to GPU host aggregate metadata.

    Clouds that do not report PCI devices to Placement describe their GPU
    hosts with aggregates (gpu=True, gpu_count, gpu_type); usage is then the
    sum of the GPUs requested by the flavors of the servers on the host.
    """

    gpu_type: str
    count: int
    used: int = 0


@dataclasses.dataclass(frozen=True)
class SchedulerFigures:
    """What Nova's scheduler weighs a compute node by (its HostState).

    From the node's own record, which os-hypervisors shows up to
    microversion 2.87, but for what only the node's stats in its cell
    database say (from_stats); Placement holds none of these as the
    scheduler reads them (disk_available_least is the driver's). None:
    not reported.
    """

    free_ram_mb: int
    free_disk_gb: int
    disk_available_least: int | None
    vcpus: int
    vcpus_used: int
    io_ops: int
    hypervisor_version: int | None = None
    #: Failed builds since the last success (BuildFailureWeigher), None
    #: when unknown.
    failed_builds: int | None = None
    #: Free PCI devices of the node's pools (PCIWeigher), and the
    #: node's own cpu_allocation_ratio (CPUWeigher); None: unknown.
    pci_free: int | None = None
    cpu_ratio: float | None = None
    #: Whether io_ops, failed_builds and the two above are the
    #: scheduler's own, from the node's row in its cell database; else
    #: io_ops is os-hypervisors' current_workload (builds under way),
    #: which the scheduler's count (builds since the node's last audit)
    #: is not.
    from_stats: bool = False


@dataclasses.dataclass
class Host:
    """A compute host as the Nova scheduler sees it."""

    name: str  # the compute service host, as aggregates list it
    node: str  # the hypervisor node name (often an FQDN)
    enabled: bool = True
    up: bool = True
    availability_zone: str | None = None
    aggregates: list = dataclasses.field(default_factory=list)
    providers: list = dataclasses.field(default_factory=list)  # root first
    gpu_pools: list = dataclasses.field(default_factory=list)
    # Why the source could not read this host's resources (an answer it
    # could not use), or None. Such a host is kept, with no providers, so
    # that every flavor names it as excluded instead of counting less.
    unreadable: str | None = None
    # Instances on the compute node as the scheduler counts them
    # (HostState.num_instances: the node's running_vms, soft-deleted
    # servers included).
    num_instances: int = 0
    # The most instances the scheduler lets on the host
    # (instance_caps.py), None for no such limit.
    max_instances: int | None = None
    # The compute node's NUMA cells with their usage (numa_fit.HostNuma,
    # NO_TOPOLOGY when it reports none), None when unknown: they are only
    # in Nova's cell databases (worker/cell_databases.py).
    numa: object = None
    # The node's SchedulerFigures, None when not read (set checks only).
    figures: SchedulerFigures | None = None

    @property
    def root(self):
        return self.providers[0] if self.providers else None

    @property
    def traits(self):
        return self.root.traits if self.root else frozenset()


@dataclasses.dataclass
class Flavor:
    """A Nova flavor with its extra specs."""

    id: str
    name: str
    vcpus: int
    ram: int
    disk: int
    ephemeral: int = 0
    swap: int = 0
    is_public: bool = True
    disabled: bool = False
    extra_specs: dict = dataclasses.field(default_factory=dict)
    description: str | None = None
    # The projects a private flavor is shared with (os-flavor-access);
    # None when unknown: then only admins may see the flavor.
    projects: tuple | None = None


@dataclasses.dataclass
class Snapshot:
    """Everything one refresh read from the cloud."""

    source: str
    flavors: list
    hosts: list
    collected_at: datetime.datetime = dataclasses.field(
        default_factory=lambda: datetime.datetime.now(datetime.timezone.utc))
    # Data the collector skipped, one human-readable line each.
    problems: list = dataclasses.field(default_factory=list)
    api_calls: int = 0
    # Every host aggregate (model.Aggregate), hosts or not: the tenant
    # filters read aggregates that have none (tenancy.py).
    aggregates: list = dataclasses.field(default_factory=list)
    # The resource classes the source can see at all, or None when it sees
    # every class Placement has (a flavor asking for another one is marked
    # unsupported rather than counted as 0 of 0 without a word).
    observable: frozenset | None = None
