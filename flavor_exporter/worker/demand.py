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
"""

from oslo_log import log

from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub

LOG = log.getLogger(__name__)


def empty():
    return {pub.TURNED_AWAY_SEEN: None, pub.TURNED_AWAY_LOST: 0,
            pub.DEMAND_FLAVORS: {}}


def add(totals, failures, lost):
    """totals with failures ([flavor id, name, project, time]) added."""
    flavors = totals[pub.DEMAND_FLAVORS]
    for flavor_id, name, project_id, at in failures:
        entry = flavors.setdefault(flavor_id, {
            pub.NAME: name, pub.TURNED_AWAY: 0, pub.LAST_AT: None,
            pub.PROJECTS: {}})
        entry[pub.NAME] = name
        entry[pub.TURNED_AWAY] += 1
        entry[pub.LAST_AT] = pub.iso_from_epoch(at)
        if project_id:
            projects = entry[pub.PROJECTS]
            projects[project_id] = projects.get(project_id, 0) + 1
    totals[pub.TURNED_AWAY_LOST] += lost
    return totals


class Demand:
    """The leader's running totals of one cloud."""

    def __init__(self, publisher, log_prefix=''):
        self._publisher = publisher
        self._log_prefix = log_prefix
        self._totals = None

    def update(self):
        """Add the failures heard since the last look; publish if any."""
        if self._totals is None:
            # Taking over: go on from the last leader's totals.
            self._totals = self._publisher.reader.demand() or empty()
        seen = self._totals[pub.TURNED_AWAY_SEEN]
        newest, failures, lost = self._publisher.turned_away.since(seen)
        if newest == seen:
            return
        self._totals[pub.TURNED_AWAY_SEEN] = newest
        add(self._totals, failures, lost)
        if lost:
            LOG.warning('%s%d scheduling failures were lost before they '
                        'could be counted (more than %d between two looks)',
                        self._log_prefix, lost,
                        self._publisher.turned_away.SLOTS)
        self._publisher.write_demand(self._totals)

    def forget(self):
        """No longer leading: the next leader's totals are the cache's."""
        self._totals = None

    def safe_update(self):
        try:
            self.update()
        except cache.CacheError as exc:
            LOG.debug('%sDemand not counted now: %s', self._log_prefix, exc)
