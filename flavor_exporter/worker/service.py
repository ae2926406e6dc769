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

"""The worker as an oslo.service Service: refresh on a fixed timer.

With several workers only the leader refreshes (see leadership.py); the
others check each [coordination] check_interval whether they lead now.
Each cloud of [DEFAULT] clouds has its own service, timer thread and
leadership: a cloud that fails or hangs delays no other.

An API process that finds no data ([api] compute_on_miss), or parts of
the current generation missing, asks through the cache; the leader
answers at its next check by publishing its last good data again, or by
refreshing (at most once per [api] retry_after). So a cold cache costs
one computation, whoever asks, and no API process needs the cloud's
credentials. Each check also looks for data the cache lost (a memcached
server restarted, or left or joined the ring) and publishes it again.
"""

import threading
import time

from oslo_log import log
from oslo_service import service

from flavor_exporter.common import clouds
from flavor_exporter.common import failures
from flavor_exporter.common import one_process
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.worker import checks
from flavor_exporter.worker import demand
from flavor_exporter.worker import leadership
from flavor_exporter.worker import projects
from flavor_exporter.worker import refresh

LOG = log.getLogger(__name__)


def for_clouds(conf, options):
    """One WorkerService per configured cloud, in one process."""
    return one_process.OneProcess(
        WorkerService(conf, options, cloud)
        for cloud in clouds.configured(conf))


class WorkerService(service.Service):
    """Keeps the published capacity data of one cloud fresh.

    options: the engine Options the command made at start with
    refresh.engine_options, which refuses a bad [pci] alias. cloud: a
    clouds.Cloud, by default the single (or default) one.
    """

    def __init__(self, conf, options, cloud=None, clock=time.monotonic,
                 wall_clock=time.time):
        super().__init__()
        self._conf = conf
        self._options = options
        self.cloud = cloud or clouds.default(conf)
        self._clock = clock
        self._wall_clock = wall_clock
        self.refresher = None
        self.projects = None
        self.checks = None
        self.leadership = None
        self._publisher = None
        self._leads = False
        self._next_refresh = 0
        self._next_request = 0
        # [worker] initial_delay: no refresh before, unless asked.
        self._not_before = 0
        # Nova's notifications ([openstack] notification_transport_url).
        self.listener = None
        self.demand = None
        self._changes_taken = {}
        # The timers refresh one at a time.
        self._refreshing = threading.Lock()

    def start(self):
        super().start()
        # Clients are made here, after the launcher forked this process:
        # sockets must not be shared with the parent.
        self._publisher = publisher.Publisher.from_conf(
            self._conf, self.cloud)
        self.refresher = refresh.Refresher(self._conf, self._publisher,
                                           options=self._options,
                                           cloud=self.cloud)
        self.projects = projects.ProjectAnswers(
            self._conf, self._publisher, self.refresher, self.cloud)
        if self._conf.checks.enabled:
            self.checks = checks.CheckAnswers(
                self._conf, self._publisher, self.refresher, self.cloud,
                self._options)
        self.leadership = leadership.Leadership.from_conf(self._conf,
                                                          self.cloud)
        LOG.info('%sRefreshing capacity data every %d seconds when this '
                 'worker leads', self.cloud.log_prefix,
                 self._conf.worker.refresh_interval)
        self._not_before = self._clock() + self._conf.worker.initial_delay
        # stop_on_exception=False: one failed tick must not end them all.
        self.tg.add_dynamic_timer_args(self.tick, stop_on_exception=False)
        # Projects in a thread of their own: a quota API that hangs must
        # not hold the refreshes.
        self.tg.add_dynamic_timer_args(self.project_tick,
                                       stop_on_exception=False)
        if self.checks is not None:
            # Checks too: a portal waits for each answer.
            self.tg.add_dynamic_timer_args(self.check_tick,
                                           stop_on_exception=False)
        url = self._conf[self.cloud.group].notification_transport_url
        if url:
            self._listen(url)

    def _listen(self, url):
        # Imported here: a worker without a bus needs no oslo.messaging.
        from flavor_exporter.worker import notifications
        self.demand = demand.Demand(self._publisher, self.cloud.log_prefix)
        self.listener = notifications.Listener(
            self._conf, url, self._publisher, self.cloud.log_prefix)
        self.listener.start()
        LOG.info('%sListening to Nova\'s notifications (pool %s): changes '
                 'are published within seconds', self.cloud.log_prefix,
                 self._conf.notifications.pool)
        self.tg.add_dynamic_timer_args(self.change_tick,
                                       stop_on_exception=False)

    def stop(self, graceful=False):
        if self.listener is not None:
            self.listener.stop()
        if self.leadership is not None:
            self.leadership.stop()
        if self.projects is not None:
            self.projects.close()
        super().stop(graceful)

    def project_tick(self):
        """Answer the projects asked about, when leading; seconds to wait."""
        self._answer_asked(self.projects, 'projects')
        return self._conf.projects.poll_interval

    def check_tick(self):
        """Answer the set checks asked for, when leading; seconds to wait."""
        self._answer_asked(self.checks, 'set checks')
        return self._conf.checks.poll_interval

    def _answer_asked(self, answers, what):
        """answers.answer() when leading: what API processes asked for."""
        try:
            if self._leads:
                answers.answer()
        except Exception as exc:
            LOG.debug('Answering %s failed', what, exc_info=True)
            LOG.error('%sAnswering %s failed, trying again: %s',
                      self.cloud.log_prefix, what, failures.explain(exc))

    def change_tick(self):
        """Refresh what Nova announced, when leading; seconds to wait.

        The first change waits [notifications] settle seconds for the rest
        of its burst; what comes during the refresh is the next one's.
        """
        interval = self._conf.notifications.check_interval
        try:
            if self._leads:
                self.demand.safe_update()
                self._refresh_changes()
            else:
                self.demand.forget()
                self._changes_taken = {}
        except Exception as exc:
            LOG.debug('The failed change tick', exc_info=True)
            LOG.error('%sRefreshing what Nova announced failed, trying '
                      'again: %s', self.cloud.log_prefix,
                      failures.explain(exc))
        return interval

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
        if first is not None and (self._wall_clock() - first
                                  < self._conf.notifications.settle):
            return
        changes.take()
        self._changes_taken = counters
        LOG.info('%sNova announced changes of %s; refreshing',
                 self.cloud.log_prefix, ', '.join(sorted(changed)))
        self._refresh(scope=changed, hosts=hosts)

    def tick(self):
        """Refresh when leading and due; seconds until the next tick."""
        try:
            return self._tick()
        except Exception as exc:
            # The timer's boundary: the worker must keep ticking.
            LOG.debug('The failed tick', exc_info=True)
            LOG.error('%sWorker tick failed, trying again in %ds: %s',
                      self.cloud.log_prefix,
                      self._conf.coordination.check_interval,
                      failures.explain(exc))
            return self._conf.coordination.check_interval

    def _tick(self):
        interval = self._conf.coordination.check_interval
        if not self.leadership.leads():
            self._leads = False
            return interval
        # A project asked about before this worker refreshed is noticed
        # within a poll interval, not the leadership's check interval.
        interval = min(interval, self._conf.projects.poll_interval)
        self._refresh_if_due()
        if self.refresher.last_report is None and self.projects.waiting():
            # A project asked about before this worker refreshed (it just
            # took over, the last leader's data still fresh): its numbers
            # need a report of this worker's.
            self._refresh_asked()
        return self._until_next(interval)

    def _refresh_asked(self):
        now = self._clock()
        if now < self._next_request:
            return
        self._next_request = now + self._conf.api.retry_after
        self._next_refresh = now + self._conf.worker.refresh_interval
        self._refresh()

    def _refresh_if_due(self):
        now = self._clock()
        if not self._leads:
            # Just took over: the last leader's data may still be fresh.
            self._leads = True
            self._next_refresh = max(now + self._published_for_another(),
                                     self._not_before)
        if now >= self._next_refresh:
            self._next_refresh = now + self._conf.worker.refresh_interval
            self._refresh()
            return
        request = self._refresh_request()
        if request is not None:
            self._answer(request, now)
        else:
            # Every tick: within a dead_retry of a server leaving or
            # joining the ring, readers find every part again.
            self.refresher.ensure_published()

    def _refresh(self, scope=None, hosts=None):
        with self._refreshing:
            if self.refresher.refresh(record_failure=self.leadership.certain,
                                      scope=scope, hosts=hosts):
                self.projects.after_refresh()

    def _until_next(self, interval):
        return max(0, min(interval, self._next_refresh - self._clock()))

    def _refresh_request(self):
        try:
            return self._publisher.refresh_requests.pending()
        except cache.CacheError as exc:
            # The refresh says so when the cache fails; not every tick.
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
                 self.cloud.log_prefix,
                 'no data' if missing_in is None else 'parts missing')
        self._publisher.refresh_requests.clear()
        self._next_request = now + self._conf.api.retry_after
        self._next_refresh = now + self._conf.worker.refresh_interval
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
        return max(0, collected + self._conf.worker.refresh_interval -
                   self._wall_clock())
