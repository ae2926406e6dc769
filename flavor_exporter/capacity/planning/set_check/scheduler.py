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
"""Can a set of servers start together? Nova's scheduler, server by server.

A set is a list of requests in launch order, each N servers of one
flavor: N successive boot requests, or one multi-create request
(min_count..N). Each request is checked as Nova's API and scheduler
would: the flavor and zone, the project's quota (a multi-create starts
as many as the quota allows between min_count and N), then for each
server the hosts that fit (the engine's per-host counts, recounted on
every host a server of the set went to) and pass the filters that
depend on the request (zone, tenant isolation, server group), weighed
(weighers.py) and the best taken. The first request Nova would refuse
ends the check: nothing after it is tried, as a client launching the
set in order stops there.

What one server takes from its host is what Nova changes: Placement's
usage (fit.take_one), the NUMA cells, and the figures the weighers read,
both as the scheduler consumes them within one request
(HostState.consume_from_request: free RAM, free disk of root and
ephemeral, vCPUs, instances, I/O operations) and as the compute node's
record says afterwards, which the next request reads again (the same,
but its free disk is also bounded by the driver's disk_available_least,
which only the next audit changes).

Within a multi-create, Nova weighs the hosts that had room when the
request began (Placement is asked once) and claims on the best where
Placement still has room: a full host still counts in the
normalization. All of its servers start, or none.
"""

import collections
import dataclasses
import math

import numpy

from flavor_exporter.capacity.filters import aggregate_filter
from flavor_exporter.capacity.filters import tenancy
from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity.quota import quota as quota_mod
from flavor_exporter.capacity.weights import weighers
from flavor_exporter.common import set_request

# What stops a request (Stop.kind).
FLAVOR = 'flavor'
ZONE = 'availability_zone'
QUOTA = 'quota'
SERVER_GROUP = 'server_group'
RESOURCES = 'resources'

#: Alternatives named for a request that does not fit.
ALTERNATIVES = 3
# Flavors of the same kind counted, nearest first, to find them.
_ALTERNATIVES_TRIED = 20


@dataclasses.dataclass(frozen=True)
class Placed:
    """Where one server starts: the host, and the others of equal weight.

    Nova takes one of the tied hosts in an order its process's string
    hashing decides; the one named here is the first by name.
    """

    host: str
    node: str
    zone: str | None
    tied: tuple = ()


@dataclasses.dataclass(frozen=True)
class Stop:
    """Why a request does not start (whole, or beyond its started ones)."""

    kind: str
    reason: str
    limit: str | None = None


@dataclasses.dataclass
class Outcome:
    """What one request of the set does."""

    wanted: set_request.Wanted
    flavor: object = None  # model.Flavor, None when not found
    started: list = dataclasses.field(default_factory=list)  # Placed
    stop: Stop | None = None
    reached: bool = True
    # [(model.Flavor, how many would start)] when it does not fit.
    alternatives: list = dataclasses.field(default_factory=list)
    notes: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class SetAnswer:
    fits: bool
    outcomes: list
    notes: list


def _lookup(report, key):
    """The FlavorCapacity of an id, else of a name (ids win), or None."""
    by_name = None
    for result in report.flavors:
        if result.flavor.id == key:
            return result
        if by_name is None and result.flavor.name == key:
            by_name = result
    return by_name


def _usable_by(flavor, project_id):
    if flavor.is_public:
        return True
    return project_id is not None and project_id in (flavor.projects or ())


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


class _Fits:
    """How many servers of one flavor each host takes now (an array)."""

    def __init__(self, result, columns):
        self.result = result
        self.request = result.request
        n = len(columns.hosts)
        self.now = numpy.zeros(n, dtype=numpy.int64)
        self.eligible = numpy.zeros(n, dtype=bool)
        self.labels = {}  # position -> what limits the host
        positions, _, available, labels, codes = result.per_host.columns()
        positions = numpy.asarray(positions, dtype=numpy.int64)
        self.now[positions] = available
        self.eligible[positions] = True
        for position, code in zip(positions.tolist(), codes):
            if code >= 0:
                self.labels[position] = labels[code]


class _Check:
    """One check's scheduler: the hosts' state as the set starts."""

    def __init__(self, report, options, settings, columns, request,
                 quota, numa_counts):
        self.report = report
        self.options = options
        self.settings = settings
        self.columns = columns.copy()
        self.hosts = columns.hosts
        self.request = request
        self.quota = quota
        self.numa_counts = numa_counts or numa_fit.Counts(options.numa)
        self.group = request.group
        self.members = numpy.zeros(len(self.hosts), dtype=numpy.int64)
        self.frees = {}  # position -> fit.free_amounts, once touched
        self.numa = {}  # position -> numa_fit.HostNuma, once touched
        self.fits = {}  # flavor id -> _Fits
        self.touched = set()
        # (position, flavor id) -> the providers its last server took from
        self.taken_from = {}
        # (position, resource class) -> flavor ids whose provider was a
        # guess (fit.Taken.guessed)
        self.guesses = {}
        # Within a multi-create: position -> what the request's first
        # server there took (fit.Taken.amounts), the allocation request
        # Nova claims again for each server it sends to the host.
        self.request_claims = None
        self._masks = {}
        # The most hosts any server of the set could go to.
        self.most_candidates = 0

    # -- the hosts a request may go to -------------------------------

    def _static_mask(self, fits):
        """Hosts the flavor may use whatever the set does: zone, tenancy."""
        key = fits.result.flavor.id
        mask = self._masks.get(key)
        if mask is not None:
            return mask
        mask = fits.eligible.copy()
        zone = self.request.availability_zone
        if zone is not None and zone not in self.columns.unrestricted:
            mask &= numpy.array([z == zone for z in self.columns.zones],
                                dtype=bool)
        isolation = self.options.tenancy
        if isolation.enabled:
            project_id = self.request.project_id
            own = tenancy.project_aggregates(self.report.aggregates,
                                             project_id) \
                if project_id else frozenset()
            for position in numpy.flatnonzero(mask).tolist():
                host = self.hosts[position]
                metadata = aggregate_filter.host_aggregate_metadata(
                    host.aggregates)
                if project_id is None:
                    usable = tenancy.is_open(metadata, isolation)
                else:
                    usable = tenancy.why_not(
                        metadata, tenancy.aggregate_ids(host.aggregates),
                        project_id, own, isolation) is None
                mask[position] = usable
        self._masks[key] = mask
        return mask

    def _group_mask(self, placed_hosts):
        """ServerGroup(Anti)AffinityFilter over every host, or None."""
        if self.group is None:
            return None
        if self.group.policy == 'affinity':
            if not placed_hosts:
                return None
            mask = numpy.zeros(len(self.hosts), dtype=bool)
            mask[list(placed_hosts)] = True
            return mask
        if self.group.policy == 'anti-affinity':
            return self.members < (self.group.max_server_per_host or 1)
        return None

    # -- weighing ---------------------------------------------------

    def _raw(self, weigher, candidates, disk_mb, members):
        c = self.columns
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
        policy = self.group.policy if self.group else None
        if name == 'ServerGroupSoftAffinityWeigher' and \
                policy == 'soft-affinity':
            return members[candidates]
        if name == 'ServerGroupSoftAntiAffinityWeigher' and \
                policy == 'soft-anti-affinity':
            return -members[candidates]
        return None  # 0 for every host: adds nothing

    def _best(self, weighed, now_fits, disk_mb):
        """(position, tied positions) of the best host that fits, or None.

        weighed: the hosts Nova weighs, in position order; now_fits: a
        mask of those Placement still has room on.
        """
        weights = weighers.weigh(
            self.settings, self.columns.multipliers,
            lambda w, cand: self._raw(w, cand, disk_mb, self.members),
            weighed)
        usable = now_fits[weighed]
        if not usable.any():
            return None
        weights = numpy.where(usable, weights, -numpy.inf)
        best = weights.max()
        tied = weighed[weights == best].tolist()
        tied.sort(key=lambda p: (self.hosts[p].name, self.hosts[p].node))
        return tied[0], tied[1:]

    # -- taking a server's resources -----------------------------------

    def _fits(self, result):
        found = self.fits.get(result.flavor.id)
        if found is None:
            found = self.fits[result.flavor.id] = _Fits(result,
                                                        self.columns)
            for position in self.touched:
                self._recount(found, position)
        return found

    def _frees(self, position):
        frees = self.frees.get(position)
        if frees is None:
            frees = self.frees[position] = fit.free_amounts(
                self.hosts[position])
        return frees

    def _recount(self, fits, position):
        if not fits.eligible[position]:
            return
        host = self.hosts[position]
        count, label, _ = fit.fit_certain(fits.request, host, False,
                                          self._frees(position))
        guest = fits.request.numa
        numa = self.numa.get(position, host.numa)
        if count and guest is not None and numa is not None and \
                self.options.numa.enabled:
            bounded = self.numa_counts.of(guest).count(numa, count)
            if bounded < count:
                count, label = bounded, 'NUMA cells'
        fits.now[position] = count
        if label:
            fits.labels[position] = label
        else:
            fits.labels.pop(position, None)

    def _take(self, fits, position, disk_mb):
        """One server of fits' flavor starts on position."""
        host = self.hosts[position]
        flavor = fits.result.flavor
        request = fits.request
        claims = self.request_claims
        # Within a multi-create, the request's claim there again (_room
        # saw it fit); else Nova's usual choice (fit.take_one).
        again = claims is not None and position in claims
        prefer = ({key for key, _ in claims[position]} if again
                  else self.taken_from.get((position, flavor.id), ()))
        taken = fit.take_one(request, host, self._frees(position), prefer)
        self.taken_from[position, flavor.id] = taken.keys
        if not again:
            for rc in taken.guessed:
                self.guesses.setdefault((position, rc), set()).add(
                    flavor.id)
            if claims is not None:
                # PciPassthroughFilter drops the candidates whose devices
                # the request took: which device comes next is not fixed.
                devices = {p.uuid for p in host.providers
                           if fit.MANAGED_PCI_TRAIT in p.traits}
                claims[position] = {(key, rc): amount for (key, rc), amount
                                    in taken.amounts.items()
                                    if key not in devices}
        numa = self.numa.get(position, host.numa)
        if request.numa is not None and numa is not None and \
                self.options.numa.enabled:
            claims = numa_fit.fit(numa, request.numa, self.options.numa)
            placed = claims and numa_fit.place(numa, request.numa, claims)
            if placed:
                self.numa[position] = placed
        c = self.columns
        c.free_ram[position] -= flavor.ram
        disk_gb = flavor.disk + flavor.ephemeral
        disk_mb[position] -= disk_gb * 1024
        # The compute node's record also counts swap, in whole GiB.
        c.free_disk_gb[position] -= disk_gb + flavor.swap // 1024
        c.vcpus_used[position] += flavor.vcpus
        c.instances[position] += 1
        c.io_ops[position] += 1
        c.pci_free[position] -= sum(d.count for d in request.pci)
        if self.group is not None:
            self.members[position] += 1
        self.touched.add(position)
        for other in self.fits.values():
            self._recount(other, position)
        return Placed(host.name, host.node, host.availability_zone)

    def _undo(self, saved):
        (self.columns, self.members, self.frees, self.numa, self.fits,
         self.touched, self.taken_from, self.guesses) = saved

    def _save(self):
        return (self.columns.copy(), self.members.copy(),
                {p: {k: dict(v) for k, v in f.items()}
                 for p, f in self.frees.items()},
                dict(self.numa),
                {k: _copy_fits(v) for k, v in self.fits.items()},
                set(self.touched), dict(self.taken_from),
                {k: set(v) for k, v in self.guesses.items()})

    def guessed_hosts(self, results):
        """Hosts where a guessed provider may change what the set gets.

        Only where another flavor of the set takes the same class: one
        flavor's servers fit alike whichever provider they start on.
        """
        classes = {r.flavor.id: fit.request_classes(r.request)
                   for r in results if r is not None}
        return sorted({self.hosts[position].name
                       for (position, rc), guessers in self.guesses.items()
                       if len(guessers | {flavor_id for flavor_id, taking
                                          in classes.items()
                                          if rc in taking}) > 1})

    # -- requests -------------------------------------------------------

    def servers(self, fits, count, placed_hosts, multi):
        """([Placed], Stop or None): up to count servers of fits.

        multi: one request for all of them (all or none start);
        placed_hosts: the hosts of the group's servers so far.
        """
        static = self._static_mask(fits)
        started = []
        disk_mb = self.columns.disk_mb()
        weighed = None
        self.request_claims = {} if multi else None
        for _ in range(count):
            if not multi:
                disk_mb = self.columns.disk_mb()
            group = self._group_mask(placed_hosts)
            if multi:
                if weighed is None:
                    weighed = static & (fits.now > 0)
                candidates = weighed if group is None else weighed & group
                # Hosts a filter dropped stay out for the request.
                weighed = candidates
            else:
                candidates = static & (fits.now > 0)
                if group is not None:
                    candidates = candidates & group
            positions = numpy.flatnonzero(candidates)
            self.most_candidates = max(self.most_candidates, positions.size)
            best = self._best(positions, self._room(fits), disk_mb) \
                if positions.size else None
            if best is None:
                return started, self._why_not(fits, static, group)
            position, tied = best
            placed = self._take(fits, position, disk_mb)
            if multi and fits.now[position] == 0 and \
                    _filtered_when_full(fits, position):
                weighed[position] = False
            started.append(dataclasses.replace(placed, tied=tuple(
                self.hosts[p].name for p in tied)))
            placed_hosts.add(position)
        return started, None

    def _room(self, fits):
        """The hosts Nova's claim for one more server of fits succeeds on.

        Within a multi-create Placement was asked once: each host's claim
        is its first allocation candidate again (but for Nova's PCI
        devices, see _take), which fails where those providers are full
        though others of the host have room.
        """
        room = fits.now > 0
        for position, amounts in (self.request_claims or {}).items():
            if room[position] and not fit.can_claim(self._frees(position),
                                                    amounts):
                room[position] = False
        return room

    def _why_not(self, fits, static, group):
        """The Stop of a server no host takes."""
        flavor = fits.result.flavor
        claimable = self._room(fits)
        room = static & claimable
        if group is not None and room.any():
            policy = self.group.policy
            if policy == 'affinity':
                reason = ('affinity: the group\'s host has no room for '
                          'another %s' % flavor.name)
            else:
                reason = ('anti-affinity: every host with room for %s '
                          'holds %d member(s) of the group already'
                          % (flavor.name,
                             self.group.max_server_per_host or 1))
            return Stop(SERVER_GROUP, reason, policy)
        if not static.any():
            why = 'no host the request may use fits %s' % flavor.name
            if self.request.availability_zone is not None:
                why += ' in zone %s' % self.request.availability_zone
            return Stop(RESOURCES, why, fits.result.limited_by)
        refused = [p for p in self.request_claims or ()
                   if static[p] and fits.now[p] > 0 and not claimable[p]]
        if refused:
            return self._claims_refused(flavor, refused)
        limits = collections.Counter(
            fits.labels.get(p) for p in numpy.flatnonzero(static).tolist())
        limits.pop(None, None)
        limit = min(limits.items(), key=lambda item: (-item[1], item[0]))[0] \
            if limits else None
        return Stop(RESOURCES, 'no valid host: the hosts %s fits on are '
                    'full%s' % (flavor.name, ' (%s)' % limit if limit
                                else ''), limit)

    def _claims_refused(self, flavor, positions):
        """The Stop of a multi-create whose claims fail on hosts with room."""
        full = sorted({rc for p in positions
                       for (key, rc), amount in self.request_claims[p].items()
                       if self._frees(p)[key][rc] < amount})
        hosts = ', '.join(sorted(self.hosts[p].name for p in positions))
        return Stop(RESOURCES, 'no valid host: a multi-create claims each '
                    'host\'s first allocation candidate again for every '
                    'server, and on %s its %s provider is full (others have '
                    'room for %s)' % (hosts, '+'.join(full), flavor.name),
                    full[0] if full else None)

    def alternatives(self, result, placed_hosts):
        """Flavors like result's that would start now, nearest first."""
        kind = result.gpu[0] if result.gpu else None
        tried = 0
        found = []
        for other in sorted(
                (r for r in self.report.flavors
                 if r is not result and r.request is not None
                 and (r.gpu[0] if r.gpu else None) == kind
                 and _usable_by(r.flavor, self.request.project_id)),
                key=lambda r: (_distance(result, r), r.flavor.name)):
            if tried == _ALTERNATIVES_TRIED or len(found) == ALTERNATIVES:
                break
            tried += 1
            count = self.would_start(other, placed_hosts)
            if count:
                found.append((other.flavor, count))
        return found

    def would_start(self, result, placed_hosts):
        """Servers of result's flavor that would start one by one now."""
        fits = self._fits(result)
        room = self._static_mask(fits) & (fits.now > 0)
        group = self._group_mask(placed_hosts)
        if group is not None:
            room &= group
        per_host = fits.now[room]
        if self.group is not None and self.group.policy == 'anti-affinity':
            per_host = numpy.minimum(
                per_host, (self.group.max_server_per_host or 1)
                - self.members[room])
        elif self.group is not None and self.group.policy == 'affinity' \
                and not placed_hosts:
            per_host = per_host.max(initial=0, keepdims=True)
        count = int(per_host.sum())
        headroom = self._headroom(result)
        return count if headroom is None else min(count, headroom)

    def _headroom(self, result):
        if self.quota is None:
            return None
        return quota_mod.headroom(self.quota, result.flavor,
                                  result.request).instances


def _filtered_when_full(fits, position):
    """Whether a filter drops a host that took its last server of fits.

    Within a multi-create the scheduler keeps weighing the hosts
    Placement offered when the request began; a filter that reads the
    consumed host state (NUMATopologyFilter, NumInstancesFilter,
    PciPassthroughFilter) drops one for the rest of the request, while a
    host out of Placement resources stays weighed and its claim fails.
    """
    label = fits.labels.get(position)
    pci = {d.resource_class for d in fits.request.pci if d.resource_class}
    return label is not None and (
        label in ('NUMA cells', fit.INSTANCES, fit.GPU_POOL) or label in pci)


def _copy_fits(fits):
    other = object.__new__(_Fits)
    other.__dict__.update(fits.__dict__)
    other.now = fits.now.copy()
    other.labels = dict(fits.labels)
    return other


def _distance(result, other):
    """How far other's flavor is in size from result's (log ratios)."""
    a, b = result.flavor, other.flavor

    def ratio(x, y):
        return abs(math.log2(max(x, 1) / max(y, 1)))
    gpus = abs((result.gpu[1] if result.gpu else 0)
               - (other.gpu[1] if other.gpu else 0))
    return ratio(a.vcpus, b.vcpus) + ratio(a.ram, b.ram) + gpus


def _group_quota(quota):
    """The project's server_group_members limit, None when unlimited."""
    return None if quota is None else quota.group_members_limit()


def check(report, options, settings, columns, request, quota=None,
          numa_counts=None):
    """The SetAnswer of a SetRequest on a report (engine.compute's).

    columns: Columns(report, settings), kept between checks of a report;
    quota: the project's quota.ProjectQuota, None when not checked.
    """
    state = _Check(report, options, settings, columns, request, quota,
                   numa_counts)
    notes = weighers.unmodelled(settings)
    if columns.without_figures:
        notes.append('%d host(s) without the compute node figures of '
                     'os-hypervisors: weighed from Placement, with no I/O '
                     'operations' % columns.without_figures)
    if columns.without_stats and weighers.reads_stats(settings):
        notes.append(
            '%d host(s) weighed without their stats (IoOpsWeigher counts '
            'the builds since the compute\'s last audit, '
            'BuildFailureWeigher its failed builds; only the cell '
            'database shows them, [openstack] cell_database_connections): '
            'taken as the builds under way and none failed'
            % columns.without_stats)
    if request.project_id is None:
        notes.append('no project: quotas not checked')
    outcomes = [Outcome(wanted) for wanted in request.servers]
    zone_stop = _zone_stop(report, request.availability_zone)
    placed_hosts = set()
    members = 0
    results = [_lookup(report, o.wanted.flavor) for o in outcomes]
    for outcome, result in zip(outcomes, results):
        outcome.flavor = result.flavor if result else None
    for index, (outcome, result) in enumerate(zip(outcomes, results)):
        wanted = outcome.wanted
        outcome.stop = zone_stop or _flavor_stop(result, wanted, request)
        if outcome.stop is None:
            outcome.notes = list(result.request.unsupported)
            outcome.stop = _start(state, outcome, result, placed_hosts,
                                  members)
            members += len(outcome.started)
        if outcome.stop is not None:
            if outcome.stop.kind in (RESOURCES, SERVER_GROUP, QUOTA) and \
                    result is not None:
                outcome.alternatives = state.alternatives(result,
                                                          placed_hosts)
            for later in outcomes[index + 1:]:
                later.reached = False
            break
    guessed = state.guessed_hosts(results)
    if guessed:
        notes.append(
            'on %s a server took from one of several unlike providers of '
            'a class another flavor of the set takes too (a VGPU provider '
            'per physical GPU): which one is Placement\'s order, not known '
            'outside its process; the check took Nova\'s usual choice (the '
            'provider the flavor\'s last server took, else the fullest), '
            'and the servers after may differ' % ', '.join(guessed))
    if state.most_candidates > settings.max_results:
        notes.append(
            'up to %d hosts fit a server; Nova weighs only the %d '
            'Placement offers first (max_placement_results; '
            'randomize_allocation_candidates decides which): the hosts '
            'named are the best of all' % (state.most_candidates,
                                           settings.max_results))
    return SetAnswer(all(o.stop is None for o in outcomes), outcomes, notes)


def _zone_stop(report, zone):
    if zone is None:
        return None
    offered = set(report.unrestricted_zones) | {
        host.availability_zone for host in report.hosts
        if host.enabled and host.availability_zone}
    if zone in offered:
        return None
    return Stop(ZONE, 'Nova offers no availability zone %s (no enabled '
                'compute service is in it): it refuses the request' % zone)


def _flavor_stop(result, wanted, request):
    if result is None:
        return Stop(FLAVOR, 'no flavor with the id or name %s' % wanted.flavor)
    if result.request is None:
        return Stop(FLAVOR, 'Nova refuses flavor %s: %s'
                    % (result.flavor.name, result.error))
    if request.project_id is not None and \
            not _usable_by(result.flavor, request.project_id):
        return Stop(FLAVOR, 'flavor %s is private and not shared with '
                    'project %s' % (result.flavor.name, request.project_id))
    return None


def _start(state, outcome, result, placed_hosts, members_before):
    """Start outcome's servers on state; the Stop of the rest or None."""
    wanted = outcome.wanted
    fits = state._fits(result)
    print_ = quota_mod.footprint_of(state.quota, result.flavor,
                                    result.request)
    group_limit = _group_quota(state.quota) if state.group else None
    if wanted.mode == set_request.MULTI_CREATE:
        count, stop = _multi_count(state, result, print_, wanted,
                                   group_limit, members_before)
        if stop is not None:
            return stop
        saved, hosts_before = state._save(), set(placed_hosts)
        started, stop = state.servers(fits, count, placed_hosts, multi=True)
        if stop is not None:
            # All or nothing: Nova gives back every claim of the request.
            state._undo(saved)
            placed_hosts.clear()
            placed_hosts.update(hosts_before)
            return Stop(stop.kind, 'the multi-create request of %d fails '
                        'whole (%d placed before): %s'
                        % (count, len(started), stop.reason), stop.limit)
        outcome.started = started
        state.quota = quota_mod.consumed(state.quota, print_, count)
        return None
    for _ in range(wanted.count):
        if group_limit is not None and \
                members_before + len(outcome.started) >= group_limit:
            return Stop(QUOTA, 'the project\'s server_group_members quota '
                        '(%d) is reached' % group_limit,
                        'server_group_members')
        headroom = quota_mod.footprint_headroom(state.quota, print_)
        if headroom.instances is not None and headroom.instances < 1:
            return Stop(QUOTA, 'the project\'s quota is exhausted (%s)'
                        % headroom.limited_by, headroom.limited_by)
        started, stop = state.servers(fits, 1, placed_hosts, multi=False)
        if stop is not None:
            return stop
        outcome.started += started
        state.quota = quota_mod.consumed(state.quota, print_, 1)
    return None


def _multi_count(state, result, print_, wanted, group_limit, members):
    """(servers a multi-create makes, None) or (0, the quota's Stop)."""
    count = wanted.count
    headroom = quota_mod.footprint_headroom(state.quota, print_)
    if headroom.instances is not None and headroom.instances < count:
        refused = headroom.instances < wanted.min_count
        if print_.system == quota_mod.DB and \
                state.quota.limits.get('instances', -1) < 0:
            # Nova derives the headroom of cores and RAM from that of
            # instances, negative when unlimited: nothing starts.
            refused = True
        if refused:
            return 0, Stop(QUOTA, 'the project\'s quota allows %d, fewer '
                           'than min_count %d (%s)' % (
                               headroom.instances, wanted.min_count,
                               headroom.limited_by), headroom.limited_by)
        count = headroom.instances
    if group_limit is not None and members + count > group_limit:
        # Checked per server once the count is set: the request fails.
        return 0, Stop(QUOTA, 'the project\'s server_group_members quota '
                       '(%d) is exceeded by %d more' % (group_limit, count),
                       'server_group_members')
    return count, None


def place_each(report, options, settings, columns, servers,
               numa_counts=None):
    """Servers moved one by one, as Nova schedules each move: (placed, state).

    servers: [(flavor id or name, project id or None)] in the order Nova
    is asked; each is one request of one server (a migration or an
    evacuation schedules the instance alone), filtered and weighed on the
    hosts as the moves before left them, the project's tenant aggregates
    applying. placed: one (Placed or None, Stop or None) per server; a
    server no host takes does not stop the others (an operator's loop
    goes on). state: the _Check, whose frees, numa and columns say what
    the hosts hold after (what-if, capacity/planning/whatif.py). A move
    keeps the server's flavor, so neither flavor access nor quota is
    checked.
    """
    state = _Check(report, options, settings, columns,
                   set_request.SetRequest(()), None, numa_counts)
    placed = []
    for key, project_id in servers:
        result = _lookup(report, key)
        if result is None or result.request is None:
            placed.append((None, _flavor_stop(
                result, set_request.Wanted(key, 1), state.request)))
            continue
        if state.request.project_id != project_id:
            # The tenant filters read the project: masks are per project.
            state.request = dataclasses.replace(state.request,
                                                project_id=project_id)
            state._masks.clear()
        started, stop = state.servers(state._fits(result), 1, set(),
                                      multi=False)
        if started:
            # The compute node's record counts a boot as an I/O operation
            # and an instance at once (its claim updates the node's
            # stats), a move claim neither until the next audit: the
            # scheduler reads the record again for the next move.
            position = state.columns.position[started[0].host]
            state.columns.io_ops[position] -= 1
            state.columns.instances[position] -= 1
        placed.append((started[0] if started else None, stop))
    return placed, state
