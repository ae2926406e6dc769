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
"""The fewest live migrations after which N more servers of a flavor start.

A plan is a list of moves (a server, its host, the host it goes to), in
order; each move is one Nova would accept at that point of the plan for
``openstack server migrate --live-migration --host DEST``: the
destination's compute service is enabled and up, the scheduler's filters
the engine models pass for the server's flavor there (aggregate
metadata, traits, tenancy, instance caps), Placement has room for it
there as the plan left the host, and its server group allows it
(anti-affinity: no other member there; a member of an affinity group of
several servers never moves). A server stays in its availability zone.
Servers that cannot live-migrate are never moved: those holding PCI
devices or vGPUs (the flavor asks for a PCI alias, or the server holds
resources of a child provider), those whose guest NUMA topology the
plan cannot follow, and those the caller names as pinned (not ACTIVE,
locked, a policy).

Moving a server into a host never gives the flavor room there, so the
hosts that gain must each lose servers, and a plan costs at least, over
the hosts that gain e instances between them N, the sum of the smallest
sets of their servers whose removal lets them take e more. The search:

1. hosts: the flavor's hosts with a server that may move, those closest
   to one more first (the smallest share of a demand missing), at most
   Bounds.hosts of them;
2. per host and per e (1..N), the smallest sets of its movable servers
   whose removal lets it take e more: every combination by size, largest
   servers first, up to Bounds.moves servers and within the node budget;
3. the hosts and e's of least total size that add up to N (a knapsack
   over the hosts, exact): the lower bound;
4. that choice made move by move on a copy of the cloud, each server
   sent to the host that loses the least of the flavor and is fullest
   (best fit); a set whose servers find no room is replaced by the next
   set of the host, then the next choice of hosts, within the time bound.

The plan is *proven minimal* when its size equals the lower bound of
step 3 and no step was cut short (every host with a movable server
considered, every combination up to the plan's size tried); otherwise
the answer says which bound cut the search. Plans that need a chain
(first making room on a destination by moving another server away) are
not searched: a plan found is then longer than needed, or none is.
"""

import collections
import dataclasses
import itertools
import time

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.filters import aggregate_filter
from flavor_exporter.capacity.filters import cloud_filters
from flavor_exporter.capacity.filters import tenancy
from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity.fit import fragmentation
from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity.request import request as request_mod

#: Why a server is never moved.
PCI = 'holds PCI devices or vGPUs: Nova does not live-migrate it'
NUMA = ('has a guest NUMA topology whose host cells are not known: the '
        'plan cannot follow it')
AFFINITY = ('is in an affinity server group with other members: moving it '
            'alone breaks the policy')
UNKNOWN_FLAVOR = 'its flavor cannot be read as a Nova request'
#: A server of a searched server's group on a host not searched: only
#: its place counts (anti-affinity), it is never moved nor counted.
ELSEWHERE = 'a group member on a host not searched'


@dataclasses.dataclass(frozen=True)
class Group:
    """A server group (os-server-groups)."""

    id: str
    policy: str
    members: frozenset
    max_server_per_host: int = 1


@dataclasses.dataclass(frozen=True)
class Server:
    """A server on a host, as Nova and Placement show it."""

    id: str
    name: str
    host: str  # its compute service host
    flavor: object  # model.Flavor: the flavor it was booted with
    # {provider uuid: {rc: amount}}: its allocations (Placement)
    allocations: dict
    group: Group | None = None
    #: Why it must not move (not ACTIVE, locked, a policy), or None.
    pinned: str | None = None


@dataclasses.dataclass(frozen=True)
class Move:
    server: Server
    source: str
    destination: str
    source_node: str
    destination_node: str


@dataclasses.dataclass(frozen=True)
class Bounds:
    #: The most moves a plan may have.
    moves: int = 8
    #: The most hosts searched for servers to move away.
    hosts: int = 50
    #: Combinations tried, and the wall time, of one search.
    nodes: int = 200000
    seconds: float = 8.0
    #: Destinations weighed for one server (the fullest that fit).
    destinations: int = 200


@dataclasses.dataclass
class Plan:
    flavor: object  # model.Flavor
    count: int
    available: int
    fragmented: int | None
    moves: list = dataclasses.field(default_factory=list)
    #: Instances the plan adds (at least count when found).
    gained: int = 0
    found: bool = False
    #: Why no plan: one line, None when found.
    reason: str | None = None
    proven_minimal: bool = False
    lower_bound: int | None = None
    #: What cut the search short, one line each (empty: nothing).
    cut: list = dataclasses.field(default_factory=list)
    #: {why: servers} of the servers of the hosts searched never moved.
    pinned: dict = dataclasses.field(default_factory=dict)
    #: [(host, instances more)] of the hosts that gain.
    gains: list = dataclasses.field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    hosts_searched: int = 0


class _Cloud:
    """The hosts as the plan leaves them: free amounts, group members."""

    def __init__(self, report, options):
        self.report = report
        self.options = options
        self.hosts = report.hosts
        self.position = {h.name: i for i, h in enumerate(self.hosts)}
        self.frees = {}
        self.metadata = {}
        self.members = collections.Counter()  # (group id, position)
        self.numa_counts = numa_fit.Counts(options.numa)
        self.cloud = cloud_filters.read(self.hosts)

    def free(self, position):
        found = self.frees.get(position)
        if found is None:
            found = self.frees[position] = fit.free_amounts(
                self.hosts[position])
        return found

    def host_metadata(self, position):
        found = self.metadata.get(position)
        if found is None:
            found = self.metadata[position] = \
                aggregate_filter.host_aggregate_metadata(
                    self.hosts[position].aggregates)
        return found

    def count(self, request, position, frees=None):
        """Instances of request the host takes as the plan leaves it."""
        host = self.hosts[position]
        count, _, _ = fit.fit_certain(request, host, False,
                                      frees or self.free(position))
        if count and request.numa is not None and host.numa is not None \
                and self.options.numa.enabled:
            count = min(count, self.numa_counts.of(request.numa).count(
                host.numa, count))
        return count

    def snapshot(self):
        return ({p: {k: dict(v) for k, v in f.items()}
                 for p, f in self.frees.items()}, collections.Counter(
                     self.members))

    def restore(self, saved):
        self.frees = {p: {k: dict(v) for k, v in f.items()}
                      for p, f in saved[0].items()}
        self.members = collections.Counter(saved[1])

    def release(self, server, position):
        """server leaves the host at position: its allocations come back."""
        frees = self.free(position)
        for uuid, resources in server.allocations.items():
            for rc, amount in resources.items():
                if uuid in frees and rc in frees[uuid]:
                    frees[uuid][rc] += amount
        if fit.INSTANCES in frees:
            frees[fit.INSTANCES][fit.INSTANCES] += 1
        if server.group is not None:
            self.members[server.group.id, position] -= 1

    def admits(self, server, request, position):
        """Whether Nova's scheduler takes server on the host now."""
        host = self.hosts[position]
        if engine._exclusion(host, request, self.options,
                             self.host_metadata(position)):
            return False
        if not tenancy.is_open(self.host_metadata(position),
                               self.options.tenancy):
            # Only named projects' servers may go there: not modelled
            # per server, so never a destination.
            return False
        group = server.group
        if group is not None and group.policy == 'anti-affinity' and \
                self.members[group.id, position] >= \
                group.max_server_per_host:
            return False
        return self.count(request, position) >= 1

    def place(self, server, request, position):
        taken = fit.take_one(request, self.hosts[position],
                             self.free(position))
        if server.group is not None:
            self.members[server.group.id, position] += 1
        return taken is not None


def _why_pinned(server, request, options, hosts_by_name):
    if server.pinned:
        return server.pinned
    if request is None:
        return UNKNOWN_FLAVOR
    if request.pci:
        return PCI
    host = hosts_by_name.get(server.host)
    if host is not None:
        roots = {host.root.uuid} if host.root else set()
        if any(uuid not in roots and amounts
               for uuid, amounts in server.allocations.items()):
            return PCI
        if request.numa is not None and host.numa is not None and \
                options.numa.enabled:
            return NUMA
    group = server.group
    if group is not None and group.policy == 'affinity' and \
            len(group.members) > 1:
        return AFFINITY
    return None


def _size(server):
    flavor = server.flavor
    return (flavor.vcpus, flavor.ram, flavor.disk, server.id)


class _Search:

    def __init__(self, report, options, result, servers, count, bounds,
                 clock):
        self.report = report
        self.options = options
        self.result = result
        self.target = result.request
        self.count_wanted = count
        self.bounds = bounds
        self.clock = clock
        self.started = clock()
        self.nodes = 0
        self.cut = []
        self.cloud = _Cloud(report, options)
        self.hosts_by_name = {h.name: h for h in report.hosts}
        self.requests = {}
        self.pinned = collections.Counter()
        self.movable = collections.defaultdict(list)  # position -> [Server]
        self._read_servers(servers)

    def _request(self, flavor):
        key = (flavor.id, flavor.name)
        if key not in self.requests:
            try:
                self.requests[key] = request_mod.build_request(
                    flavor, self.options.aliases, self.cloud.cloud)
            except request_mod.InvalidExtraSpec:
                self.requests[key] = None
        return self.requests[key]

    def _read_servers(self, servers):
        for server in servers:
            position = self.cloud.position.get(server.host)
            if position is None:
                continue
            if server.group is not None:
                self.cloud.members[server.group.id, position] += 1
            request = self._request(server.flavor)
            why = _why_pinned(server, request, self.options,
                              self.hosts_by_name)
            if why == ELSEWHERE:
                continue
            if why:
                self.pinned[why] += 1
            else:
                self.movable[position].append(server)
        for found in self.movable.values():
            found.sort(key=_size, reverse=True)

    def out_of_time(self):
        return (self.clock() - self.started > self.bounds.seconds
                or self.nodes > self.bounds.nodes)

    # -- which hosts, and what each would need --------------------------

    def eligible(self):
        """{position: instances now} of the hosts counted in available."""
        positions, _, available, _, _ = self.result.per_host.columns()
        found = {}
        for position, now in zip(positions, available):
            if tenancy.is_open(self.cloud.host_metadata(position),
                               self.options.tenancy):
                found[position] = now
        return found

    def candidates(self, eligible):
        """The hosts to search, closest to one more first."""
        ranked = [position for position in rank(self.report, self.result,
                                                eligible)
                  if self.movable.get(position)
                  and self._may_gain(position, eligible[position])]
        if len(ranked) > self.bounds.hosts:
            self.cut.append('%d of %d hosts with servers that may move '
                            'searched (the closest to one more)'
                            % (self.bounds.hosts, len(ranked)))
        return ranked[:self.bounds.hosts]

    def _may_gain(self, position, now):
        """Whether the host takes one more with all its movable gone."""
        frees = {k: dict(v) for k, v in self.cloud.free(position).items()}
        for server in self.movable[position]:
            for uuid, amounts in server.allocations.items():
                for rc, amount in amounts.items():
                    if uuid in frees and rc in frees[uuid]:
                        frees[uuid][rc] += amount
            if fit.INSTANCES in frees:
                frees[fit.INSTANCES][fit.INSTANCES] += 1
        return self.cloud.count(self.target, position, frees) > now

    def hosts_by_position(self, position):
        return self.cloud.hosts[position]

    def evictions(self, position, now, most):
        """{e: [server sets]} of the smallest sets freeing e more (1..most).

        Sets of one size are kept while the size is the least found for
        some e; None marks a size cut short by the bounds.
        """
        servers = self.movable[position]
        base = self.cloud.free(position)
        found = {}
        complete = True
        for size in range(self._fewest(position, now, servers),
                          min(len(servers), self.bounds.moves) + 1):
            if len(found) == most and all(
                    len(next(iter(sets))) < size
                    for sets in found.values()):
                break
            for combo in itertools.combinations(servers, size):
                self.nodes += 1
                if self.out_of_time():
                    complete = False
                    break
                frees = {k: dict(v) for k, v in base.items()}
                for server in combo:
                    for uuid, amounts in server.allocations.items():
                        for rc, amount in amounts.items():
                            if uuid in frees and rc in frees[uuid]:
                                frees[uuid][rc] += amount
                    if fit.INSTANCES in frees:
                        frees[fit.INSTANCES][fit.INSTANCES] += 1
                gained = min(self.cloud.count(self.target, position,
                                              frees) - now, most)
                for e in range(1, gained + 1):
                    sets = found.setdefault(e, [])
                    if not sets or len(sets[0]) == size:
                        if len(sets) < 4:
                            sets.append(combo)
            if not complete:
                break
        return found, complete

    def _fewest(self, position, now, servers):
        """A bound below the servers to move for one more.

        Per class, as many of the largest as cover what is missing.
        """
        free = collections.Counter()
        for amounts in self.cloud.free(position).values():
            for rc, amount in amounts.items():
                free[rc] += max(0, amount)
        fewest = 1
        for group in self.target.groups:
            for rc, amount in group.resources.items():
                missing = amount * (now + 1) - free[rc]
                if missing <= 0:
                    continue
                sizes = sorted((sum(a.get(rc, 0) for a in
                                    s.allocations.values())
                                for s in servers), reverse=True)
                covered = k = 0
                while covered < missing and k < len(sizes):
                    covered += sizes[k]
                    k += 1
                fewest = max(fewest, k)
        return fewest

    # -- making it, move by move --------------------------------------

    def destinations(self, server, request, source, avoid):
        """Destinations for server, best first (least loss, fullest)."""
        zone = self.cloud.hosts[source].availability_zone
        shortlist = self._shortlist(server, request)
        ranked = []
        for position in shortlist:
            host = self.cloud.hosts[position]
            if position == source or position in avoid or \
                    host.availability_zone != zone:
                continue
            if not self.cloud.admits(server, request, position):
                continue
            before = self.cloud.count(self.target, position) \
                if position in self.target_hosts else 0
            frees = {k: dict(v) for k, v in self.cloud.free(
                position).items()}
            if fit.take_one(request, host, frees) is None:
                continue
            after = self.cloud.count(self.target, position, frees) \
                if position in self.target_hosts else 0
            room = sum(max(0, a) for amounts in frees.values()
                       for rc, a in amounts.items()
                       if rc in ('VCPU', 'MEMORY_MB'))
            ranked.append((before - after, room, host.name, position))
            if len(ranked) >= self.bounds.destinations:
                break
        ranked.sort()
        return [position for *_, position in ranked]

    def _shortlist(self, server, request):
        """Hosts the server's flavor fits on in the report, fullest first.

        The report's numbers of a flavor of that name when it has one
        (the server's flavor as it was booted may differ from today's:
        admits() checks again), else every host.
        """
        for other in self.report.flavors:
            if other.flavor.name == server.flavor.name and \
                    other.request is not None:
                positions, _, available, _, _ = other.per_host.columns()
                pairs = sorted((a, p) for p, a in zip(positions, available)
                               if a > 0)
                return [p for _, p in pairs]
        return range(len(self.cloud.hosts))

    def realise(self, choice, options):
        """[Move] making choice ({position: e}), or None."""
        saved = self.cloud.snapshot()
        moves = []
        avoid = set(choice)
        for position, e in sorted(choice.items()):
            done = False
            for combo in options[position][e]:
                inner = self.cloud.snapshot()
                made = self._evict(combo, position, avoid)
                if made is not None:
                    moves += made
                    done = True
                    break
                self.cloud.restore(inner)
                if self.out_of_time():
                    break
            if not done:
                self.cloud.restore(saved)
                return None
        return moves

    def _evict(self, combo, source, avoid):
        moves = []
        for server in combo:
            request = self._request(server.flavor)
            self.nodes += 1
            targets = self.destinations(server, request, source, avoid)
            if not targets:
                return None
            destination = targets[0]
            self.cloud.release(server, source)
            self.cloud.place(server, request, destination)
            moves.append(Move(server, self.cloud.hosts[source].name,
                              self.cloud.hosts[destination].name,
                              self.cloud.hosts[source].node,
                              self.cloud.hosts[destination].node))
        return moves


def rank(report, result, positions):
    """positions (of report.hosts), closest to one more instance first.

    By the share of one instance a host misses, over every demand of the
    flavor (fragmentation.host_sources: its classes, PCI devices, GPU
    aggregate pools, instance slots), after the instances it takes now.
    """
    ranked = []
    for position in positions:
        host = report.hosts[position]
        frees = fit.free_amounts(host)
        demands = fragmentation.host_sources(result.request, host,
                                             set(frees))
        free = {demand: sum(max(0, frees.get(where, {}).get(rc, 0))
                            for where, rc in sources)
                for demand, (_, sources) in demands.items()}
        now = min([free[d] // need for d, (need, _) in demands.items()]
                  or [0])
        missing = max([(need * (now + 1) - free[d]) / need
                       for d, (need, _) in demands.items()] or [0])
        ranked.append((missing, host.name, position))
    ranked.sort()
    return [position for _, _, position in ranked]


def _knapsack(costs, wanted):
    """{position: e} of least total cost with sum(e) >= wanted, and cost.

    costs: {position: {e: cost}}. Exact (dynamic programming over hosts).
    """
    best = {0: (0, {})}
    for position, by_e in costs.items():
        nxt = dict(best)
        for got, (cost, choice) in best.items():
            for e, c in by_e.items():
                total = min(wanted, got + e)
                picked = dict(choice)
                picked[position] = e
                candidate = (cost + c, picked)
                if total not in nxt or candidate[0] < nxt[total][0]:
                    nxt[total] = candidate
        best = nxt
    return best.get(wanted)


def plan(report, options, result, servers, count, bounds=Bounds(),
         clock=time.monotonic):
    """The Plan of the fewest moves found after which count more start.

    result: the engine's FlavorCapacity of the flavor in report;
    servers: the Server list of (at least) the hosts worth searching.
    """
    figures = result.fragmentation
    found = Plan(result.flavor, count, result.available,
                 figures.fragmented if figures else None)
    if result.request is None:
        found.reason = 'Nova refuses the flavor: %s' % result.error
        return found
    if figures is not None and figures.fragmented < count:
        found.reason = (
            'the free resources pooled per availability zone hold %d more '
            '%s, fewer than %d: no migration can start them; the cloud '
            'needs more capacity' % (figures.fragmented, result.flavor.name,
                                     count))
        return found
    search = _Search(report, options, result, servers, count, bounds, clock)
    try:
        _search(search, found)
    finally:
        found.nodes = search.nodes
        found.seconds = round(clock() - search.started, 3)
        found.pinned = dict(sorted(search.pinned.items()))
        found.cut = list(search.cut)
    return found


def _search(search, found):
    count = found.count
    eligible = search.eligible()
    search.target_hosts = set(eligible)
    hosts = search.candidates(eligible)
    found.hosts_searched = len(hosts)
    options, costs = {}, {}
    complete = True
    for position in hosts:
        sets, done = search.evictions(position, eligible[position], count)
        complete = complete and done
        if sets:
            options[position] = sets
            costs[position] = {e: len(s[0]) for e, s in sets.items()}
        if not done:
            search.cut.append('search bound reached (%d combinations or '
                              '%.1f s) while listing the servers to move '
                              'off the hosts' % (search.bounds.nodes,
                                                 search.bounds.seconds))
            break
    choice = _knapsack(costs, count)
    if choice is None:
        found.reason = _why_none(search, hosts)
        return
    found.lower_bound = choice[0] if complete and not search.cut else None
    tried = 0
    while choice is not None and not search.out_of_time():
        tried += 1
        moves = search.realise(choice[1], options)
        if moves is not None:
            gained = _gained(search, eligible)
            if gained >= count:
                found.moves = moves
                found.found = True
                found.gained = gained
                found.gains = sorted(
                    (search.cloud.hosts[p].name, e)
                    for p, e in choice[1].items())
                found.proven_minimal = (found.lower_bound is not None and
                                        len(moves) == found.lower_bound)
                return
        # That choice could not be made: leave out its costliest host.
        worst = max(choice[1], key=lambda p: (costs[p][choice[1][p]], p))
        costs.pop(worst)
        choice = _knapsack(costs, count)
    if search.out_of_time():
        search.cut.append('search bound reached while placing servers')
    found.reason = (
        'no plan of at most %d moves found: the servers that would free '
        'room find no destination with room in their zone (a plan needing '
        'a chain of moves is not searched)' % search.bounds.moves)


def _gained(search, eligible):
    """Instances of the flavor the plan adds over the hosts it touched."""
    gained = 0
    for position in eligible:
        if position in search.cloud.frees:
            host = search.cloud.hosts[position]
            gained += (search.cloud.count(search.target, position)
                       - search.cloud.count(search.target, position,
                                            fit.free_amounts(host)))
    return gained


def _why_none(search, hosts):
    if not hosts:
        pinned = ', '.join('%d %s' % (n, why) for why, n in
                           sorted(search.pinned.items()))
        return ('no host the flavor may use has a server that can move%s'
                % (' (%s)' % pinned if pinned else ''))
    return ('no host the flavor may use takes %d more once up to %d of its '
            'movable servers leave%s' % (
                search.count_wanted, search.bounds.moves,
                ' (never moved: %s)' % ', '.join(
                    '%d %s' % (n, why) for why, n in
                    sorted(search.pinned.items()))
                if search.pinned else ''))


def commands(found):
    """The openstack commands that carry out a plan, in order."""
    return ['openstack server migrate --live-migration --host %s %s'
            % (move.destination, move.server.id) for move in found.moves]


def watcher_actions(found):
    """The plan as Watcher's action list (migrate, live), in order."""
    actions = []
    for move in found.moves:
        actions.append({
            'action_type': 'migrate',
            'input_parameters': {
                'migration_type': 'live',
                'source_node': move.source,
                'destination_node': move.destination,
                'resource_id': move.server.id,
                'resource_name': move.server.name}})
    return actions
