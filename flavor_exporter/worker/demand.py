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
"""The requests Nova placed nowhere, added up by the leading worker.

Whichever worker hears a NoValidHost failure leaves it in the TurnedAway
ring (publication/mailboxes.py); the leader adds the new ones to running
totals per flavor and project, kept in the cache (contract.DEMAND_NAME)
so that the next leader goes on counting where this one stopped. A
flavor whose available is 0 while requests for it keep failing is what an
operator buys hardware for: /v3/status shows the totals as "demand",
/metrics as flavor_exporter_scheduling_failures_total.

Anyone who can publish on the bus can say anything, so the totals hold
what the cloud vouches for: only flavors of the last refresh's flavor
list, named from it (never from a message); failures of any other id
(made up, or a flavor deleted since) in one "unknown" total; per flavor
the PROJECTS_KEPT projects with the most failures, the others one
count. Whatever the bus says, the totals have at most flavors + 1
entries of at most PROJECTS_KEPT projects each.
"""

import time

from oslo_log import log

from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub

LOG = log.getLogger(__name__)
#: Projects counted by name per flavor; the rest are OTHER_PROJECTS.
PROJECTS_KEPT = 10
# A slot numbered but still empty is a listener between taking its
# number and writing it; empty for longer, it expired: lost.
EMPTY_SLOT_WAIT = 10
# A failure of an id the flavor list lacks, heard after the list was
# read, may be of a flavor created since: it waits for a refresh that
# reads the flavors again (asked for once per list) at most this long.
NEW_FLAVOR_WAIT = 300
# How long the flavor list's re-read stays asked for (as a listener's).
ASKED_TTL = 3600


def empty():
    return {pub.TURNED_AWAY_SEEN: None, pub.TURNED_AWAY_LOST: 0,
            pub.DEMAND_FLAVORS: {}, pub.DEMAND_UNKNOWN: _bucket()}


def _bucket():
    return {pub.TURNED_AWAY: 0, pub.LAST_AT: None}


def _count(entry, at):
    entry[pub.TURNED_AWAY] += 1
    entry[pub.LAST_AT] = pub.iso_from_epoch(at)


def add(totals, failures, flavors, lost=0):
    """totals with failures ([flavor id, name, project, time]) added.

    flavors: {flavor id: name} of the flavor list; the name a failure
    carries is the message's and is not read.
    """
    known = totals[pub.DEMAND_FLAVORS]
    for flavor_id, _name, project_id, at in failures:
        if flavor_id not in flavors:
            _count(totals[pub.DEMAND_UNKNOWN], at)
            continue
        entry = known.setdefault(flavor_id, {
            pub.NAME: flavors[flavor_id], pub.TURNED_AWAY: 0,
            pub.LAST_AT: None, pub.PROJECTS: {}, pub.OTHER_PROJECTS: 0})
        _count(entry, at)
        if project_id:
            projects = entry[pub.PROJECTS]
            projects[project_id] = projects.get(project_id, 0) + 1
            _keep_top(entry)
    totals[pub.TURNED_AWAY_LOST] += lost
    return totals


def _keep_top(entry):
    """At most PROJECTS_KEPT projects; the others' failures are one count.

    A project pushed out starts again from 0 if it comes back: the counts
    of the ones kept are exact from when they came in.
    """
    projects = entry[pub.PROJECTS]
    if len(projects) <= PROJECTS_KEPT:
        return
    ranked = sorted(projects.items(), key=lambda item: (-item[1], item[0]))
    entry[pub.PROJECTS] = dict(ranked[:PROJECTS_KEPT])
    entry[pub.OTHER_PROJECTS] = entry.get(pub.OTHER_PROJECTS, 0) + sum(
        count for _, count in ranked[PROJECTS_KEPT:])


def fold(totals, flavors):
    """totals as the flavor list says: names from it, others unknown.

    A flavor deleted (or renamed) since it was counted, and the totals an
    older version wrote from whatever messages said, are brought in
    line. True when anything changed.
    """
    totals.setdefault(pub.DEMAND_UNKNOWN, _bucket())
    unknown = totals[pub.DEMAND_UNKNOWN]
    changed = False
    for flavor_id, entry in list(totals[pub.DEMAND_FLAVORS].items()):
        if flavor_id not in flavors:
            del totals[pub.DEMAND_FLAVORS][flavor_id]
            unknown[pub.TURNED_AWAY] += entry[pub.TURNED_AWAY]
            unknown[pub.LAST_AT] = max(
                filter(None, (unknown[pub.LAST_AT], entry[pub.LAST_AT])),
                default=None)
            changed = True
            continue
        before = dict(entry, **{pub.PROJECTS: dict(entry[pub.PROJECTS])})
        entry[pub.NAME] = flavors[flavor_id]
        entry.setdefault(pub.OTHER_PROJECTS, 0)
        _keep_top(entry)
        changed = changed or entry != before
    return changed


def flavor_list(report):
    """({flavor id: name}, epoch it was read) of a Report, or None."""
    if report is None:
        return None
    return ({result.flavor.id: result.flavor.name
             for result in report.flavors},
            report.collected_at.timestamp())


class Demand:
    """The leader's running totals of one cloud.

    last_report: a callable, the last Report the leader published (its
    flavors are the ones counted by name), None before the first.
    """

    def __init__(self, publisher, log_prefix='', last_report=None,
                 clock=time.monotonic, wall_clock=time.time):
        self._publisher = publisher
        self._log_prefix = log_prefix
        self._last_report = last_report or (lambda: None)
        self._clock = clock
        self._wall_clock = wall_clock
        self._totals = None
        self._folded = None  # the report the totals were folded with
        self._empty = None  # (slot number, since when it is empty)
        self._asked = None  # the report whose flavor list we doubted

    def update(self):
        """Add the failures heard since the last look; publish if any."""
        report = self._last_report()
        if report is None:
            # No flavor list yet: the ring keeps them until the first
            # refresh, which a new leader starts with.
            return
        flavors, listed_at = flavor_list(report)
        if self._totals is None:
            # Taking over: go on from the last leader's totals.
            self._totals = self._publisher.reader.demand() or empty()
            self._folded = None
        changed = False
        if self._folded is not report:
            changed = fold(self._totals, flavors)
            self._folded = report
        changed = self._take(flavors, listed_at, report) or changed
        if changed:
            self._publisher.write_demand(self._totals)

    def _take(self, flavors, listed_at, report):
        """Count the failures after seen that can be counted now."""
        seen = self._totals[pub.TURNED_AWAY_SEEN]
        newest, slots, lost = self._publisher.turned_away.since(seen)
        if newest == seen:
            return False
        # Past those the ring no longer holds (lost), before any slot.
        taken = slots[0][0] - 1 if slots else newest
        counted = []
        for number, failure in slots:
            if failure is None:
                if self._still_writing(number):
                    break
                lost += 1
            elif (failure[0] not in flavors and failure[3] >= listed_at
                  and self._wall_clock() - failure[3] < NEW_FLAVOR_WAIT):
                self._read_flavors_again(report)
                break  # the next refresh's list may have it
            else:
                counted.append(failure)
            taken = number
        self._totals[pub.TURNED_AWAY_SEEN] = taken
        add(self._totals, counted, flavors, lost)
        if lost:
            LOG.warning('%s%d scheduling failures were lost before they '
                        'could be counted (more than %d between two looks)',
                        self._log_prefix, lost,
                        self._publisher.turned_away.SLOTS)
        return bool(counted or lost or taken != seen)

    def _read_flavors_again(self, report):
        """Have the next refresh read the flavors, once per flavor list.

        Nova announces new flavors in its versioned notifications only,
        and a refresh for a failure's usages reads no flavors. A flood of
        made-up ids costs one flavor listing per refresh at most.
        """
        if self._asked is not report:
            self._asked = report
            self._publisher.changes.note(('flavors',), self._wall_clock(),
                                         ASKED_TTL)

    def _still_writing(self, number):
        """Whether an empty slot may still be written: wait for it."""
        if self._empty is None or self._empty[0] != number:
            self._empty = (number, self._clock())
        return self._clock() - self._empty[1] < EMPTY_SLOT_WAIT

    def forget(self):
        """No longer leading: the next leader's totals are the cache's."""
        self._totals = None
        self._folded = None

    def safe_update(self):
        try:
            self.update()
        except cache.CacheError as exc:
            LOG.debug('%sDemand not counted now: %s', self._log_prefix, exc)
