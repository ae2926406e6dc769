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
"""How many more instances of a flavor a project's quota lets it start.

Pure: the limits and usage come in (worker/quotas.py reads them), a
headroom in instances comes out, with the quota that limits it named and
notes where Nova would not enforce a limit one might expect it to.

Nova's legacy quotas (nova.quota.DbQuotaDriver): a server create checks
``instances`` + 1, ``cores`` + flavor.vcpus and ``ram`` +
flavor.memory_mb against the project's limits (-1: unlimited), usage
counted as os-quota-sets reports it
(nova.compute.utils.check_num_instances_quota). With [quota]
count_usage_from_placement, cores and ram in use are the project's
Placement allocations of VCPU + PCPU and MEMORY_MB, so an instance adds
what its allocation holds (a PCPU for isolated emulator threads, a
``resources:VCPU`` override), not flavor.vcpus.

Keystone unified limits (nova.limit.placement): ``servers`` + 1 and
``class:<RC>`` + the request's amount of each resource class (merged
over its groups; PCI alias classes only from Nova 34, 2026.2, before
which a limit on them is not checked), each against the project limit,
else the registered limit, else 0. Nova 31 (2025.1) and later treat a
negative limit as unlimited and do not enforce a 0 that is only the
absence of a registered limit unless [quota]
unified_limits_resource_strategy says so (nova.limit.utils
.should_enforce); Nova 29 and 30 enforce every over-limit, -1 included.
"""

import dataclasses

DB = 'nova'
UNIFIED = 'unified_limits'
NOOP = 'none'

#: Nova's legacy quotas checked at a server create, in the order named.
LEGACY = ('instances', 'cores', 'ram')
SERVERS = 'servers'
GROUP_MEMBERS = 'server_group_members'
CLASS = 'class:'


@dataclasses.dataclass(frozen=True)
class UnifiedRules:
    """How the cloud's Nova enforces unified limits ([quota], release)."""

    #: Nova 31 (2025.1) and later: should_enforce and the strategy.
    should_enforce: bool = True
    #: Nova 34 (2026.2): PCI alias classes are in the deltas.
    pci_in_deltas: bool = True
    strategy: str = 'require'
    resource_list: tuple = (SERVERS,)
    count_pcpu_as_vcpu: bool = False


@dataclasses.dataclass
class ProjectQuota:
    """A project's limits and usage, as its cloud's Nova counts them.

    system: DB, UNIFIED or NOOP. For DB: limits and in_use by LEGACY
    name. For UNIFIED: limits ({resource: limit} of the project),
    registered ({resource: default limit}), in_use ({'servers': n,
    'class:RC': n}). read_at: when they were read (seconds since the
    epoch).
    """

    system: str
    limits: dict = dataclasses.field(default_factory=dict)
    in_use: dict = dataclasses.field(default_factory=dict)
    registered: dict = dataclasses.field(default_factory=dict)
    count_usage_from_placement: bool = False
    rules: UnifiedRules = UnifiedRules()
    read_at: float | None = None
    #: DB: the server_group_members quota (-1 unlimited), None if unread.
    group_members: int | None = None

    def group_members_limit(self):
        """The most members a server group may have, None: unlimited."""
        if self.system == UNIFIED:
            found = self.limits.get(GROUP_MEMBERS,
                                    self.registered.get(GROUP_MEMBERS))
        else:
            found = self.group_members
        return None if found is None or found < 0 else found


@dataclasses.dataclass
class Headroom:
    """Instances the quota still allows: None for unlimited."""

    instances: int | None
    limited_by: str | None = None
    notes: list = dataclasses.field(default_factory=list)


def _merged(request):
    """{resource class: amount} of one instance, over all its groups."""
    merged = {}
    for group in request.groups:
        for rc, amount in group.resources.items():
            merged[rc] = merged.get(rc, 0) + amount
    return merged


@dataclasses.dataclass(frozen=True)
class Footprint:
    """What one instance of a flavor counts against a quota system.

    Flavors with the same footprint have the same headroom for any
    project: a project's headroom is counted once per footprint, not once
    per flavor. DB: cores and ram the check adds for the next instance,
    each_cores and each_ram what each adds to the usage counted
    afterwards. UNIFIED: deltas ((name, amount), ...) and the PCI alias
    classes Nova checks no limit on (unchecked); valid: whether Nova
    would accept the flavor at all.
    """

    system: str
    cores: int = 0
    ram: int = 0
    each_cores: int = 0
    each_ram: int = 0
    deltas: tuple = ()
    unchecked: tuple = ()
    valid: bool = True


@dataclasses.dataclass(frozen=True)
class Counting:
    """How the cloud's Nova counts quotas (its nova.conf [quota])."""

    system: str = DB
    rules: UnifiedRules = UnifiedRules()
    count_usage_from_placement: bool = False


def footprint(flavor, request, counting=Counting()):
    """The Footprint of flavor (its request None when invalid)."""
    system = counting.system
    rules = counting.rules
    if system == DB:
        cores, ram = flavor.vcpus, flavor.ram
        each_cores, each_ram = cores, ram
        if counting.count_usage_from_placement and request is not None:
            merged = _merged(request)
            each_cores = merged.get('VCPU', 0) + merged.get('PCPU', 0)
            each_ram = merged.get('MEMORY_MB', 0)
        return Footprint(DB, cores, ram, each_cores, each_ram)
    if system != UNIFIED:
        return Footprint(system)
    if request is None:
        return Footprint(UNIFIED, valid=False)
    unchecked = () if rules.pci_in_deltas else tuple(sorted({
        CLASS + demand.resource_class for demand in request.pci
        if demand.resource_class}))
    return Footprint(UNIFIED, deltas=tuple(unified_deltas(
        request, rules).items()), unchecked=unchecked)


def _count(limit, used, first, each):
    """Instances that fit: used + first + (n - 1) * each <= limit.

    first: what the check adds for the next one; each: what one adds to
    the usage counted afterwards. None: unlimited.
    """
    if limit is None or limit < 0:
        return None
    if used + first > limit:
        return 0
    if each <= 0:
        return None
    return 1 + (limit - used - first) // each


def _smallest(counts):
    """Headroom of {name: count or None}: the smallest, first name wins."""
    found = Headroom(None)
    for name, count in counts.items():
        if count is not None and (found.instances is None
                                  or count < found.instances):
            found = Headroom(count, name)
    return found


def legacy_headroom(quota, print_):
    """DbQuotaDriver: instances, cores and ram, as the API checks them."""
    used = quota.in_use
    return _smallest({
        'instances': _count(quota.limits.get('instances'),
                            used.get('instances', 0), 1, 1),
        'cores': _count(quota.limits.get('cores'), used.get('cores', 0),
                        print_.cores, print_.each_cores),
        'ram': _count(quota.limits.get('ram'), used.get('ram', 0),
                      print_.ram, print_.each_ram)})


def unified_deltas(request, rules):
    """{resource name: amount} one instance checks (Nova's _get_deltas)."""
    merged = _merged(request)
    if rules.pci_in_deltas:
        for demand in request.pci:
            if demand.resource_class:
                merged[demand.resource_class] = (
                    merged.get(demand.resource_class, 0) + demand.count)
    deltas = {SERVERS: 1}
    for rc, amount in sorted(merged.items()):
        if amount:
            deltas[CLASS + rc] = amount
    return deltas


def _enforced_at_zero(name, quota):
    """Whether Nova 31+ enforces an over-limit whose limit reads 0."""
    if name in quota.registered:
        return True
    listed = name in quota.rules.resource_list
    return listed if quota.rules.strategy == 'require' else not listed


def unified_headroom(quota, print_):
    """UnifiedLimitsDriver: servers and every class of the request."""
    rules = quota.rules
    deltas = dict(print_.deltas)
    counts = {}
    notes = []
    for name, delta in deltas.items():
        limit = quota.limits.get(name, quota.registered.get(name))
        used = quota.in_use.get(name, 0)
        if (name == CLASS + 'VCPU' and rules.count_pcpu_as_vcpu
                and CLASS + 'PCPU' not in deltas):
            used += quota.in_use.get(CLASS + 'PCPU', 0)
        if limit is None:
            limit = 0  # oslo.limit: no limit found is a limit of 0
        if not rules.should_enforce:
            # Every over-limit refuses; oslo.limit compares -1 as a number.
            if limit < 0:
                counts[name] = 0
                notes.append('%s: a limit of %d refuses every server on '
                             'this release (before 2025.1)' % (name, limit))
            else:
                counts[name] = _count(limit, used, delta, delta)
            continue
        if limit < 0:
            counts[name] = None
        elif limit == 0 and not _enforced_at_zero(name, quota):
            counts[name] = None
            notes.append('%s: no registered limit, and [quota] '
                         'unified_limits_resource_strategy=%s does not '
                         'enforce it: not limited' % (name, rules.strategy))
        else:
            counts[name] = _count(limit, used, delta, delta)
    for name in print_.unchecked:
        if name in quota.limits or name in quota.registered:
            notes.append('%s: Nova checks no limit on PCI alias '
                         'classes before 2026.2: not limited' % name)
    found = _smallest(counts)
    found.notes = notes
    return found


def footprint_headroom(quota, print_):
    """The Headroom of a Footprint for a project's quota reading."""
    if quota is None or quota.system == NOOP:
        return Headroom(None)
    if quota.system == DB:
        return legacy_headroom(quota, print_)
    if not print_.valid:
        return Headroom(None)
    return unified_headroom(quota, print_)


def consumed(quota, print_, count):
    """quota as read after count more instances of a footprint started."""
    if quota is None or count == 0:
        return quota
    in_use = dict(quota.in_use)
    if print_.system == DB:
        adds = {'instances': 1, 'cores': print_.each_cores,
                'ram': print_.each_ram}
    else:
        adds = dict(print_.deltas)
    for name, amount in adds.items():
        in_use[name] = in_use.get(name, 0) + amount * count
    return dataclasses.replace(quota, in_use=in_use)


def footprint_of(quota, flavor, request):
    """flavor's Footprint under the quota system of a reading (or None)."""
    if quota is None:
        return Footprint(NOOP)
    return footprint(flavor, request, Counting(
        quota.system, quota.rules, quota.count_usage_from_placement))


def headroom(quota, flavor, request):
    """The Headroom of one flavor for a project; request may be None."""
    return footprint_headroom(quota, footprint_of(quota, flavor, request))
