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
"""NUMATopologyFilter: how many servers of a guest topology a host takes.

The host side is what Nova keeps in its cell databases only: each compute
node's NUMA cells (compute_nodes.numa_topology) with their shared and
dedicated CPUs, the CPUs pinned, memory and page sizes with their usage.
The fit follows nova.virt.hardware.numa_fit_instance_to_host, which the
scheduler's filter and the compute's claim both run: each guest cell goes
to a host cell of its own, the host cells tried in every order (sorted by
what is free when the host has more cells than the guest), the first
order where every guest cell fits wins. A server placed then uses what
numa_usage_from_instance_numa says it uses, and the next one is fitted
against that; the count is how many fit one after the other, as servers
booted one at a time would.

Sets are Python sets built and combined the way Nova combines them, since
the order of a set decides which host CPUs a pinned server takes, and that
decides what the next server finds.
"""

import collections
import dataclasses
import itertools

from flavor_exporter.capacity.request import guest_numa


@dataclasses.dataclass(frozen=True)
class Pages:
    """One page size of a host cell (NUMAPagesTopology)."""

    size_kb: int
    total: int
    used: int = 0
    reserved: int = 0

    @property
    def free_kb(self):
        return (self.total - self.used - self.reserved) * self.size_kb

    @property
    def total_kb(self):
        return self.total * self.size_kb


@dataclasses.dataclass(frozen=True)
class HostCell:
    """One host NUMA cell (NUMACell) with its usage."""

    id: int
    cpuset: frozenset  # shared host CPUs
    pcpuset: frozenset  # dedicated host CPUs
    memory: int  # MiB
    cpu_usage: int = 0  # shared CPUs used
    memory_usage: int = 0  # MiB
    pinned: frozenset = frozenset()
    siblings: tuple = ()  # frozensets of thread siblings
    pages: tuple = ()  # Pages

    @property
    def free_pcpus(self):
        return self.pcpuset - self.pinned

    @property
    def avail_memory(self):
        return self.memory - self.memory_usage

    def emptied(self):
        """The cell with nothing on it: usage 0, nothing pinned."""
        return dataclasses.replace(
            self, cpu_usage=0, memory_usage=0, pinned=frozenset(),
            pages=tuple(dataclasses.replace(p, used=0) for p in self.pages))


class HostNuma:
    """A compute node's NUMA cells and allocation ratios.

    Compared and hashed by value, computed once: a cloud has many hosts
    of one model with one usage (empty ones above all).
    """

    __slots__ = ('cells', 'cpu_ratio', 'ram_ratio', '_key', '_empty')

    def __init__(self, cells, cpu_ratio, ram_ratio):
        self.cells = tuple(cells)
        self.cpu_ratio = cpu_ratio
        self.ram_ratio = ram_ratio
        # Made when first asked for: the states a host passes through
        # while servers are fitted one by one are never looked up.
        self._key = None
        self._empty = None

    def __eq__(self, other):
        return (isinstance(other, HostNuma) and hash(self) == hash(other)
                and (self.cells, self.cpu_ratio, self.ram_ratio)
                == (other.cells, other.cpu_ratio, other.ram_ratio))

    def __hash__(self):
        if self._key is None:
            self._key = hash((self.cells, self.cpu_ratio, self.ram_ratio))
        return self._key

    def __repr__(self):
        return 'HostNuma(%r, %r, %r)' % (self.cells, self.cpu_ratio,
                                         self.ram_ratio)

    def emptied(self):
        """The same host with nothing on it."""
        if self._empty is None:
            self._empty = HostNuma([c.emptied() for c in self.cells],
                                   self.cpu_ratio, self.ram_ratio)
        return self._empty


#: A compute node that reports no NUMA topology: NUMATopologyFilter
#: refuses it every guest that has one.
NO_TOPOLOGY = HostNuma((), 0.0, 0.0)


@dataclasses.dataclass(frozen=True)
class Rules:
    """How the cloud's Nova fits guest cells ([capacity] options)."""

    #: Whether the scheduler runs NUMATopologyFilter.
    enabled: bool = False
    #: How pinned guest memory is checked against its cell: by the free
    #: pages of the size it takes (Nova 30, 2024.2, and later), or by the
    #: cell's memory less its memory_usage, whatever the page size (Nova
    #: 29).
    pinned_memory_free: bool = True
    #: [compute] packing_host_numa_cells_allocation_strategy.
    pack: bool = False


@dataclasses.dataclass(frozen=True)
class _Claim:
    """What one guest cell takes of the host cell it was fitted to."""

    cell: guest_numa.GuestCell
    pagesize: int | None  # the page size chosen, None: the smallest
    pinned: frozenset  # host CPUs pinned, emulator thread included


def _can_fit_pages(cell, size_kb, memory_kb, use_free=True):
    """NUMACell.can_fit_pagesize; None when the cell lacks that size."""
    for pages in cell.pages:
        if pages.size_kb == size_kb:
            room = pages.free_kb if use_free else pages.total_kb
            return memory_kb <= room and memory_kb % size_kb == 0
    return None


def _page_size_for(cell, memory_kb, wanted):
    """The page size a guest cell asking for wanted gets there, or None."""
    sizes = sorted((p.size_kb for p in cell.pages), reverse=True)
    tried = {guest_numa.SMALL: sizes[-1:], guest_numa.LARGE: sizes[:-1],
             guest_numa.ANY: sizes}.get(wanted, [wanted])
    for size in tried:
        if _can_fit_pages(cell, size, memory_kb):
            return size
    return None


def _pinning(threads, sibling_sets, guest_cpus):
    """[(guest CPU, host CPU)] using up to threads per core, or None."""
    if threads * len(sibling_sets) < len(guest_cpus):
        return None
    usable = [list(siblings)[:threads] for siblings in sibling_sets]
    return list(zip(sorted(guest_cpus), itertools.chain(*usable)))


def _reserved(sibling_sets, pinning, count, isolate=False):
    """The host CPUs for the emulator thread beside pinning, or None."""
    if not pinning:
        return None
    cores = [list(siblings) for siblings in sibling_sets]
    if count:
        for _, host_cpu in pinning:
            # Removing from the list iterated skips the next core, as
            # Nova's loop does: kept so the same CPU is chosen.
            for core in cores:
                if host_cpu in core:
                    if isolate:
                        cores.remove(core)
                    else:
                        core.remove(host_cpu)
    return set(list(itertools.chain(*cores))[:count]) or None


def _pack(cell, guest_cell, thread_policy, reserve):
    """_pack_instance_onto_cores: the host CPUs pinned, or None."""
    threads_per_core = max(map(len, cell.siblings), default=0) or 1
    free = cell.free_pcpus
    by_threads = collections.defaultdict(list)
    for siblings in (set(s) & free for s in cell.siblings):
        for threads in range(1, len(siblings) + 1):
            by_threads[threads].append(siblings)
    pinning, threads = None, 1
    if thread_policy == 'isolate':
        if threads_per_core not in by_threads:
            return None
        if threads_per_core != 1 and cell.pcpuset != cell.cpuset:
            return None  # hosts with cpu_dedicated_set: bug #1889633
        pinning = _pinning(1, by_threads[threads_per_core], guest_cell.pcpus)
        reserved = _reserved(by_threads[1], pinning, reserve, isolate=True)
        if not pinning or (reserve and not reserved):
            return None
    else:
        if thread_policy == 'require' and threads_per_core <= 1:
            return None
        reserved = None
        for threads, sibling_sets in sorted(by_threads.items(),
                                            reverse=True):
            if thread_policy == 'require' and threads <= 1:
                continue
            pinning = _pinning(threads, sibling_sets, guest_cell.pcpus)
            reserved = _reserved(by_threads[1], pinning, reserve)
            if pinning is None or (reserve and not reserved):
                continue
            break
        if thread_policy != 'require' and not pinning:
            # Every free CPU as a core of its own.
            singles = [{cpu} for cpu in itertools.chain(*by_threads[1])]
            pinning = _pinning(threads, singles, guest_cell.pcpus)
            reserved = _reserved(singles, pinning, reserve)
    if pinning is None or (reserve and not reserved):
        return None
    return frozenset(host for _, host in pinning) | frozenset(reserved or ())


def _fit_cell(cell, guest_cell, guest, host, rules, reserve, pagesize):
    """_numa_fit_instance_cell, its page size chosen.

    pagesize: None when the guest asks for none, else the size chosen for
    it in this cell (_page_size_for), 0 when none fits. Returns (fits,
    pinned): whether the guest cell fits, and the host CPUs it was pinned
    to, which Nova records as soon as they are chosen, even when a later
    check fails (None when it got that far).
    """
    memory_kb = guest_cell.memory * 1024
    pinned = None
    if guest.pagesize:
        if not pagesize:
            return False, pinned
    elif cell.pages:
        # Pinned memory cannot be overcommitted (Nova 30 and later);
        # otherwise only the cell's total bounds one server.
        smallest = min(p.size_kb for p in cell.pages)
        if not _can_fit_pages(cell, smallest, memory_kb,
                              use_free=guest.pinned
                              and rules.pinned_memory_free):
            return False, pinned
    elif guest.pinned and rules.pinned_memory_free:
        if cell.avail_memory < guest_cell.memory:
            return False, pinned
    elif cell.memory < guest_cell.memory:
        return False, pinned
    shared = guest.policy in (None, 'shared', 'mixed')
    if guest.pinned:
        if len(guest_cell.pcpus) + reserve > len(cell.pcpuset):
            return False, pinned
    if shared and len(guest_cell.cpus) > len(cell.cpuset):
        return False, pinned
    if guest.pinned:
        if len(guest_cell.pcpus) + reserve > len(cell.free_pcpus):
            return False, pinned
        if (not rules.pinned_memory_free
                and guest_cell.memory > cell.avail_memory):
            return False, pinned  # Nova 29, for any page size
        pinned = _pack(cell, guest_cell, guest.thread_policy, reserve)
        if pinned is None:
            return False, pinned
    if shared:
        # The filter's NUMATopologyLimits: the host's allocation ratios.
        if (cell.cpu_usage + len(guest_cell.cpus)
                > len(cell.cpuset) * host.cpu_ratio):
            return False, pinned
        if (cell.memory_usage + guest_cell.memory
                > cell.memory * host.ram_ratio):
            return False, pinned
    return True, pinned


def _ordered(cells, guest, rules):
    """Host cells in the order Nova tries them."""
    if len(cells) <= len(guest.cells):
        return list(cells)
    pack = rules.pack
    cells = sorted(cells, reverse=not pack, key=lambda c: c.avail_memory)
    if guest.policy in (None, 'shared'):
        return sorted(cells, reverse=pack, key=lambda c: c.cpu_usage)
    return sorted(cells, reverse=not pack, key=lambda c: len(c.free_pcpus))


def fit(host, guest, rules):
    """{host cell id: _Claim} of the first fitting order, or None.

    Nova remembers which (host cell, guest cell) pairs fit or did not, but
    names a guest cell by its id, which it overwrites with the host cell's
    whenever the guest cell fits somewhere; a later order can then meet a
    pair remembered for another guest cell. Mirrored, since it decides
    what Nova starts.
    """
    if len(host.cells) < len(guest.cells):
        return None
    fits, misfits = set(), set()
    ids = list(range(len(guest.cells)))  # each guest cell's id, as Nova's
    pins = [frozenset()] * len(guest.cells)  # each one's latest pinning
    # Nova writes the page size it chose for a guest cell into the request
    # as soon as a host cell has room for it, even if the cell then fails
    # on CPUs: the later cells tried are asked for that size only.
    asked = [guest.pagesize] * len(guest.cells)
    for order in itertools.permutations(_ordered(host.cells, guest, rules),
                                        len(guest.cells)):
        claims = {}
        for index, (cell, guest_cell) in enumerate(zip(order, guest.cells)):
            pair = (cell.id, ids[index])
            if pair in misfits:
                break
            if pair not in fits:
                pagesize = None
                if asked[index]:
                    pagesize = _page_size_for(
                        cell, guest_cell.memory * 1024, asked[index]) or 0
                    asked[index] = pagesize or asked[index]
                # The emulator thread goes with guest cell 0.
                reserve = 1 if guest.emulator_isolated and index == 0 else 0
                fitted, pinned = _fit_cell(cell, guest_cell, guest, host,
                                           rules, reserve, pagesize)
                if pinned is not None:
                    # Pinning renames the guest cell after the host cell.
                    ids[index], pins[index] = cell.id, pinned
                if not fitted:
                    misfits.add(pair)
                    break
                fits.add(pair)
            ids[index] = cell.id
            claims[cell.id] = _Claim(
                guest_cell, asked[index] if guest.pagesize else None,
                pins[index])
        else:
            return claims
    return None


def _used(cell, claim, thread_policy):
    """numa_usage_from_instance_numa for one host cell and its claim."""
    size = claim.pagesize or min((p.size_kb for p in cell.pages),
                                 default=None)
    memory_kb = claim.cell.memory * 1024
    # Built directly, not with dataclasses.replace: this runs for every
    # server of every host state counted one by one.
    pages = tuple(
        Pages(p.size_kb, p.total, max(0, p.used + memory_kb // p.size_kb),
              p.reserved)
        if p.size_kb == size else p for p in cell.pages)
    pinned = claim.pinned
    if pinned and thread_policy == 'isolate':
        # The whole cores: their siblings are kept from other servers.
        pinned = frozenset().union(*(s for s in cell.siblings
                                     if set(s) & pinned))
    return HostCell(cell.id, cell.cpuset, cell.pcpuset, cell.memory,
                    cell.cpu_usage + len(claim.cell.cpus),
                    cell.memory_usage + claim.cell.memory,
                    cell.pinned | pinned, cell.siblings, pages)


def place(host, guest, claims):
    """host with one more server of guest, fitted as claims say.

    None when a claim pins CPUs its cell cannot pin (a pair Nova
    remembered for another cell, see fit): Nova's usage update fails
    there and the server is not started on the host.
    """
    cells = []
    for cell in host.cells:
        claim = claims.get(cell.id)
        if claim is not None:
            if not claim.pinned <= cell.free_pcpus:
                return None
            cell = _used(cell, claim, guest.thread_policy)
        cells.append(cell)
    return HostNuma(cells, host.cpu_ratio, host.ram_ratio)


# More than any host takes: a limit a guest cell does not draw on.
_UNBOUNDED = 1 << 30


def _most(used, need, limit):
    """The most n with used + n * need <= limit, at least 0."""
    if used > limit:
        return 0
    if not need:
        return _UNBOUNDED
    n = int((limit - used) // need)
    while n and used + n * need > limit:  # float limits: no rounding up
        n -= 1
    return n


def _sizes_tried(cell, wanted):
    """The page sizes a guest asking for wanted may get in cell."""
    ordered = sorted((p.size_kb for p in cell.pages), reverse=True)
    return {guest_numa.SMALL: ordered[-1:], guest_numa.LARGE: ordered[:-1],
            guest_numa.ANY: ordered}.get(wanted, [wanted])


def _pages_most(cell, memory_kb, sizes):
    """Servers of memory_kb the cell's free pages of sizes take.

    Each server takes the largest size with room, and a size the memory
    is no multiple of takes none.
    """
    return sum(p.free_kb // memory_kb for p in cell.pages
               if p.size_kb in sizes and not memory_kb % p.size_kb)


def _cell_most(cell, guest_cell, guest, host, rules, reserve):
    """How many servers of a one-cell guest cell takes on its own.

    Returns (pages, other): what the pages of the size the guest asks for
    allow (unbounded when it asks for none), and what everything else
    allows, checked after the pages as Nova checks it.
    """
    memory_kb = guest_cell.memory * 1024
    most, pages = [_UNBOUNDED], _UNBOUNDED
    if guest.pagesize:
        pages = _pages_most(cell, memory_kb,
                            _sizes_tried(cell, guest.pagesize))
    elif cell.pages:
        smallest = min(cell.pages, key=lambda p: p.size_kb)
        if memory_kb % smallest.size_kb:
            return 0, 0
        if guest.pinned and rules.pinned_memory_free:
            most.append(smallest.free_kb // memory_kb)
        elif memory_kb > smallest.total_kb:
            return 0, 0
    elif guest.pinned and rules.pinned_memory_free:
        most.append(_most(cell.memory_usage, guest_cell.memory,
                          cell.memory))
    elif cell.memory < guest_cell.memory:
        return 0, 0
    if guest.pinned:
        wanted = len(guest_cell.pcpus) + reserve
        if wanted > len(cell.pcpuset):
            return pages, 0
        most.append(_most(0, wanted, len(cell.free_pcpus)))
        if not rules.pinned_memory_free:
            most.append(_most(cell.memory_usage, guest_cell.memory,
                              cell.memory))
    if guest.policy in (None, 'shared', 'mixed'):
        if len(guest_cell.cpus) > len(cell.cpuset):
            return pages, 0
        most.append(_most(cell.cpu_usage, len(guest_cell.cpus),
                          len(cell.cpuset) * host.cpu_ratio))
        most.append(_most(cell.memory_usage, guest_cell.memory,
                          cell.memory * host.ram_ratio))
    return pages, min(most)


def counted(host, guest, rules):
    """What fit() one server after the other counts, found at once.

    None where that is not known to be the same: a guest of several
    cells, a thread policy that may refuse free CPUs, or a page size
    request the host's cells could answer with several sizes (fit()
    explains how Nova then keeps to the first size it chose). Otherwise a
    server takes from one host cell only, the same CPUs, memory and pages
    each time, and pinning succeeds whenever enough CPUs are free: each
    cell takes as many as its tightest limit allows, whatever the other
    cells do, and the host takes their sum.
    """
    if len(guest.cells) != 1 or guest.thread_policy not in (None, 'prefer'):
        return None
    reserve = 1 if guest.emulator_isolated else 0
    found = [_cell_most(cell, guest.cells[0], guest, host, rules, reserve)
             for cell in host.cells]
    sizes = set().union(*(_sizes_tried(c, guest.pagesize)
                          for c in host.cells)) if guest.pagesize else ()
    if len(sizes) <= 1 or all(pages <= other for pages, other in found):
        # One size to choose from, or pages that run out before anything
        # else does: no cell takes a size and then fails.
        return sum(min(pages, other) for pages, other in found)
    return None


class Counts:
    """How many servers of each guest hosts take, by host state.

    Most hosts of a model are in one of a few states (empty, full), so one
    count serves many, and from one refresh to the next most states stay:
    what a refresh did not use is forgotten at the next (start()).
    """

    def __init__(self, rules):
        self.rules = rules
        self._now, self._last = {}, {}  # Guest -> {HostNuma: (n, bound)}

    def start(self):
        """Begin a refresh: keep what the last one used."""
        self._last, self._now = self._now, {}

    def of(self, guest):
        """The GuestCounts of guest."""
        now = self._now.get(guest)
        if now is None:
            now = self._now[guest] = {}
        return GuestCounts(guest, self.rules, now,
                           self._last.get(guest, {}))


class GuestCounts:
    """Counts of one guest topology (Counts.of)."""

    def __init__(self, guest, rules, now, last):
        self.guest = guest
        self.rules = rules
        self._now, self._last = now, last

    def count(self, host, bound):
        """Servers host takes one after the other, up to bound.

        A count below the bound it was made with is the host's, whatever
        bound is asked later.
        """
        if bound <= 0:
            return 0
        found = self._now.get(host) or self._last.get(host)
        if found is not None and (found[0] < found[1] or bound <= found[1]):
            self._now[host] = found
            return min(found[0], bound)
        most = counted(host, self.guest, self.rules)
        if most is not None:
            most = min(most, _UNBOUNDED - 1)
            self._now[host] = (most, most + 1)
            return min(most, bound)
        placed, state = 0, host
        while placed < bound:
            claims = fit(state, self.guest, self.rules)
            state = claims and place(state, self.guest, claims)
            if state is None:
                break
            placed += 1
        self._now[host] = (placed, bound)
        return placed
