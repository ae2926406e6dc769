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
"""The leading worker's answers to questions about projects.

An API process asked about a project it has no young enough answer for
leaves a request in the cache (publication/mailboxes.py). At each look
([projects] poll_interval), in a thread of its own beside the refreshes,
the leading worker takes the new requests in the order they came, reads
the quota of at most [projects] max_per_poll projects ([projects]
concurrency at once) and publishes each one's part: its quota reading
and its headroom per footprint (publication/projects.py). The API joins
that with the numbers of every refresh, so a project is never recomputed
because the cloud changed; only a new quota reading, or a new set of
flavors, makes a new part.

Projects Keystone lists are noted in the cache every [projects]
list_interval (known_projects.py), so that the API asks about them
without charging the client's share of new projects; the charge for
any other id is refunded here once Nova reads its quota (the project is
real), kept when Nova does not know it.

A project Nova does not know, or whose quota cannot be read (or reads
without a limit Nova always reports), is published as such: the API
answers 404 or 502 at once, and the project costs the cloud no call
until [projects] max_age (unknown) or a backoff (failures, doubling)
has passed, however often it is asked about.
"""

import collections
import concurrent.futures
import threading
import time

from oslo_log import log

from flavor_exporter.capacity.quota import projects as projects_mod
from flavor_exporter.common import failures
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import projects as project_docs
from flavor_exporter.publication import render
from flavor_exporter.worker import known_projects
from flavor_exporter.worker import quotas

LOG = log.getLogger(__name__)

#: Seconds before a project whose quota could not be read is tried again
#: the first time; it doubles with each failure, up to [projects] max_age.
FIRST_RETRY = 10
#: Projects asked about and waiting for a look, at most; more are asked
#: again by the API later.
MAX_QUEUED = 10000


def footprints(counting, report):
    """(pub.FOOTPRINTS bytes, [quota.Footprint], their identity).

    Of report's flavors, counted as counting says.
    """
    of_flavor, prints = projects_mod.footprints(report, counting)
    body = project_docs.footprints_document(counting.system, of_flavor)
    return body, prints, pub.identity(body)


def generation_documents(counting, report, isolation):
    """{name: bytes}: what a generation holds for project documents.

    counting: quota.Counting of the cloud; isolation: its tenancy
    .TenantIsolation.
    """
    docs = {pub.FOOTPRINTS: footprints(counting, report)[0]}
    if not isolation.enabled:
        docs[pub.PROJECT_PATTERNS] = project_docs.patterns_document(
            isolation, None, {})
        return docs
    default, named = projects_mod.patterns(report, isolation)
    columns = {}
    for pattern in {default, *named.values()}:
        docs[pub.project_capacity(pattern.name)] = \
            project_docs.capacity_document(
                projects_mod.capacity(report, pattern, columns))
    docs[pub.PROJECT_PATTERNS] = project_docs.patterns_document(
        isolation, default.name, {
            project_id: (pattern.name, projects_mod.own_aggregates(
                report, project_id, isolation))
            for project_id, pattern in named.items()})
    return docs


def compute(conf, report, client, project_id, isolation):
    """The project's document of report, its quota read now (--project)."""
    quota = quotas.QuotaReader(conf).read(client, project_id)
    return document(quotas.counting(conf), report, project_id, quota,
                    isolation)


def document(counting, report, project_id, quota, isolation):
    """The project's document of report, as the API joins its parts."""
    docs = generation_documents(counting, report, isolation)
    _, prints, identity = footprints(counting, report)
    patterns = pub.decode(docs[pub.PROJECT_PATTERNS])
    pattern = project_docs.pattern_of(patterns, project_id)
    return project_docs.join(
        render.pointer_of(report), pub.decode(render.list_document(report)),
        pub.decode(docs[pub.FOOTPRINTS]), patterns,
        pub.decode(docs[pub.project_capacity(pattern)]) if pattern
        else None,
        pub.decode(project_docs.quota_document(
            project_id, quota, projects_mod.headrooms(quota, prints),
            identity)),
        project_docs.visible_to(pub.decode(render.access_document(report)),
                                project_id), stale=False)


class ProjectAnswers:
    """Publishes the parts of the projects API processes ask about."""

    def __init__(self, conf, publisher, refresher, cloud,
                 clock=time.time):
        self._conf = conf
        self._publisher = publisher
        self._refresher = refresher
        self._cloud = cloud
        self._clock = clock
        self._quotas = quotas.QuotaReader(conf, clock=clock)
        self._counting = quotas.counting(conf)
        # Asked about, not looked at yet, in the order asked.
        self._queue = collections.OrderedDict()
        self._seen = None
        # The queue is filled by the service's refresh thread too.
        self._lock = threading.Lock()
        # project id -> [quota.ProjectQuota, when last asked about]
        self._known = {}
        # project id -> failures in a row
        self._failures = {}
        # project id -> no quota reading before (unknown, or failing)
        self._not_before = {}
        # (report, its footprints, the identity of their document)
        self._prints = (None, None, None)
        self._pool = None
        self._listing = known_projects.KnownProjects(
            conf, publisher.project_requests, cloud, clock=clock)
        self.status = {'answered': 0, 'unknown': 0, 'unreadable': 0,
                       'queued': 0, 'reading': None, 'last_error': None,
                       'known_projects': self._listing.status}

    def waiting(self):
        """Whether some project is asked about."""
        self._take_requests()
        return bool(self._queue)

    def answer(self):
        """Answer the requests waiting, at most max_per_poll; how many."""
        report = self._refresher.last_report
        if report is None:
            return 0  # no refresh yet: the first one answers them
        self._listing.tick(self._refresher.client)
        self._take_requests()
        batch = []
        with self._lock:
            while self._queue and \
                    len(batch) < self._conf.projects.max_per_poll:
                batch.append(self._queue.popitem(last=False)[0])
        if batch:
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    self._conf.projects.concurrency,
                    thread_name_prefix='project-quota')
            # Said while it lasts: a quota API that hangs shows here.
            self.status['reading'] = {
                'projects': len(batch),
                'since': pub.iso_from_epoch(self._clock())}
            self.status['queued'] = len(self._queue)
            self._write_status()
            list(self._pool.map(lambda pid: self._answer(pid, report),
                                batch))
        self.status['reading'] = None
        self.status['queued'] = len(self._queue)
        self._write_status()
        return len(batch)

    def after_refresh(self):
        """Forget projects not asked about; new parts for new flavors."""
        report = self._refresher.last_report
        now = self._clock()
        forget = self._conf.projects.forget_after
        for project_id, (quota, asked_at) in list(self._known.items()):
            if now - asked_at > forget:
                del self._known[project_id]
        for project_id, retry_at in list(self._not_before.items()):
            if now > retry_at + forget:
                del self._not_before[project_id]
                self._failures.pop(project_id, None)
        previous = self._prints[2]
        if self._footprints_of(report)[1] != previous:
            for project_id, (quota, _) in list(self._known.items()):
                if now - quota.read_at < self._conf.projects.max_age:
                    self._publish(project_id, report, quota)

    def close(self):
        self._listing.close()
        if self._pool is not None:
            self._pool.shutdown(wait=False)

    def _take_requests(self):
        with self._lock:
            try:
                self._seen, asked = \
                    self._publisher.project_requests.since(self._seen)
            except cache.CacheError as exc:
                LOG.debug('Project requests unreadable: %s', exc)
                return
            for project_id in asked:
                if len(self._queue) >= MAX_QUEUED:
                    break
                self._queue[project_id] = None

    def _footprints_of(self, report):
        """(footprints, identity of their document) of report."""
        if self._prints[0] is not report:
            _, prints, identity = footprints(self._counting, report)
            self._prints = (report, prints, identity)
        return self._prints[1:]

    def _answer(self, project_id, report):
        now = self._clock()
        if now < self._not_before.get(project_id, now):
            # Its entry says why; asking again changes nothing.
            self._answered(project_id)
            return
        known = self._known.get(project_id)
        quota = known[0] if known else None
        if quota is None or now - quota.read_at >= \
                self._conf.projects.max_age:
            quota = self._read(project_id)
            if quota is None:
                return
        self._known[project_id] = [quota, now]
        self._settle(project_id, True)
        if self._publish(project_id, report, quota):
            self.status['answered'] += 1
            self._answered(project_id)

    def _answered(self, project_id):
        try:
            self._publisher.project_requests.answered(project_id)
        except cache.CacheError:
            pass  # the request expires on its own

    def _settle(self, project_id, found):
        """Refund the asker's charge for a real project; count unknown."""
        try:
            self._publisher.project_requests.settle(project_id, found)
        except cache.CacheError as exc:
            # The charge stays: the client's minute ends on its own.
            LOG.debug('Charge of project %s not settled: %s', project_id,
                      exc)

    def _read(self, project_id):
        """The project's quota reading, or None after publishing why not."""
        try:
            quota = self._quotas.read(self._refresher.client, project_id)
        except quotas.ProjectUnknown as exc:
            self.status['unknown'] += 1
            self._known.pop(project_id, None)
            self._settle(project_id, False)
            self._problem(project_id, pub.UNKNOWN_PROJECT, str(exc),
                          self._conf.projects.max_age)
            return None
        except Exception as exc:
            count = self._failures[project_id] = \
                self._failures.get(project_id, 0) + 1
            reason = failures.explain(exc, self._cloud.group)
            LOG.debug('The failed quota reading', exc_info=True)
            LOG.error('%sQuota of project %s unreadable: %s',
                      self._cloud.log_prefix, project_id, reason)
            self.status['unreadable'] += 1
            self.status['last_error'] = {
                'at': pub.iso_from_epoch(self._clock()),
                pub.PROJECT_ID: project_id, 'message': reason}
            self._problem(project_id, pub.QUOTA_UNREADABLE, reason,
                          min(FIRST_RETRY * 2 ** (count - 1),
                              self._conf.projects.max_age))
            return None
        self._failures.pop(project_id, None)
        self._not_before.pop(project_id, None)
        return quota

    def _problem(self, project_id, kind, reason, seconds):
        retry_at = self._not_before[project_id] = self._clock() + seconds
        try:
            self._publisher.publish_project(project_id, {pub.PROBLEM: {
                pub.PROBLEM_KIND: kind, pub.REASON: reason,
                pub.RETRY_AT: retry_at}},
                max(int(seconds), self._conf.projects.forget_after))
        except cache.CacheError as exc:
            LOG.warning('%sProject %s: %s, not published: %s',
                        self._cloud.log_prefix, project_id, reason, exc)
        self._answered(project_id)

    def _publish(self, project_id, report, quota):
        prints, identity = self._footprints_of(report)
        body = project_docs.quota_document(
            project_id, quota, projects_mod.headrooms(quota, prints),
            identity)
        fields = {pub.COMPUTED_AT: self._clock(),
                  pub.QUOTA_READ_AT: quota.read_at,
                  project_docs.FOOTPRINTS_IDENTITY: identity}
        try:
            self._publisher.publish_project(
                project_id, fields, self._conf.projects.forget_after, body)
        except cache.CacheError as exc:
            LOG.warning('%sProject %s not published: %s',
                        self._cloud.log_prefix, project_id, exc)
            return False
        return True

    def _write_status(self):
        try:
            self._publisher.write_project_status(self.status)
        except cache.CacheError as exc:
            LOG.debug('Project status not written: %s', exc)
