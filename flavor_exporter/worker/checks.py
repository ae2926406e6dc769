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
"""The leading worker's answers to set checks (POST /v3/checks).

An API process leaves the check's body in the cache and its id in a
ring (publication/mailboxes.CheckRequests); at each look ([checks]
poll_interval), in a thread of its own, the leading worker takes the new
ones in the order they came, at most [checks] max_per_poll, computes
each on its last report (set_check/check.py; the project's quota read now)
and publishes the answer under the check's id, with the time of the
data it was computed from: the API serves it while no newer data is
published, and asks again after the next refresh.

The arrays the scheduler simulation reads of every host are made once
per report (set_check/columns.Columns) and copied for each check, so a check
costs its own servers, not the cloud's size.
"""

import collections
import threading

from oslo_log import log

from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity.planning.set_check import check as set_check
from flavor_exporter.capacity.planning.set_check import columns as set_columns
from flavor_exporter.capacity.weights import weighers
from flavor_exporter.common import failures
from flavor_exporter.publication import cache
from flavor_exporter.publication import checks as check_docs
from flavor_exporter.publication import contract as pub
from flavor_exporter.worker import projects
from flavor_exporter.worker import quotas

LOG = log.getLogger(__name__)


def scheduler_settings(conf):
    """The weighers.Settings of [weighers] for the cloud's Nova."""
    return weighers.settings(conf, conf.capacity.nova_release)


class Checker:
    """Answers set checks on the reports of one cloud."""

    def __init__(self, conf, options, quota_reader=None):
        """quota_reader: a quotas.QuotaReader, by default conf's."""
        self._conf = conf
        self._options = options
        self._settings = scheduler_settings(conf)
        self._quotas = quota_reader or quotas.QuotaReader(conf)
        self._columns = (None, None)  # (report, set_columns.Columns)
        self._numa = numa_fit.Counts(options.numa)
        self._lock = threading.Lock()

    def answer(self, report, client, request):
        """The answer document of a SetRequest on report.

        The project's quota is read now; quotas.ProjectUnknown or a
        CloudError when it cannot be.
        """
        quota = None
        if request.project_id is not None:
            quota = self._quotas.read(client, request.project_id)
        with self._lock:
            if self._columns[0] is not report:
                self._columns = (report, set_columns.Columns(
                    report, self._settings))
                self._numa.start()
            answer = set_check.check(report, self._options, self._settings,
                                     self._columns[1], request, quota,
                                     self._numa)
        return check_docs.document(answer, request, report.collected_at)


def _problem(status, reason):
    return {check_docs.PROBLEM: {check_docs.STATUS: status,
                                 check_docs.REASON: reason}}


class RequestAnswers:
    """Publishes the answers to one kind of request API processes ask for.

    The kind's part is compute(body, report): the fields to publish (its
    answer under its contract name), raising quotas.ProjectUnknown (404),
    InvalidRequest (400) or anything else (502, asked again soon). Set
    checks, what-ifs (worker/whatif.py) and other kinds answered by the
    leader share this: the ring, the order, at most max_per_poll a look,
    the problems published in place of an answer.
    """

    #: What the log calls one request.
    NOUN = 'Request'

    def __init__(self, conf, publisher, refresher, cloud, name,
                 max_per_poll, answer_ttl):
        self._conf = conf
        self._publisher = publisher
        self._refresher = refresher
        self._cloud = cloud
        self._requests = publisher.answer_requests(name)
        self._max_per_poll = max_per_poll
        self._answer_ttl = answer_ttl
        self._seen = None
        # Asked for, not answered yet, in the order asked.
        self._queue = collections.OrderedDict()
        self.status = {'answered': 0, 'failed': 0}

    def compute(self, body, report):
        raise NotImplementedError

    def answer(self):
        """Answer the requests asked for, at most max_per_poll; how many."""
        report = self._refresher.last_report
        if report is None:
            return 0  # no data yet: the first refresh answers them
        try:
            self._seen, asked = self._requests.since(self._seen)
        except cache.CacheError as exc:
            LOG.debug('%s requests unreadable: %s', self.NOUN, exc)
            return 0
        for request_id in asked:
            if len(self._queue) < projects.MAX_QUEUED:
                self._queue[request_id] = None
        answered = 0
        while self._queue and answered < self._max_per_poll:
            request_id = self._queue.popitem(last=False)[0]
            answered += self._answer(request_id, report)
        return answered

    def _answer(self, request_id, report):
        requests = self._requests
        body = requests.body(request_id)
        if body is None:
            return 0  # expired, or answered by the worker led before
        try:
            fields = self.compute(body, report)
            ttl = self._answer_ttl
            self.status['answered'] += 1
        except quotas.ProjectUnknown as exc:
            fields = _problem(404, str(exc))
            # As a project Nova does not know is answered 404 (projects).
            ttl = self._conf.projects.max_age
        except InvalidRequest as exc:
            # What only the worker can tell (a host the cloud lacks).
            fields = _problem(400, str(exc))
            ttl = self._answer_ttl
        except Exception as exc:
            reason = failures.explain(exc, self._cloud.group, again=False)
            LOG.debug('The failed %s', self.NOUN.lower(), exc_info=True)
            LOG.error('%s%s %s failed: %s', self._cloud.log_prefix,
                      self.NOUN, request_id, reason)
            self.status['failed'] += 1
            fields = _problem(502, reason)
            # Asked again soon after: the quota API may be back.
            ttl = projects.FIRST_RETRY
        fields[pub.TIMESTAMP] = pub.iso_timestamp(report.collected_at)
        try:
            requests.answer(request_id, fields, ttl)
        except cache.CacheError as exc:
            LOG.warning('%s%s %s not published: %s',
                        self._cloud.log_prefix, self.NOUN, request_id, exc)
            return 0
        return 1


class InvalidRequest(ValueError):
    """A request the worker refuses on what it knows (answered 400)."""


class CheckAnswers(RequestAnswers):
    """Publishes the answers to the checks API processes ask for."""

    NOUN = 'Check'

    def __init__(self, conf, publisher, refresher, cloud, options,
                 quota_reader=None):
        super().__init__(conf, publisher, refresher, cloud,
                         pub.CHECK_REQUESTS_NAME, conf.checks.max_per_poll,
                         conf.checks.answer_ttl)
        self._checker = Checker(conf, options, quota_reader)

    def compute(self, body, report):
        request = check_docs.parse(
            body, self._conf.checks.max_servers, lambda _: True)
        document = self._checker.answer(
            report, self._refresher.client, request)
        return {check_docs.CHECK: document[check_docs.CHECK]}
