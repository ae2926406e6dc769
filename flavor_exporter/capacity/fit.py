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
come from one provider each, with the providers able to serve them. When
the units share no resource class (every real tree we know of: CPU, RAM
and disk on the root, one class per VGPU or PCI child) each unit bounds the
count independently and the answer is exact. Otherwise instances are
placed one by one, like successive boots would.
"""

import dataclasses

GPU_POOL = 'GPU_AGGREGATE'


@dataclasses.dataclass
class _Unit:
    """Resources one instance takes from one provider, `copies` times."""

    label: str
    resources: dict
    candidates: list  # (provider uuid or pool key, free {rc: n})
    copies: int = 1
    isolate: bool = False


def free_amounts(host, empty=False):
    """{provider uuid: {rc: free amount}}; compute once per host."""
    return {p.uuid: {rc: inventory.capacity
                     - (0 if empty else p.usages.get(rc, 0))
                     for rc, inventory in p.inventories.items()}
            for p in host.providers}


def _serves(provider, resources):
    return all(rc in provider.inventories
               and provider.inventories[rc].accepts(amount)
               for rc, amount in resources.items())


def _slots(free, resources):
    return min(max(0, free.get(rc, 0)) // amount
               for rc, amount in resources.items())


def _traits_ok(traits, required, forbidden):
    return required <= traits and not (forbidden & traits)


def _units(request, host, empty, frees):
    """The demand units of request on host, or None if it cannot fit."""
    providers = host.providers
    units = []
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
            candidates = [(p.uuid, frees[p.uuid]) for p in usable
                          if _serves(p, resources)
                          and group.required_traits <= p.traits]
            _add_numbered(units, _Unit('+'.join(sorted(resources)),
                                       resources, candidates,
                                       isolate=isolate))
            continue
        # Unnumbered: each class from any one provider; required traits
        # are met by the providers that take part.
        holders = [p for p in usable if set(resources) & set(p.inventories)]
        if not group.required_traits <= frozenset().union(
                *(p.traits for p in holders)):
            return None
        for rc, amount in resources.items():
            candidates = [(p.uuid, frees[p.uuid]) for p in holders
                          if _serves(p, {rc: amount})]
            units.append(_Unit(rc, {rc: amount}, candidates))
    for demand in request.pci:
        unit = _pci_unit(demand, host, providers, frees, empty, isolate)
        if unit is None:
            return None
        units.append(unit)
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


def _pci_unit(demand, host, providers, frees, empty, isolate):
    """Devices of one alias: Placement children, else a GPU aggregate."""
    rc = demand.resource_class
    if rc and any(rc in p.inventories for p in providers):
        # Nova asks for one device per request group.
        candidates = [(p.uuid, frees[p.uuid]) for p in providers
                      if _serves(p, {rc: 1})
                      and demand.traits <= p.traits]
        return _Unit(rc, {rc: 1}, candidates, copies=demand.count,
                     isolate=isolate)
    for pool in host.gpu_pools:
        if pool.gpu_type == demand.alias:
            free = pool.count if empty else pool.count - pool.used
            return _Unit(GPU_POOL, {GPU_POOL: demand.count},
                         [(GPU_POOL, {GPU_POOL: free})])
    return None


def _unit_bound(unit):
    slots = [_slots(free, unit.resources) for _, free in unit.candidates]
    if not unit.isolate or unit.copies == 1:
        return sum(slots) // unit.copies
    # Every copy of one instance on a different provider: n instances need
    # copies * n slots with at most n of them on any one provider.
    low, high = 0, sum(slots) // unit.copies
    while low < high:
        mid = (low + high + 1) // 2
        if sum(min(s, mid) for s in slots) >= unit.copies * mid:
            low = mid
        else:
            high = mid - 1
    return low


def _independent(units):
    seen = set()
    for unit in units:
        classes = set(unit.resources)
        if classes & seen:
            return False
        seen |= classes
    return True


def _place_one(units):
    """Take one instance's resources greedily; False if it does not fit."""
    taken = []
    isolated = set()  # providers holding this instance's isolated groups
    for unit in units:
        for _ in range(unit.copies):
            choices = [(key, free) for key, free in unit.candidates
                       if _slots(free, unit.resources) > 0
                       and not (unit.isolate and key in isolated)]
            if not choices:
                for free, rc, amount in taken:
                    free[rc] += amount
                return False
            key, free = max(choices,
                            key=lambda c: _slots(c[1], unit.resources))
            if unit.isolate:
                isolated.add(key)
            for rc, amount in unit.resources.items():
                free[rc] -= amount
                taken.append((free, rc, amount))
    return True


def fit(request, host, empty=False, frees=None):
    """(instances, limiting resource class or None) of request on host.

    frees is free_amounts(host, empty), passed by callers that fit many
    requests on the same host; it is not modified.
    """
    if frees is None:
        frees = free_amounts(host, empty)
    units = _units(request, host, empty, frees)
    if units is None:
        return 0, None
    if not units:
        return 0, None
    if _independent(units):
        bounds = [(_unit_bound(u), u.label) for u in units]
        count, label = min(bounds, key=lambda b: (b[0], b[1]))
        return count, label
    # Shared classes: place instances one at a time on a copy of the free
    # amounts, up to the tightest independent bound.
    ceiling = min(_unit_bound(u) for u in units)
    units = _units(request, host, empty,
                   {uuid: dict(free) for uuid, free in frees.items()})
    count = 0
    while count < ceiling and _place_one(units):
        count += 1
    return count, None
