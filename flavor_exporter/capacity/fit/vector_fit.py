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

"""fit.fit for every host of a HostGroup at once, with numpy.

The demand units come from fit.units on the group's representative, with
column numbers in place of free amounts; where they are independent each
unit's bound is computed for all hosts of the group in a few array
operations, exactly as fit._unit_bound computes it for one. Other shapes
(units sharing a class or an isolated provider) are left to fit's exact
one-by-one path, host by host.
"""

import dataclasses

import numpy

from flavor_exporter.capacity.fit import fit


@dataclasses.dataclass
class GroupFit:
    """What fit.fit answers for the hosts of one group."""

    total: int  # every host's count in the empty cloud
    available: numpy.ndarray  # per host
    # Per host: index into labels of the limiting class, -1 for None.
    limits: numpy.ndarray
    labels: list
    certain: bool = True


def _copies_bound(slots, caps, copies):
    """fit.copies_bound for each row of slots (rows x candidates)."""
    if all(cap >= copies for cap in caps):
        return slots.sum(axis=1) // copies
    caps = numpy.array(caps, dtype=numpy.int64)
    low = numpy.zeros(len(slots), dtype=numpy.int64)
    high = slots.sum(axis=1) // copies
    while True:
        open_ = low < high
        if not open_.any():
            return low
        mid = (low + high + 1) // 2
        fits = (numpy.minimum(slots, mid[:, None] * caps).sum(axis=1)
                >= copies * mid)
        low = numpy.where(open_ & fits, mid, low)
        high = numpy.where(open_ & ~fits, mid - 1, high)


def _unit_bounds(unit, free):
    """fit._unit_bound of unit for every row of free."""
    if not unit.candidates:
        return numpy.zeros(len(free), dtype=numpy.int64)
    slots = numpy.empty((len(free), len(unit.candidates)),
                        dtype=numpy.int64)
    for i, (_, columns) in enumerate(unit.candidates):
        cols = [columns[rc] for rc in unit.resources]
        amounts = numpy.array(list(unit.resources.values()),
                              dtype=numpy.int64)
        if len(cols) == 1:
            slots[:, i] = free[:, cols[0]] // amounts[0]
        else:
            slots[:, i] = (free[:, cols] // amounts).min(axis=1)
    if len(unit.candidates) == 1 and unit.caps[0] >= unit.copies:
        return slots[:, 0] // unit.copies
    return _copies_bound(slots, unit.caps, unit.copies)


def fit_group(request, group):
    """GroupFit of request on group, or None where fit must go host by host.

    None when the units are not independent (fit.independent).
    """
    found = fit.units(request, group.representative, group.columns)
    rows = len(group.free)
    if not found:
        return GroupFit(0, numpy.zeros(rows - 1, dtype=numpy.int64),
                        numpy.full(rows - 1, -1, dtype=numpy.int16), [])
    if not fit.independent(found):
        return None
    # fit takes the smallest (count, label): over units sorted by label,
    # the first smallest bound is the same one.
    found.sort(key=lambda unit: unit.label)
    counts = _unit_bounds(found[0], group.free)
    limits = numpy.zeros(rows, dtype=numpy.int16)
    for index, unit in enumerate(found[1:], 1):
        bounds = _unit_bounds(unit, group.free)
        lower = bounds < counts
        numpy.minimum(counts, bounds, out=counts)
        limits[lower] = index
    labels = [unit.label for unit in found]
    return GroupFit(int(counts[0]), counts[1:], limits[1:], labels,
                    certain=not found.ambiguous)


def fit_any(request, group):
    """GroupFit of request on group, by whichever path can count it."""
    return fit_group(request, group) or fit_hosts(request, group)


class Fits:
    """Group fits of one refresh, for the next to reuse where unchanged.

    A worker refreshes every few minutes, and between two refreshes the
    usages of most host groups do not change (of none when nothing was
    booted or deleted). A group whose shape and free amounts are those of
    the last refresh has the same fit for the same request, so it is not
    computed again. What one refresh did not use is forgotten at the next.
    """

    def __init__(self):
        # group fingerprint -> {request key: GroupFit}
        self._by_group = {}
        self.groups = ()
        self._of = {}  # id(group) -> (last refresh's, this refresh's)
        self.reused = self.computed = 0

    def start(self, groups):
        """Begin a refresh over groups (host_groups.HostGroup)."""
        previous, self._by_group, self._of = self._by_group, {}, {}
        self.reused = self.computed = 0
        #: The groups of the last refresh begun (what-ifs read them).
        self.groups = groups
        for group in groups:
            key = group.fingerprint()
            self._of[id(group)] = (previous.get(key, {}),
                                   self._by_group.setdefault(key, {}))

    def finish(self):
        """End a refresh: only its own fits are kept for the next."""
        self._of = {}

    def fit(self, request_key, request, group):
        """fit_any(request, group), from the last refresh if unchanged.

        request_key: what of request its numbers depend on
        (engine._request_key).
        """
        last, now = self._of[id(group)]
        found = now.get(request_key) or last.get(request_key)
        if found is None:
            found = fit_any(request, group)
            # Kept for a refresh: the narrower type of the published
            # numbers.
            found.available = found.available.astype(numpy.int32)
            self.computed += 1
        else:
            self.reused += 1
        now[request_key] = found
        return found


def fit_hosts(request, group):
    """GroupFit of request on group through fit.fit_certain, host by host."""
    total, _, certain = fit.fit_certain(request, group.representative,
                                        empty=True)
    available = numpy.zeros(len(group), dtype=numpy.int64)
    limits = numpy.full(len(group), -1, dtype=numpy.int16)
    labels = []
    for i, host in enumerate(group.hosts):
        count, label, sure = fit.fit_certain(request, host)
        available[i] = count
        certain = certain and sure
        if label is not None:
            if label not in labels:
                labels.append(label)
            limits[i] = labels.index(label)
    return GroupFit(total, available, limits, labels, certain)
