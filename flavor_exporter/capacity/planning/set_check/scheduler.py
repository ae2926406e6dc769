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
"""Nova's scheduler, server by server, over the hosts of one report.

For each server, the hosts that fit (the engine's per-host counts,
recounted on every host a server of the set went to) and pass the
filters that depend on the request (zone, tenant isolation, server
group), weighed (weights/weighers.py, over columns.Columns) and the best
taken; or why none does (an answer.Stop).

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
normalization. All of its servers start, or none (save and undo).
"""

import collections
import dataclasses

import numpy

from flavor_exporter.capacity.filters import aggregate_filter
from flavor_exporter.capacity.filters import tenancy
from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity.planning.set_check import answer
from flavor_exporter.capacity.quota import quota as quota_mod
from flavor_exporter.capacity.weights import weighers


class Fits:
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


class Scheduler:
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

    def _best(self, weighed, now_fits, disk_mb):
        """(position, tied positions) of the best host that fits, or None.

        weighed: the hosts Nova weighs, in position order; now_fits: a
        mask of those Placement still has room on.
        """
        policy = self.group.policy if self.group else None
        weights = weighers.weigh(
            self.settings, self.columns.multipliers,
            lambda w, cand: self.columns.weigher_values(
                w, cand, disk_mb, self.members, policy),
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

    def fits_of(self, result):
        """The Fits of result's flavor, recounted where the set went."""
        found = self.fits.get(result.flavor.id)
        if found is None:
            found = self.fits[result.flavor.id] = Fits(result, self.columns)
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
        return answer.Placed(host.name, host.node, host.availability_zone)

    def undo(self, saved):
        """Back to what save() returned (a multi-create that failed)."""
        (self.columns, self.members, self.frees, self.numa, self.fits,
         self.touched, self.taken_from, self.guesses) = saved

    def save(self):
        return (self.columns.copy(), self.members.copy(),
                {p: {k: dict(v) for k, v in f.items()}
                 for p, f in self.frees.items()},
                dict(self.numa),
                {k: _copy_fits(v) for k, v in self.fits.items()},
                set(self.touched), dict(self.taken_from),
                {k: set(v) for k, v in self.guesses.items()})

    def for_project(self, project_id):
        """Filter the next servers for project_id (a move keeps its own)."""
        if self.request.project_id != project_id:
            # The tenant filters read the project: masks are per project.
            self.request = dataclasses.replace(self.request,
                                               project_id=project_id)
            self._masks.clear()

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
            return answer.Stop(answer.SERVER_GROUP, reason, policy)
        if not static.any():
            why = 'no host the request may use fits %s' % flavor.name
            if self.request.availability_zone is not None:
                why += ' in zone %s' % self.request.availability_zone
            return answer.Stop(answer.RESOURCES, why, fits.result.limited_by)
        refused = [p for p in self.request_claims or ()
                   if static[p] and fits.now[p] > 0 and not claimable[p]]
        if refused:
            return self._claims_refused(flavor, refused)
        limits = collections.Counter(
            fits.labels.get(p) for p in numpy.flatnonzero(static).tolist())
        limits.pop(None, None)
        limit = min(limits.items(), key=lambda item: (-item[1], item[0]))[0] \
            if limits else None
        return answer.Stop(answer.RESOURCES, 'no valid host: the hosts %s '
                           'fits on are full%s'
                           % (flavor.name, ' (%s)' % limit if limit
                              else ''), limit)

    def _claims_refused(self, flavor, positions):
        """The Stop of a multi-create whose claims fail on hosts with room."""
        full = sorted({rc for p in positions
                       for (key, rc), amount in self.request_claims[p].items()
                       if self._frees(p)[key][rc] < amount})
        hosts = ', '.join(sorted(self.hosts[p].name for p in positions))
        return answer.Stop(
            answer.RESOURCES, 'no valid host: a multi-create claims each '
            'host\'s first allocation candidate again for every server, and '
            'on %s its %s provider is full (others have room for %s)'
            % (hosts, '+'.join(full), flavor.name),
            full[0] if full else None)

    def would_start(self, result, placed_hosts):
        """Servers of result's flavor that would start one by one now."""
        fits = self.fits_of(result)
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
    other = object.__new__(Fits)
    other.__dict__.update(fits.__dict__)
    other.now = fits.now.copy()
    other.labels = dict(fits.labels)
    return other
