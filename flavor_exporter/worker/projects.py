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

An API process asked about a project whose document is missing, or whose
quota reading is older than [projects] max_age, writes a request in the
cache (publication/reader.py). At each look ([projects] poll_interval)
the leading worker reads the quota of the projects asked about (at most
[projects] max_per_poll), computes from its last refresh
(capacity/projects.py) and publishes their documents. After each refresh
it publishes again, from the new numbers, the documents of the projects
whose quota reading is still young enough: that costs the cloud nothing.
A project nobody asks about costs nothing at all.
"""

import time

from oslo_log import log

from flavor_exporter.capacity import projects as projects_mod
from flavor_exporter.common import failures
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import render
from flavor_exporter.worker import quotas
from flavor_exporter.worker import refresh

LOG = log.getLogger(__name__)


def compute(conf, report, client, project_id, reader=None):
    """The ProjectReport of project_id: its quota read now, report's hosts.

    For flavor-exporter-report --project; reader: a quotas.QuotaReader.
    """
    reader = reader or quotas.QuotaReader(conf)
    quota = reader.read(client, project_id)
    return projects_mod.compute(report, project_id, quota,
                                refresh.tenant_isolation(conf))


class ProjectAnswers:
    """Publishes the documents of the projects API processes ask about."""

    def __init__(self, conf, publisher, refresher, cloud,
                 clock=time.time):
        self._conf = conf
        self._publisher = publisher
        self._refresher = refresher
        self._cloud = cloud
        self._clock = clock
        self._quotas = quotas.QuotaReader(conf, clock=clock)
        self._isolation = refresh.tenant_isolation(conf)
        # project id -> [quota.ProjectQuota, when last asked about]
        self._known = {}
        # (report, its per-host columns): shared by all its projects.
        self._columns = (None, {})

    def waiting(self):
        """Whether some project is asked about."""
        try:
            return bool(self._publisher.project_requests.pending())
        except cache.CacheError:
            return False

    def answer(self):
        """Answer the requests waiting; how many were answered."""
        report = self._refresher.last_report
        if report is None:
            return 0  # no refresh yet: the first one answers them
        try:
            asked = self._publisher.project_requests.pending()
        except cache.CacheError as exc:
            LOG.debug('Project requests unreadable: %s', exc)
            return 0
        if not asked:
            return 0
        now = self._clock()
        wanted = sorted(asked, key=lambda pid: asked[pid])
        wanted = wanted[:self._conf.projects.max_per_poll]
        answered = set()
        for project_id in wanted:
            known = self._known.get(project_id)
            quota = known[0] if known else None
            if quota is None or now - quota.read_at >= \
                    self._conf.projects.max_age:
                quota = self._read(project_id)
                if quota is None:
                    continue
            self._known[project_id] = [quota, now]
            if self._publish(project_id, report, quota):
                answered.add(project_id)
        if answered:
            try:
                self._publisher.project_requests.clear(
                    answered, self._conf.projects.forget_after)
            except cache.CacheError as exc:
                LOG.debug('Project requests not cleared: %s', exc)
        return len(answered)

    def after_refresh(self):
        """Publish the known projects' documents from the new refresh."""
        report = self._refresher.last_report
        now = self._clock()
        for project_id, (quota, asked_at) in list(self._known.items()):
            if now - asked_at > self._conf.projects.forget_after:
                del self._known[project_id]
            elif now - quota.read_at < self._conf.projects.max_age:
                self._publish(project_id, report, quota)

    def _read(self, project_id):
        try:
            return self._quotas.read(self._refresher.client, project_id)
        except Exception as exc:
            # The project's API request gets its 503 and asks again.
            LOG.debug('The failed quota reading', exc_info=True)
            LOG.error('%sQuota of project %s unreadable: %s',
                      self._cloud.log_prefix, project_id,
                      failures.explain(exc, self._cloud.group))
            return None

    def _publish(self, project_id, report, quota):
        if self._columns[0] is not report:
            self._columns = (report, {})
        project = projects_mod.compute(report, project_id, quota,
                                       self._isolation, self._columns[1])
        fields = {pub.COMPUTED_AT: self._clock(),
                  pub.QUOTA_READ_AT: quota.read_at}
        try:
            self._publisher.publish_project(
                project_id, render.project_document(project), fields,
                self._conf.projects.forget_after)
        except cache.CacheError as exc:
            LOG.warning('%sProject %s not published: %s',
                        self._cloud.log_prefix, project_id, exc)
            return False
        return True
