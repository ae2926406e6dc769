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

"""How many instances of one request fit on one host's provider tree.

Placement satisfies each numbered request group from a single provider and
each resource class of the unnumbered group from a single provider, so the
tree is reduced to "demand units": the resource classes or groups that must
come from one provider each, with the providers able to serve them.

Placement checks min_unit, max_unit and step_size twice. Each group alone
must pass them in the SQL that finds its providers
(placement.objects.research_context._capacity_check_clause); once the
groups' candidates are combined, the amounts one instance takes from one
provider are summed (allocation_candidate._consolidate_allocation_requests)
and a combination whose sum exceeds max_unit or the capacity left is
dropped (RequestWideSearchContext.exceeds_capacity). The claim then checks
the sum against all three limits (allocation._check_capacity_exceeded);
min_unit and step_size of a sum of amounts that each pass them always
pass, so max_unit is the only limit that couples groups. Here that is the
``caps`` of a unit: how many of its copies one instance may put on each
provider.

Nova's scheduler adds one rule of its own: it keeps a host only through
the allocation candidates that take something from the host's compute
node (root) provider (SchedulerManager._schedule gives each host the
candidates of alloc_reqs_by_rp_uuid under its compute node uuid, on Nova
29 and 34 alike). A request the overrides reduce to classes only child
providers hold (VGPU, PCI devices, with VCPU, MEMORY_MB and DISK_GB set
to 0) therefore never lands, though Placement offers it: no unit can be
served by the root, and the host counts 0. Where one unit alone could
take from the root, the kept candidates are those taking it from there.
Where several could (a class both the root and a child hold), every
instance must still put one of them on the root: units.root is then set
and instances are placed one by one, and the count is not certain, as
the scheduler claims the first candidate Placement lists, whichever
units it puts on the root.

When the units share no resource class and no isolated unit shares a
provider with another (every real tree we know of: CPU, RAM and disk on
the root, one class per VGPU or PCI child) each unit bounds the count
independently and the answer is exact. Otherwise instances are placed one
by one, each with every assignment of its groups tried, up to the bound of
the units taken alone; a count below that bound is reported as uncertain
unless every unit has a single provider to take from.
"""

import collections
import dataclasses

GPU_POOL = 'GPU_AGGREGATE'
#: The class of a host's instance cap (instance_caps.py): what limits a
#: flavor when the host holds as many instances as the scheduler allows.
INSTANCES = 'max_instances_per_host'
# The trait of the providers Nova makes for PCI devices (os-traits), on
# every release since Zed.
MANAGED_PCI_TRAIT = 'COMPUTE_MANAGED_PCI_DEVICE'

# Assignments tried for one instance on the one-by-one path before the
# count is given up as uncertain; real requests need a handful.
_SEARCH_BUDGET = 20000


@dataclasses.dataclass
class _Unit:
    """Resources one instance takes from one provider, `copies` times."""

    label: str
    resources: dict
    candidates: list  # (provider uuid or pool key, free {rc: n})
    copies: int = 1
    isolate: bool = False
    # Per candidate: how many copies one instance may take from it, as
    # max_unit allows the sum (1 under isolate).
    caps: list = None
    # Per candidate: {rc: max_unit} of the provider, for sums with the
    # instance's other units; None for a GPU aggregate pool.
    limits: list = None


def pool_class(gpu_type):
    """The class a GPU aggregate pool's free GPUs are counted in.

    Each pool has its own, so that two aliases' pools on one host neither
    add up nor look like one shared class.
    """
    return '%s:%s' % (GPU_POOL, gpu_type)


def free_amounts(host, empty=False):
    """{provider uuid or pool class: {rc: free amount}}; once per host."""
    frees = {p.uuid: {rc: inventory.capacity
                      - (0 if empty else p.usages.get(rc, 0))
                      for rc, inventory in p.inventories.items()}
             for p in host.providers}
    for pool in host.gpu_pools:
        # The first pool of a type is the one matched (see _pci_unit).
        rc = pool_class(pool.gpu_type)
        frees.setdefault(rc, {rc: pool.count - (0 if empty else pool.used)})
    if host.max_instances is not None:
        frees[INSTANCES] = {INSTANCES: host.max_instances - (
            0 if empty else host.num_instances)}
    return frees


def _serves(provider, resources):
    return all(rc in provider.inventories
               and provider.inventories[rc].accepts(amount)
               for rc, amount in resources.items())


def _slots(free, resources):
    return min(max(0, free.get(rc, 0)) // amount
               for rc, amount in resources.items())


def _placement_unit(label, resources, providers, frees, copies=1,
                    isolate=False):
    """A unit served by Placement providers, with its max_unit caps."""
    unit = _Unit(label, resources, [], copies, isolate, [], [])
    for p in providers:
        limits = {rc: p.inventories[rc].largest_unit for rc in resources}
        unit.candidates.append((p.uuid, frees[p.uuid]))
        unit.limits.append(limits)
        unit.caps.append(min(limits[rc] // amount
                             for rc, amount in resources.items()))
    return unit


class Units(list):
    """The demand units of one request on one host."""

    # Whether the unnumbered group's required traits can be met by more
    # than one of its classes' providers, none of which always has them:
    # the units then allow more than Placement may.
    ambiguous = False
    # The root provider's uuid when every instance must take one of
    # several units from the root (_root_rule); None when the rule holds
    # by itself.
    root = None


_AMBIGUOUS = object()


def _meet_required_traits(required, servers):
    """Narrow servers ({rc: providers}) to meet the required traits.

    Placement requires the providers one combination takes the unnumbered
    group from to have the required traits together
    (allocation_candidate._check_traits_for_alloc_request). A trait every
    provider of some class has is always met; a trait only one class's
    providers can have must come from that class, so its other providers
    are dropped. A trait several classes could bring, none always, marks
    servers ambiguous. False if a trait cannot be met at all.
    """
    pending = set(required)
    while pending:
        progress = False
        for trait in sorted(pending):
            if any(providers and all(trait in p.traits for p in providers)
                   for providers in servers.values()):
                pending.discard(trait)
                progress = True
                continue
            able = [rc for rc, providers in servers.items()
                    if any(trait in p.traits for p in providers)]
            if not able:
                return False
            if len(able) == 1:
                servers[able[0]] = [p for p in servers[able[0]]
                                    if trait in p.traits]
                pending.discard(trait)
                progress = True
        if not progress:
            servers[_AMBIGUOUS] = True
            return True
    return True


def units(request, host, frees):
    """The demand units of request on host, or None if it cannot fit.

    frees is free_amounts(host) or any mapping with the same keys: units
    only refer to its values, so the vectorized path passes column numbers.
    These are the candidates Nova's scheduler keeps (_root_rule).
    """
    found = offered_units(request, host, frees)
    if found is None:
        return None
    found = _root_rule(found, host.root.uuid if host.root else None)
    if found is not None and INSTANCES in frees:
        # The scheduler's cap on instances per host: one each.
        found.append(_Unit(INSTANCES, {INSTANCES: 1},
                           [(INSTANCES, frees[INSTANCES])], caps=[1],
                           limits=[None]))
    return found


def request_classes(request):
    """The Placement resource classes a request takes something of."""
    return ({rc for group in request.groups
             for rc, amount in group.resources.items() if amount > 0}
            | {d.resource_class for d in request.pci if d.resource_class})


def offered_units(request, host, frees):
    """The demand units of what Placement offers, before _root_rule.

    For parts of a request (gpus: the groups asking for devices), which
    take nothing from the root by themselves.
    """
    providers = host.providers
    units = Units()
    # Placement's isolate covers every granular group: numbered ones and
    # the one-device groups Nova makes for PCI in Placement.
    granular = (sum(1 for g in request.groups if g.suffix)
                + sum(d.count for d in request.pci if d.resource_class))
    isolate = request.group_policy == 'isolate' and granular > 1
    for group in request.groups:
        resources = {rc: n for rc, n in group.resources.items() if n > 0}
        if not resources:
            continue
        usable = [p for p in providers
                  if not (group.forbidden_traits & p.traits)]
        if group.suffix:
            serving = [p for p in usable if _serves(p, resources)
                       and group.required_traits <= p.traits]
            _add_numbered(units, _placement_unit(
                '+'.join(sorted(resources)), resources, serving, frees,
                isolate=isolate))
            continue
        # Unnumbered: each class from any one provider.
        servers = {rc: [p for p in usable if _serves(p, {rc: amount})]
                   for rc, amount in resources.items()}
        if not _meet_required_traits(group.required_traits, servers):
            return None
        if servers.pop(_AMBIGUOUS, False):
            units.ambiguous = True
        for rc, amount in resources.items():
            units.append(_placement_unit(rc, {rc: amount}, servers[rc],
                                         frees))
    for demand in request.pci:
        unit = _pci_unit(demand, providers, frees, isolate)
        if unit is None:
            return None
        units.append(unit)
    for unit in units:
        if unit.isolate:
            unit.caps = [min(cap, 1) for cap in unit.caps]
    return units


def _root_rule(units, root):
    """units as Nova keeps them: None unless some take from the root.

    SchedulerManager._schedule keys the allocation candidates by each
    provider they allocate from (alloc_reqs_by_rp_uuid) and gives a host
    those under its compute node's uuid, which is its root provider's: a
    candidate that takes nothing from the root belongs to no host. GPU
    aggregate pools are not Placement providers, so they never do.
    """
    if root is None:
        return None
    able = [unit for unit in units
            if any(key == root for key, _ in unit.candidates)]
    if not able:
        return None
    if any(all(key == root for key, _ in unit.candidates) for unit in able):
        return units
    if len(able) == 1 and able[0].copies == 1:
        # The only copy able to take from the root must: its candidates
        # elsewhere are in no candidate Nova keeps.
        unit = able[0]
        keep = [i for i, (key, _) in enumerate(unit.candidates)
                if key == root]
        unit.candidates = [unit.candidates[i] for i in keep]
        unit.caps = [unit.caps[i] for i in keep]
        unit.limits = [unit.limits[i] for i in keep]
        return units
    units.root = root
    return units


def _add_numbered(units, unit):
    """Identical numbered groups become copies of one unit."""
    for other in units:
        if (other.isolate == unit.isolate
                and other.resources == unit.resources
                and [k for k, _ in other.candidates]
                == [k for k, _ in unit.candidates]):
            other.copies += 1
            return
    units.append(unit)


def _pci_unit(demand, providers, frees, isolate):
    """Devices of one alias: Placement children, else a GPU aggregate.

    Only Nova's own device providers count: PciPassthroughFilter keeps an
    allocation candidate only if its PCI groups map to providers of the
    host's PCI pools (PciDeviceStats
    ._filter_pools_based_on_placement_allocation), and Nova's providers
    are the ones carrying MANAGED_PCI_TRAIT (pci_placement_translator,
    which also deletes any provider with that trait it does not manage).
    Another service's provider of the same class (Cyborg, one made by
    hand) is offered by Placement on 2024.1 and then refused by the filter.
    """
    rc = demand.resource_class
    own = [p for p in providers if MANAGED_PCI_TRAIT in p.traits]
    if rc and any(rc in p.inventories for p in own):
        # Nova asks for one device per request group.
        serving = [p for p in own
                   if _serves(p, {rc: 1}) and demand.traits <= p.traits]
        return _placement_unit(rc, {rc: 1}, serving, frees,
                               copies=demand.count, isolate=isolate)
    pool_rc = pool_class(demand.alias)
    if pool_rc in frees:
        return _Unit(GPU_POOL, {pool_rc: demand.count},
                     [(pool_rc, frees[pool_rc])], caps=[1], limits=[None])
    return None


def copies_bound(slots, caps, copies):
    """Most instances that fit, each taking `copies` slots.

    Candidate i has slots[i] slots; one instance takes at most caps[i] of
    them. n instances fit if and only if sum(min(slots[i], n * caps[i])) >=
    n * copies: given such per-candidate totals, dealing them out in turn
    gives every instance `copies` slots and at most caps[i] from i. The
    left side minus the right is concave in n and 0 at 0, so the n that
    fit are 0..answer and a binary search finds the answer.
    """
    if all(cap >= copies for cap in caps):
        return sum(slots) // copies
    low, high = 0, sum(slots) // copies
    while low < high:
        mid = (low + high + 1) // 2
        if (sum(min(s, mid * cap) for s, cap in zip(slots, caps))
                >= copies * mid):
            low = mid
        else:
            high = mid - 1
    return low


def _unit_bound(unit):
    slots = [_slots(free, unit.resources) for _, free in unit.candidates]
    return copies_bound(slots, unit.caps, unit.copies)


def independent(units):
    """Whether every unit bounds the count on its own.

    Not when two units share a resource class (capacity and max_unit
    couple them), nor when two isolated units may use the same provider
    (isolate keeps them apart), nor when each instance must choose one of
    its units to take from the root (Units.root).
    """
    if getattr(units, 'root', None) is not None:
        return False
    seen = set()
    isolated = set()
    for unit in units:
        classes = set(unit.resources)
        if classes & seen:
            return False
        seen |= classes
        if unit.isolate:
            keys = {key for key, _ in unit.candidates}
            if keys & isolated:
                return False
            isolated |= keys
    return True


def _class_bound(units):
    """Instances the tree's free amounts of each shared class allow.

    Placement's own pre-check (_pre_check_overall_capacity) for classes
    that several groups request.
    """
    demand = collections.Counter()
    supply = collections.defaultdict(dict)
    for unit in units:
        for rc, amount in unit.resources.items():
            demand[rc] += amount * unit.copies
            for key, free in unit.candidates:
                supply[rc][key] = max(0, free.get(rc, 0))
    return min(sum(supply[rc].values()) // amount
               for rc, amount in demand.items())


def _root_bound(units):
    """Instances the root allows when each must take a unit from it.

    Every instance puts one unit copy at least on the root, so no more
    fit than the root has slots for all units together.
    """
    if units.root is None:
        return _class_bound(units)
    return sum(_slots(free, unit.resources) for unit in units
               for key, free in unit.candidates if key == units.root)


class _OutOfBudget(Exception):
    pass


def _place_one(units, budget, root=None, prefer=None):
    """Take one instance's resources: {(key, rc): amount}, None if no fit.

    Every assignment of the instance's unit copies to providers is tried
    (copies of one unit in candidate order so that no assignment is tried
    twice), keeping what one instance takes from a provider within
    max_unit and isolated units on providers of their own and, with root,
    one copy at least on that provider (_root_rule). The providers with
    the most room are tried first, which fits the most instances one by
    one; with prefer (provider keys), those keys first, then the fullest:
    a scheduler's choice (take_one).
    """
    copies = sorted(((u, i) for u in units for i in range(u.copies)),
                    key=lambda c: -sum(c[0].resources.values()))
    taken = collections.Counter()  # (key, rc) -> amount this instance
    isolated = set()

    def place(index, floor):
        if index == len(copies):
            return root is None or any(amount for (key, _), amount
                                       in taken.items() if key == root)
        budget[0] -= 1
        if budget[0] < 0:
            raise _OutOfBudget()
        unit, copy = copies[index]
        nxt = copies[index + 1][0] if index + 1 < len(copies) else None
        if prefer is None:
            order = sorted(range(len(unit.candidates)),
                           key=lambda i: -_slots(unit.candidates[i][1],
                                                 unit.resources))
        else:
            order = sorted(range(len(unit.candidates)), key=lambda i: (
                unit.candidates[i][0] not in prefer,
                _slots(unit.candidates[i][1], unit.resources)))
        for i in order:
            if i < floor:
                continue
            key, free = unit.candidates[i]
            limits = unit.limits[i]
            if _slots(free, unit.resources) < 1:
                continue
            if unit.isolate and key in isolated:
                continue
            if limits is not None and any(
                    taken[key, rc] + amount > limits[rc]
                    for rc, amount in unit.resources.items()):
                continue
            for rc, amount in unit.resources.items():
                free[rc] -= amount
                taken[key, rc] += amount
            if unit.isolate:
                isolated.add(key)
            if place(index + 1, i if nxt is unit else 0):
                return True
            for rc, amount in unit.resources.items():
                free[rc] += amount
                taken[key, rc] -= amount
            if unit.isolate:
                isolated.discard(key)
        return False

    if not place(0, 0):
        return None
    return {k: amount for k, amount in taken.items() if amount}


def fit_certain(request, host, empty=False, frees=None):
    """(instances, limiting class or None, certain) of request on host.

    certain is False when instances placed one by one stopped below the
    bound of the units taken alone: another placement might fit more.
    frees is free_amounts(host, empty), passed by callers that fit many
    requests on the same host; it is not modified.
    """
    if frees is None:
        frees = free_amounts(host, empty)
    found = units(request, host, frees)
    if not found:
        return 0, None, True
    if independent(found):
        bounds = [(_unit_bound(u), u.label) for u in found]
        count, label = min(bounds, key=lambda b: (b[0], b[1]))
        return count, label, not found.ambiguous
    # Shared classes or isolated units on shared providers: place
    # instances one at a time on a copy of the free amounts, up to the
    # tightest bound of the units alone and of the shared classes.
    ceiling = min(min(_unit_bound(u) for u in found), _class_bound(found),
                  _root_bound(found))
    found = units(request, host,
                  {key: dict(free) for key, free in frees.items()})
    count = 0
    budget = [_SEARCH_BUDGET]
    try:
        while count < ceiling and \
                _place_one(found, budget, found.root) is not None:
            count += 1
    except _OutOfBudget:
        return count, None, False
    # With one candidate per unit every instance takes the same amounts
    # from the same providers: one by one is then exact too.
    forced = all(len(unit.candidates) == 1 for unit in found)
    # Under units.root which units an instance puts on the root is the
    # first candidate's choice (SchedulerManager._schedule claims
    # allocation_candidates[0]), not the choice fitting the most.
    sure = (count == ceiling or forced) and found.root is None
    return count, None, sure and not found.ambiguous


@dataclasses.dataclass(frozen=True)
class Taken:
    """What one server took: from which providers, and what was a guess."""

    amounts: dict  # (provider uuid or pool class, rc) -> amount taken
    # The classes taken from one of several providers unlike each other
    # (free amounts, max_unit): which one Nova takes is Placement's order.
    guessed: frozenset

    @property
    def keys(self):
        """The providers (or pool classes) taken from."""
        return frozenset(key for key, _ in self.amounts)


def take_one(request, host, frees, prefer=frozenset()):
    """Take one server of request from frees (free_amounts(host)).

    frees is changed in place, as the claim of one server changes the
    host; None when no server fits. Nova claims the first allocation
    candidate Placement lists for the host, and Placement lists them in
    the order of a Python set of its own (hashes of its process's
    strings): the same for a flavor from one request to the next as long
    as its process and the number of candidates' table size stay, not
    known outside it. So the providers in prefer (those the flavor's last
    server on the host took from) come first while they have room, then
    the fullest: exact where the providers with room are alike, and
    Nova's usual choice elsewhere, where the classes are in
    Taken.guessed.
    """
    found = units(request, host, frees)
    if not found:
        return None
    # Read before the take changes frees.
    guessed = frozenset(rc for unit in found if _unlike_with_room(unit)
                        for rc in unit.resources)
    try:
        taken = _place_one(found, [_SEARCH_BUDGET], found.root,
                           frozenset(prefer))
    except _OutOfBudget:
        return None
    return None if taken is None else Taken(taken, guessed)


def _unlike_with_room(unit):
    """Whether unit's providers with room differ in room or max_unit."""
    return len({(tuple(free.get(rc) for rc in unit.resources),
                 tuple(sorted((limits or {}).items())))
                for (_, free), limits in zip(unit.candidates, unit.limits)
                if _slots(free, unit.resources) >= 1}) > 1


def can_claim(frees, amounts):
    """Whether amounts (Taken.amounts) still fit in frees."""
    return all(frees[key][rc] >= amount
               for (key, rc), amount in amounts.items())


def fit(request, host, empty=False, frees=None):
    """(instances, limiting resource class or None) of request on host.

    frees is free_amounts(host, empty), passed by callers that fit many
    requests on the same host; it is not modified.
    """
    count, label, _ = fit_certain(request, host, empty, frees)
    return count, label
