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

"""The refresh manager: one cloud's published data kept fresh.

Periodic tasks, as Nova's ComputeManager has, run one after the other by
the service's timer thread for this manager (see service.py):

- check_leadership, every [coordination] check_interval: with several
  workers only the leader refreshes (see leadership.py); the others do
  nothing else.
- refresh_capacity, the leader's look, every [projects] poll_interval
  (at most [coordination] check_interval): a refresh when [worker]
  refresh_interval has passed, so at most one look late; else the
  requests of API processes; else data the cache lost, published again.
- refresh_announced_changes (NotifiedRefreshManager, when the worker
  listens to Nova's notifications), every [notifications] check_interval.

An API process that finds no data ([api] compute_on_miss), or parts of
the current generation missing, asks through the cache; the leader
answers at its next look by publishing its last good data again, or by
refreshing (at most once per [api] retry_after). So a cold cache costs
one computation, whoever asks, and no API process needs the cloud's
credentials. Each look also finds data the cache lost (a memcached
server restarted, or left or joined the ring) and publishes it again.

The tasks share one thread: two refreshes never overlap. Answering
projects and set checks is other managers' (answer_managers.py), in
threads of their own: a quota API that hangs holds no refresh.
"""

import time

from oslo_log import log
from oslo_service import periodic_task

from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.worker import periodic

LOG = log.getLogger(__name__)
# Seconds a notified change waits for what belongs with it: Nova with
# notification_format = both says each event twice, on two topics, which
# may reach two workers and be noted in two batches (each within
# notifications.BATCH_TIMEOUT). Read by one refresh, not by a first one
# and a second one whose settle would hold the next change back.
GATHER = 0.1


def look_interval(conf):
    """Seconds between two looks of the leader.

    A project asked about before this worker refreshed is noticed within
    a poll interval, not the leadership's check interval.
    """
    return min(conf.coordination.check_interval, conf.projects.poll_interval)


class RefreshManager(periodic.Manager):
    """Refreshes one cloud's published data when this worker leads.

    refresher: a refresh.Refresher; projects: the cloud's
    projects.ProjectAnswers (refreshed after each refresh);
    leadership: a leadership.Leadership (or Alone).
    """

    SPACINGS = {
        'check_leadership': lambda conf: conf.coordination.check_interval,
        'refresh_capacity': look_interval,
    }

    def __init__(self, conf, cloud, publisher, refresher, projects,
                 leadership, clock=time.monotonic, wall_clock=time.time):
        super().__init__(conf, cloud.log_prefix)
        self._publisher = publisher
        self.refresher = refresher
        self.projects = projects
        self.leadership = leadership
        self._clock = clock
        self._wall_clock = wall_clock
        # Read by the answering managers' threads: a bool, set here only.
        self.leads = False
        self._next_refresh = 0
        self._next_request = 0
        # [worker] initial_delay: no refresh before, unless asked.
        self._not_before = clock() + conf.worker.initial_delay

    @periodic_task.periodic_task(spacing=periodic.SET_FROM_CONF,
                                 run_immediately=True)
    @periodic.one_line('Checking the leadership')
    def check_leadership(self, context):
        """Whether this worker leads now; a new leader's first refresh."""
        leads = self.leadership.leads()
        if leads and not self.leads:
            # Just took over: the last leader's data may still be fresh.
            self._next_refresh = max(
                self._clock() + self._published_for_another(),
                self._not_before)
        self.leads = leads

    @periodic_task.periodic_task(spacing=periodic.SET_FROM_CONF,
                                 run_immediately=True)
    @periodic.one_line('Refreshing')
    def refresh_capacity(self, context):
        """Refresh when leading and due; answer what API processes ask."""
        if not self.leads:
            return
        self._refresh_if_due()
        if self.refresher.last_report is None and self.projects.waiting():
            # A project asked about before this worker refreshed (it just
            # took over, the last leader's data still fresh): its numbers
            # need a report of this worker's.
            self._refresh_asked()

    def _refresh_asked(self):
        now = self._clock()
        if now < self._next_request:
            return
        self._next_request = now + self.conf.api.retry_after
        self._next_refresh = now + self.conf.worker.refresh_interval
        self._refresh()

    def _refresh_if_due(self):
        now = self._clock()
        if now >= self._next_refresh:
            self._next_refresh = now + self.conf.worker.refresh_interval
            self._refresh()
            return
        request = self._refresh_request()
        if request is not None:
            self._answer(request, now)
        else:
            # Every look: within a dead_retry of a server leaving or
            # joining the ring, readers find every part again.
            self.refresher.ensure_published()

    def _refresh(self, scope=None, hosts=None):
        if self.refresher.refresh(record_failure=self.leadership.certain,
                                  scope=scope, hosts=hosts):
            self.projects.after_refresh()

    def _refresh_request(self):
        try:
            return self._publisher.refresh_requests.pending()
        except cache.CacheError as exc:
            # The refresh says so when the cache fails; not every look.
            LOG.debug('Refresh requests unreadable: %s', exc)
            return None

    def _answer(self, request, now):
        """An API process found no data, or parts of it missing."""
        missing_in = request.get(pub.GENERATION)
        current = self._publisher.reader.current()
        if current is not None and current[pub.GENERATION] != missing_in:
            self._publisher.refresh_requests.clear()
            return  # published since it asked
        # Publishing the last good data again costs the cloud nothing;
        # reading the cloud again is for at most once per retry_after,
        # the request waiting until then.
        if self.refresher.ensure_published(asked=True):
            self._publisher.refresh_requests.clear()
            return
        if now < self._next_request:
            return
        LOG.info('%sAn API process found %s; refreshing now',
                 self.log_prefix,
                 'no data' if missing_in is None else 'parts missing')
        self._publisher.refresh_requests.clear()
        self._next_request = now + self.conf.api.retry_after
        self._next_refresh = now + self.conf.worker.refresh_interval
        self._refresh()

    def _published_for_another(self):
        """Seconds until the published data is refresh_interval old."""
        try:
            pointer = self._publisher.reader.current()
        except cache.CacheError:
            return 0
        collected = pub.epoch(pointer and pointer.get(pub.TIMESTAMP))
        if collected is None:
            return 0
        return max(0, collected + self.conf.worker.refresh_interval -
                   self._wall_clock())


class NotifiedRefreshManager(RefreshManager):
    """Also refreshes, within seconds, what Nova's notifications announced.

    demand: a demand.Demand. The listener (notifications.py) notes the
    changes in the cache, whichever worker it runs in; the leader
    refreshes them. On the leading edge: the first change after a quiet
    spell is refreshed at the first look ([notifications] check_interval)
    GATHER after it was noted, so that one boot is served within a
    second; what comes during that refresh, or within [notifications]
    settle seconds after it, waits and is read by the next one, so that a
    burst costs a refresh per refresh time plus settle, whatever its
    size.
    """

    SPACINGS = dict(
        RefreshManager.SPACINGS,
        refresh_announced_changes=(
            lambda conf: conf.notifications.check_interval))

    def __init__(self, conf, cloud, publisher, refresher, projects,
                 leadership, demand, **clocks):
        super().__init__(conf, cloud, publisher, refresher, projects,
                         leadership, **clocks)
        self.demand = demand
        self._changes_taken = {}
        # (monotonic) No notified refresh before: settle after the last.
        self._next_notified = float('-inf')
        # (monotonic) When this leader first saw changes not taken yet.
        self._seen_at = None

    @periodic_task.periodic_task(spacing=periodic.SET_FROM_CONF,
                                 run_immediately=True)
    @periodic.one_line('Refreshing what Nova announced')
    def refresh_announced_changes(self, context):
        """Refresh what Nova announced, when leading and settled."""
        if self.leads:
            self.demand.safe_update()
            self._refresh_changes()
        else:
            self.demand.forget()
            self._changes_taken = {}
            self._seen_at = None

    def _refresh_changes(self):
        changes = self._publisher.changes
        try:
            counters, first, changed, hosts = changes.pending(
                self._changes_taken)
        except cache.CacheError as exc:
            LOG.debug('Changes unreadable: %s', exc)
            return
        if not self._changes_taken:
            # The refresh that makes a leader reads everything anyway.
            self._changes_taken = counters
            return
        if not changed:
            return
        now = self._clock()
        if self._seen_at is None:
            self._seen_at = now
        if now < self._next_notified:
            # The rest of a burst: the refresh after settle reads it all
            # (the counters keep it).
            return
        if first is not None and self._wall_clock() - first < GATHER and \
                now - self._seen_at < GATHER:
            # Noted (by the listener's clock) or seen (by this one, should
            # the clocks differ) less than GATHER ago: the next look.
            return
        changes.take()
        self._changes_taken = counters
        self._seen_at = None
        LOG.info('%sNova announced changes of %s; refreshing',
                 self.log_prefix, ', '.join(sorted(changed)))
        try:
            self._refresh(scope=changed, hosts=hosts)
        finally:
            # From its end: a refresh longer than settle still leaves
            # the cloud settle seconds between two.
            self._next_notified = (self._clock() +
                                   self.conf.notifications.settle)
