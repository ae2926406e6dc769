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
"""Translate a flavor into the request Nova's scheduler makes for it.

The rules follow Nova's scheduler (nova.scheduler.utils.ResourceRequest
.from_request_spec and resources_from_request_spec), the checks Nova's API
makes before a boot reaches the scheduler (nova.virt.hardware
.numa_get_constraints, nova.pci.request), the request filters that add
traits (nova.scheduler.request_filter) and what Placement refuses to answer
(placement.lib, placement.handlers.allocation_candidate). Only what the
flavor alone decides is modelled: image properties, boot from volume, ports
and server groups belong to one boot, not to the flavor.

Where Nova's scheduler merely logs a malformed resources/trait/group_policy
extra spec and carries on without it, this module raises InvalidExtraSpec,
as Nova's API does when such a spec is set (microversion 2.86 and later): a
flavor whose numbers cannot be trusted is reported, not counted.

This module holds the request (the dataclasses), the granular
resources[$S]/trait[$S]/group_policy specs, the PciDemands and the assembly
in from_request_spec's order; build_request is the entry point. What Nova
spreads over half a dozen modules is split likewise:

- aggregate_filter: the keys AggregateInstanceExtraSpecsFilter checks.
- cpu_policy: hw:cpu_policy and its companions -> VCPU/PCPU, HT trait.
- flavor_features: the other hw:*/os:* specs that add resources or traits.
- pci_alias: [pci] alias, pci_passthrough:alias syntax, PCI class/traits.
- unmodelled: what decides placement outside Placement, as notes.
- vocabulary: standard resource classes, name rules, enumerated values.
"""

import dataclasses
import math
import re

from flavor_exporter.capacity.filters import aggregate_filter
from flavor_exporter.capacity.filters import cloud_filters
from flavor_exporter.capacity.request import cpu_policy
from flavor_exporter.capacity.request import flavor_features
from flavor_exporter.capacity.request import guest_numa
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.capacity.request import unmodelled
from flavor_exporter.capacity.request import vocabulary

# resources[$S]:$RC and trait[$S]:$TRAIT, $S as Placement 1.33 allows.
_GRANULAR_KEY = re.compile(r'(resources|trait)([a-zA-Z0-9_-]{1,64})?:(.*)')

VGPU = 'VGPU'


class InvalidExtraSpec(ValueError):
    """A flavor extra spec Nova would reject; the flavor is skipped."""

    def __init__(self, flavor_name, key, reason):
        self.flavor_name = flavor_name
        self.key = key
        self.reason = reason
        super().__init__('flavor %r: extra spec %r: %s'
                         % (flavor_name, key, reason))


@dataclasses.dataclass
class RequestGroup:
    """One group of a Placement allocation candidates query."""

    resources: dict  # resource class -> amount
    required_traits: frozenset = frozenset()
    forbidden_traits: frozenset = frozenset()
    suffix: str = ''  # '' is the unnumbered group

    @property
    def granular(self):
        """Whether one provider must satisfy the whole group."""
        return bool(self.suffix)


@dataclasses.dataclass(frozen=True)
class PciDemand:
    """Devices of one alias that one instance needs."""

    alias: str
    count: int
    resource_class: str | None  # None: alias not in [pci] alias
    traits: frozenset = frozenset()
    # Those of traits that the cloud's request filters add (OWNER_NOVA),
    # not the alias.
    cloud_traits: frozenset = frozenset()


@dataclasses.dataclass
class ResourceRequest:
    """What one instance of a flavor needs from one host."""

    groups: list  # RequestGroup, the unnumbered one first
    group_policy: str | None = None
    pci: list = dataclasses.field(default_factory=list)  # PciDemand
    # aggregate_instance_extra_specs (and unscoped) keys -> required value.
    aggregate_specs: dict = dataclasses.field(default_factory=dict)
    # What the engine cannot model (NUMA topology, ...), one line each:
    # the numbers may be higher than what Nova would start.
    unsupported: list = dataclasses.field(default_factory=list)
    # How a number was counted where that is not from Placement inventory
    # (GPUs from host aggregates), one line each: information, not a gap.
    notes: list = dataclasses.field(default_factory=list)
    # Traits Nova's request filters require on the compute node (root)
    # provider because of this flavor (Placement's root_required).
    root_required: frozenset = frozenset()
    # Granular groups the flavor itself defines, counted as Nova counts
    # them for the group_policy default: before zero amounts are dropped.
    flavor_group_count: int = 0
    # hw:cpu_policy=dedicated only: the VCPU instead of PCPU query Nova
    # also makes unless [workarounds]disable_fallback_pcpu_query is set.
    # It can only add capacity on hosts that report no PCPU inventory
    # (legacy vcpu_pin_set hosts): elsewhere NUMATopologyFilter pins into
    # the same dedicated CPUs that PCPU inventory counts.
    fallback: 'ResourceRequest | None' = None
    flavor_name: str | None = None
    # The guest NUMA topology NUMATopologyFilter must fit in host NUMA
    # cells (guest_numa.Guest), None when Nova makes none.
    numa: object = None

    @property
    def all_required_traits(self):
        """Nova's ResourceRequest.all_required_traits of this request.

        The required traits of every request group, the PCI aliases'
        included (isolate_aggregates compares them), without those the
        cloud's request filters add to PCI groups (PciDemand.cloud_traits).
        """
        traits = set()
        for group in self.groups:
            traits |= group.required_traits
        for demand in self.pci:
            traits |= demand.traits - demand.cloud_traits
        return frozenset(traits)

    @property
    def gpu(self):
        """(type, count) of the GPUs one instance gets, or None.

        VGPU in any group gives ('VGPU', total); otherwise PCI aliases give
        (their names joined by ',', total device count).
        """
        vgpus = sum(group.resources.get(VGPU, 0) for group in self.groups)
        if vgpus:
            return VGPU, vgpus
        if self.pci:
            names = list(dict.fromkeys(demand.alias for demand in self.pci))
            return ','.join(names), sum(demand.count for demand in self.pci)
        return None

    def pci_groups(self):
        """The request groups Nova adds for PCI devices in Placement.

        With [filter_scheduler]pci_in_placement, Nova
        (RequestSpec.generate_request_groups_from_pci_requests) turns every
        requested device into its own granular group of exactly one unit
        of the alias's resource class, requiring the alias's traits: a
        flavor asking ``a100:2`` sends two groups ``{CUSTOM_..: 1}`` so the
        two devices may come from different providers (one provider per
        physical device or PF). No same_subtree is sent for them, so the
        devices can come from anywhere in the compute node's tree. Their
        traits include what the cloud's request filters add to PCI groups
        (cloud_filters: OWNER_NOVA on 2026.2).

        Demands whose alias is not configured here are left out: Nova
        would refuse the boot, but this service still matches them against
        GPU host aggregates.
        """
        taken = {group.suffix for group in self.groups}
        groups = []
        for index, demand in enumerate(self.pci):
            if demand.resource_class is None:
                continue
            for device in range(demand.count):
                suffix = 'pci%d-%d' % (index, device)
                while suffix in taken:
                    suffix = '_' + suffix
                taken.add(suffix)
                groups.append(RequestGroup(
                    resources={demand.resource_class: 1},
                    required_traits=frozenset(demand.traits),
                    suffix=suffix))
        return groups

    def placement_groups(self, pci_in_placement=False):
        """Every group of Nova's allocation candidates query."""
        groups = list(self.groups)
        if pci_in_placement:
            groups.extend(self.pci_groups())
        return groups

    def placement_group_policy(self, pci_in_placement=False):
        """The group_policy Nova sends to Placement.

        nova.scheduler.utils.resources_from_request_spec: with two or more
        granular groups and no group_policy in the flavor, Nova uses 'none'
        when the flavor itself defined at most one granular group (the
        others come from PCI devices or ports); otherwise Placement refuses
        the query and nothing can be booted, which raises InvalidExtraSpec.
        'isolate' keeps every granular group, PCI ones included, on a
        provider of its own.
        """
        if self.group_policy:
            return self.group_policy
        granular = sum(1 for group in self.placement_groups(pci_in_placement)
                       if group.granular)
        if granular < 2:
            return None
        if self.flavor_group_count <= 1:
            return 'none'
        raise InvalidExtraSpec(
            self.flavor_name, 'group_policy',
            'required by Placement with %d granular groups' % granular)


@dataclasses.dataclass
class _Group:
    resources: dict = dataclasses.field(default_factory=dict)
    required: set = dataclasses.field(default_factory=set)
    forbidden: set = dataclasses.field(default_factory=set)


class _Builder:
    """The groups of one query, as Nova's ResourceRequest accumulates them."""

    def __init__(self, groups=None):
        self.groups = {}
        for suffix, group in (groups or {}).items():
            self.groups[suffix] = _Group(dict(group.resources),
                                         set(group.required),
                                         set(group.forbidden))

    def group(self, suffix=''):
        return self.groups.setdefault(suffix, _Group())

    def set_resource(self, rc, amount, suffix=''):
        self.group(suffix).resources[rc] = amount

    def add_trait(self, trait, value, suffix=''):
        group = self.group(suffix)
        (group.required if value == 'required' else group.forbidden).add(
            trait)

    def requested(self, rc):
        """Whether any group names rc, even with 0 (Nova's merge)."""
        return any(rc in group.resources for group in self.groups.values())

    def asks_for(self, rc):
        """Whether any group asks for more than 0 of rc."""
        return any(group.resources.get(rc) for group in self.groups.values())

    def finish(self, fail, pci=False):
        """Drop zero amounts and empty groups; refuse what Placement does.

        An empty query is refused too, unless PCI devices may fill it (with
        PCI in Placement they are groups of their own).
        """
        result = []
        for suffix in sorted(self.groups):
            group = self.groups[suffix]
            resources = {rc: n for rc, n in group.resources.items() if n}
            if not (resources or group.required or group.forbidden):
                continue
            if not resources:
                fail('trait%s:%s' % (suffix, sorted(group.required
                                                    | group.forbidden)[0]),
                     'a request group with traits but no resources is '
                     'refused by Placement')
            both = group.required & group.forbidden
            if both:
                fail('trait%s:%s' % (suffix, sorted(both)[0]),
                     'both required and forbidden in one group')
            result.append(RequestGroup(
                resources=resources,
                required_traits=frozenset(group.required),
                forbidden_traits=frozenset(group.forbidden),
                suffix=suffix))
        if not result and not pci:
            fail('resources', 'the flavor requests no resources at all')
        return result


def _parse_amount(value, fail, key):
    try:
        amount = int(value)
    except (TypeError, ValueError):
        fail(key, 'amount %r is not an integer' % (value,))
    if amount < 0:
        fail(key, 'amount %r is negative' % (value,))
    return amount


def _granular_specs(specs, fail):
    """resources[$S]:, trait[$S]: and group_policy, as Nova parses them."""
    builder = _Builder()
    group_policy = None
    for key, value in specs.items():
        if key == 'group_policy':
            if value not in ('none', 'isolate'):
                fail(key, "must be 'none' or 'isolate', not %r" % (value,))
            group_policy = value
            continue
        match = _GRANULAR_KEY.fullmatch(key)
        if not match:
            continue
        prefix, suffix, name = match.groups()
        suffix = suffix or ''
        if prefix == 'resources':
            if not vocabulary.is_resource_class(name):
                fail(key, 'unknown resource class %r' % name)
            builder.set_resource(name, _parse_amount(value, fail, key),
                                 suffix)
        else:
            if not vocabulary.is_trait_name(name):
                fail(key, 'invalid trait name %r' % name)
            if value not in ('required', 'forbidden'):
                fail(key, "must be 'required' or 'forbidden', not %r"
                     % (value,))
            builder.add_trait(name, value, suffix)
    return builder, group_policy


def _pci_demands(specs, aliases, fail, required=frozenset()):
    """The PciDemands of pci_passthrough:alias, and the names asked with 0.

    required: traits the cloud adds to every PCI group (cloud_filters).

    Nova makes a PCI request for 0 devices too, but no Placement group for
    it (RequestSpec.generate_request_groups_from_pci_requests makes one per
    device): no demand here, a note only.
    """
    demands, idle = [], []
    for name, count in pci_alias.requested_counts(specs, fail):
        if not count:
            idle.append(name)
            continue
        alias = aliases.get(name)
        demands.append(PciDemand(
            alias=name, count=count,
            resource_class=alias.placement_resource_class if alias else None,
            traits=(alias.traits | required) if alias else frozenset(),
            cloud_traits=(required - alias.traits) if alias else frozenset()))
    asked = {demand.alias for demand in demands}
    return demands, [name for name in dict.fromkeys(idle)
                     if name not in asked]


def _assemble(flavor, granular, cpu, features, pin, fail, pci):
    """One query's groups, in from_request_spec's order of operations."""
    builder = _Builder(granular.groups)
    if pin:
        if cpu.policy == 'mixed':
            builder.set_resource('VCPU', cpu.vcpus)
        if cpu.pinned:
            builder.set_resource('PCPU', cpu.pcpus)
        if cpu.thread_trait:
            builder.add_trait('HW_CPU_HYPERTHREADING', cpu.thread_trait)
    # Flavor fields fill in only what no group (not even with 0) names.
    if not builder.requested('VCPU') and not builder.requested('PCPU'):
        builder.set_resource('VCPU', flavor.vcpus)
    if not builder.requested('MEMORY_MB'):
        builder.set_resource('MEMORY_MB', flavor.ram)
    if not builder.requested('DISK_GB'):
        # Swap is in MB; Nova rounds it up to whole GB
        # (compute_utils.convert_mb_to_ceil_gb).
        disk = (flavor.disk + (flavor.ephemeral or 0)
                + math.ceil((flavor.swap or 0) / 1024))
        if disk:
            builder.set_resource('DISK_GB', disk)
    for rc, amount in features.resources.items():
        builder.set_resource(rc, amount)
    for trait, value in features.traits.items():
        builder.add_trait(trait, value)
    return builder.finish(fail, pci=pci)


def build_request(flavor, aliases, cloud=cloud_filters.DEFAULT):
    """The ResourceRequest Nova builds for flavor; InvalidExtraSpec if bad.

    :param flavor: a model.Flavor.
    :param aliases: {name: PciAlias}, as pci_alias.parse_aliases returns.
    :param cloud: what the cloud's request filters add to every request
        (cloud_filters.CloudFilters, read from the snapshot).
    """
    specs = dict(flavor.extra_specs or {})
    aliases = aliases or {}

    def fail(key, reason):
        raise InvalidExtraSpec(flavor.name, key, reason)

    granular, group_policy = _granular_specs(specs, fail)
    flavor_group_count = sum(1 for suffix in granular.groups if suffix)
    cpu = cpu_policy.cpu_request(flavor, specs, fail)
    flavor_features.check_memory_specs(specs, fail)
    features = flavor_features.features(specs, fail, cloud.tpm_model,
                                        cloud.tpm_secret_security)
    pci, idle_aliases = _pci_demands(specs, aliases, fail,
                                     cloud.pci_required)
    numa = guest_numa.guest(flavor, specs, cpu, fail)
    notes = unmodelled.notes(specs, numa is not None, pci, aliases,
                             idle_aliases)

    def request(pin, fail):
        return ResourceRequest(
            groups=_assemble(flavor, granular, cpu, features, pin, fail,
                             bool(pci)),
            group_policy=group_policy,
            pci=list(pci),
            aggregate_specs=aggregate_filter.aggregate_specs(specs),
            unsupported=list(notes),
            root_required=features.root_required | cloud.root_required,
            flavor_group_count=flavor_group_count,
            flavor_name=flavor.name, numa=numa)

    result = request(True, fail)
    # Placement refuses two granular groups without a group_policy; PCI
    # groups alone get Nova's 'none' default (placement_group_policy).
    result.placement_group_policy(pci_in_placement=False)
    if cpu.policy == 'dedicated':
        try:
            result.fallback = request(False, fail)
        except InvalidExtraSpec:
            # Nova ignores a fallback query Placement refuses.
            result.fallback = None
    return result
