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
"""What a capacity source is: the cloud read into a model.Snapshot.

Two sources exist (placement_source, hypervisors_source); refresh.py
picks one by [capacity] source and needs nothing else of them.
"""

from oslo_log import log

from flavor_exporter.worker import flavor_access
from flavor_exporter.worker import notices
from flavor_exporter.worker import nova

LOG = log.getLogger(__name__)


class Source:
    """Reads one cloud; one instance lives as long as its worker.

    name: what the documents and the logs call the source; last_stats:
    figures of the last successful collect for /v3/status (what it read,
    what it reused), empty when the source keeps none.
    """

    name = None

    def __init__(self, conf, log_prefix=''):
        """log_prefix: what the log lines start with (clouds.Cloud)."""
        self._conf = conf
        self._log_prefix = log_prefix
        self.last_stats = {}
        self._flavor_access = None
        self._notices = notices.Notices(LOG, log_prefix)
        # What each listing gave last, for a collect whose scope leaves it
        # out: {name: (value, problem lines)}.
        self._kept = {}

    def collect(self, client, scope=None, hosts=None):
        """A model.Snapshot of the cloud; CloudError if a call fails.

        scope: the parts of the cloud Nova announced changes of
        (nova_events), None for all; hosts: with usages, the hosts whose
        usages changed, None for any. A source may read only those again.
        """
        raise NotImplementedError

    def share(self):
        """Write to the shared cache what a next leader may reuse.

        Called once the collect's data is published, so that what only a
        failover needs does not delay it; nothing by default.
        """

    def _kept_or_read(self, name, scope, parts, problems, read):
        """read(problems) now, or its last answer when no part changed.

        parts: the parts of the cloud (nova_events) that change what read
        returns. The problem lines of a kept answer are said again.
        """
        if scope is not None and not scope & parts and name in self._kept:
            value, said = self._kept[name]
            problems.extend(said)
            return value
        said = []
        value = read(said)
        problems.extend(said)
        self._kept[name] = (value, said)
        return value

    def _list_flavors(self, client, problems):
        """nova.list_flavors, with access lists kept between refreshes."""
        if self._flavor_access is None:
            self._flavor_access = flavor_access.FlavorAccess(
                self._conf.worker.flavor_access_max_age)
        return nova.list_flavors(client, problems, self._flavor_access)

    def _warn(self, problems):
        """Log what the snapshot skipped or could not read, a line each.

        A WARNING the first refresh a line appears, DEBUG while it stays.
        """
        self._notices.lines('problems', problems, ended=(
            'The cloud is read without problems again'))
