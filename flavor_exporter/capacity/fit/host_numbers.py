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
"""A flavor's per-host numbers, in one shape however they were counted.

The engine counts a flavor host by host (HostRows) or, for the requests
its vectors can count, group by group as arrays (HostNumbers). Both answer
the same questions: rows() (a HostCapacity per host the flavor fits on),
columns() (the same as lists), arrays() (the same as numpy arrays, for
readers that compute or encode them whole) and fingerprint() (equal
numbers, equal digest); readers never ask which they hold.
"""

import dataclasses
import hashlib

import numpy


@dataclasses.dataclass
class HostCapacity:
    """One host's numbers for a flavor."""

    host: str
    node: str
    availability_zone: str | None
    total: int
    available: int
    limited_by: str | None


@dataclasses.dataclass
class HostNumbers:
    """Per-host numbers of one request as arrays, one entry per group.

    Each entry: (HostGroup, total of each host, available per host, limit
    label index per host (-1: None), labels). Flavors with the same
    request share one HostNumbers, so columns() is made once for them.
    """

    entries: list
    _columns: tuple = dataclasses.field(default=None, repr=False,
                                        compare=False)
    _arrays: tuple = dataclasses.field(default=None, repr=False,
                                       compare=False)
    _digest: bytes = dataclasses.field(default=None, repr=False,
                                       compare=False)

    def fingerprint(self):
        """A digest of the numbers: equal numbers, equal digest.

        Stable across refreshes, so that a renderer can tell unchanged
        per-host numbers without making and encoding their columns. Made
        once: the flavors of one request share their HostNumbers.
        """
        if self._digest is None:
            self._digest = self._make_digest()
        return self._digest

    def _make_digest(self):
        digest = hashlib.blake2b(digest_size=16)
        for group, total, available, limits, names in self.entries:
            for values in (group.positions, available, limits):
                values = numpy.asarray(values, dtype=numpy.int64)
                digest.update(b'%d:' % len(values))
                digest.update(values.tobytes())
            digest.update(repr((int(total), list(names))).encode())
        return digest.digest()

    def columns(self):
        """(positions, totals, available, labels, label codes), lists.

        One entry per host the request fits on, in snapshot order; a code
        indexes labels (-1: nothing limits the host).
        """
        if self._columns is None:
            positions, totals, free, labels, codes = self.arrays()
            self._columns = (positions.tolist(), totals.tolist(),
                             free.tolist(), labels, codes.tolist())
        return self._columns

    def arrays(self):
        """columns() as int64 arrays (labels a list), made once.

        A refresh renders and counts projects from them without making
        the lists: ten million Python ints at 10,000 x 1,000.
        """
        if self._arrays is None:
            self._arrays = self._make_arrays()
        return self._arrays

    def _make_arrays(self):
        # Only the labels some host is limited by, as the rows have them.
        used = [numpy.flatnonzero(numpy.bincount(
            limits + 1, minlength=len(names) + 1)[1:])
            for *_, limits, names in self.entries]
        labels = sorted({names[code] for found, (*_, names)
                         in zip(used, self.entries) for code in found})
        codes = {label: i for i, label in enumerate(labels)}
        if not self.entries:
            empty = numpy.zeros(0, dtype=numpy.int64)
            return empty, empty, empty, labels, empty
        columns = [[], [], [], []]
        for group, total, available, limits, names in self.entries:
            # limits index names, -1 for none: the last item is -1.
            remap = numpy.array([codes.get(n, -1) for n in names] + [-1])
            for column, values in zip(columns, (
                    group.positions,
                    numpy.full(len(group.positions), total), available,
                    remap[limits])):
                column.append(numpy.asarray(values))
        merged = [numpy.concatenate(column).astype(numpy.int64, copy=False)
                  for column in columns]
        order = numpy.argsort(merged[0], kind='stable')
        positions, totals, free, limit_codes = (c[order] for c in merged)
        return positions, totals, free, labels, limit_codes

    def rows(self):
        rows = []
        for group, total, available, limits, labels in self.entries:
            for i, host in enumerate(group.hosts):
                code = int(limits[i])
                rows.append((int(group.positions[i]), HostCapacity(
                    host.name, host.node, host.availability_zone, total,
                    int(available[i]), labels[code] if code >= 0 else None)))
        rows.sort(key=lambda row: row[0])
        return [row for _, row in rows]


@dataclasses.dataclass
class HostRows:
    """Per-host numbers counted host by host (the engine's exact path).

    A HostCapacity per host the flavor fits on, with the host's position
    in the snapshot, appended in snapshot order.
    """

    positions: list = dataclasses.field(default_factory=list)
    hosts: list = dataclasses.field(default_factory=list)  # HostCapacity

    def append(self, position, row):
        self.positions.append(position)
        self.hosts.append(row)

    def rows(self):
        return self.hosts

    def columns(self):
        """As HostNumbers.columns()."""
        labels = sorted({h.limited_by for h in self.hosts if h.limited_by})
        code_of = {label: i for i, label in enumerate(labels)}
        return (list(self.positions), [h.total for h in self.hosts],
                [h.available for h in self.hosts], labels,
                [code_of.get(h.limited_by, -1) for h in self.hosts])

    def arrays(self):
        """As HostNumbers.arrays()."""
        positions, totals, available, labels, codes = self.columns()
        return (numpy.array(positions, dtype=numpy.int64),
                numpy.array(totals, dtype=numpy.int64),
                numpy.array(available, dtype=numpy.int64), labels,
                numpy.array(codes, dtype=numpy.int64))

    def fingerprint(self):
        """As HostNumbers.fingerprint()."""
        numbers = [(p, h.total, h.available, h.limited_by)
                   for p, h in zip(self.positions, self.hosts)]
        return hashlib.blake2b(repr(numbers).encode(),
                               digest_size=16).digest()
