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
"""The projects Keystone knows, listed for the API by the leading worker.

A client's share of questions about new projects ([projects]
new_per_client) exists against made-up ids; a portal asking about its
own projects for the first time must not meet it. Every [projects]
list_interval the leader reads Keystone's project list (``GET
/v3/projects``, page after page) and notes each id in the cache, where
an API process finds it before charging the client
(publication/mailboxes.ProjectRequests). The markers outlive a few
readings, so that a listing that fails keeps the last one in use.

The listing runs in a thread of its own: a Keystone that hangs holds
neither the answers to projects nor the refreshes. Credentials that may
not list projects (403) are a mode, not a fault: new ids are then
charged until the worker finds them real, and /v3/status says so.
"""

import concurrent.futures
import time
import urllib.parse

from oslo_log import log

from flavor_exporter.common import failures
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.worker import openstack

LOG = log.getLogger(__name__)

#: Projects per page: Keystone's [DEFAULT] max_db_limit default.
PAGE = 1000
#: Readings a known id outlives, so that a failed one costs nothing.
KEPT_FOR = 3
#: What the API does with new ids (the status's "mode").
LISTED = 'listed'        # ids Keystone lists are free, others charged
FOUND = 'found'          # every new id charged until found real
OFF = 'off'              # list_interval = 0: as FOUND, by choice


def _next_marker(body):
    """The marker of Keystone's next page ("links": {"next": URL})."""
    links = body.get('links')
    url = links.get('next') if isinstance(links, dict) else None
    if not isinstance(url, str):
        return None
    markers = urllib.parse.parse_qs(urllib.parse.urlparse(url).query).get(
        'marker')
    return markers[0] if markers else None


def list_ids(client, page=PAGE):
    """([project id], complete) of Keystone's project list.

    complete is False when Keystone truncated the list without a next
    page ([DEFAULT] list_limit on a Keystone without pagination): the
    ids beyond it are charged until found, as new ones are.
    """
    params = {'limit': page}
    ids = []
    while True:
        body = client.get('identity', '/projects', params=params)
        found = body.get('projects') if isinstance(body, dict) else None
        if not isinstance(found, list):
            raise openstack.CloudError(
                'identity GET /projects: no projects list in the answer',
                status=200)
        ids.extend(project['id'] for project in found
                   if isinstance(project, dict)
                   and isinstance(project.get('id'), str))
        marker = _next_marker(body)
        if not marker or not found or marker == params.get('marker'):
            return ids, not (body.get('truncated') and not marker)
        params = {'limit': page, 'marker': marker}


class KnownProjects:
    """Keeps the cache's known project ids current, when leading."""

    def __init__(self, conf, requests, cloud, clock=time.time):
        """requests: the cloud's mailboxes.ProjectRequests."""
        self._conf = conf
        self._requests = requests
        self._cloud = cloud
        self._clock = clock
        self._due = float('-inf')
        self._settling_until = float('-inf')
        self._running = None
        self._pool = None
        self._refused = False
        self._last_failure = None
        self.status = {'mode': OFF if not conf.projects.list_interval
                       else FOUND, 'listed': None, 'listed_at': None,
                       'seconds': None, 'complete': None,
                       'last_error': None}

    def tick(self, client):
        """Say that charges are settled; start a listing when one is due."""
        now = self._clock()
        self._note_settling(now)
        interval = self._conf.projects.list_interval
        if not interval:
            self.status['mode'] = OFF
        if not interval or now < self._due or (
                self._running is not None and not self._running.done()):
            return
        self._due = now + interval
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix='project-list')
        self._running = self._pool.submit(self.list_now, client)

    def _note_settling(self, now):
        # Written a few times per its lifetime, not at every look.
        ttl = max(30, int(self._conf.projects.poll_interval * 10))
        if now < self._settling_until:
            return
        try:
            self._requests.note_settling(ttl)
            self._settling_until = now + ttl / 3
        except cache.CacheError as exc:
            LOG.debug('Settling marker not written: %s', exc)

    def list_now(self, client):
        """Read Keystone's list and note its ids; never raises."""
        started = self._clock()
        try:
            ids, complete = list_ids(client)
            self._requests.note_known(
                ids, KEPT_FOR * self._conf.projects.list_interval)
        except openstack.CloudError as exc:
            # 404: a cloud with no Keystone to list (noauth), a mode too.
            self._failed(exc, exc.status in (401, 403, 404))
            return
        except Exception as exc:
            self._failed(exc, False)
            return
        self._refused = False
        self._last_failure = None
        if self.status['mode'] != LISTED:
            LOG.info('%sKeystone lists %d projects: they are asked about '
                     'without counting against [projects] new_per_client',
                     self._cloud.log_prefix, len(ids))
        self.status.update(
            mode=LISTED, listed=len(ids), complete=complete,
            listed_at=pub.iso_from_epoch(self._clock()),
            seconds=round(self._clock() - started, 3), last_error=None)

    def _failed(self, exc, refused):
        reason = failures.explain(exc, self._cloud.group)
        self.status['last_error'] = {
            'at': pub.iso_from_epoch(self._clock()), 'message': reason}
        if refused:
            # Not listing ids is a mode: the ids noted before expire.
            if not self._refused:
                LOG.warning('%sThe worker may not list Keystone\'s projects '
                            '(%s): every new project asked about counts '
                            'against [projects] new_per_client until the '
                            'worker finds it real', self._cloud.log_prefix,
                            reason)
            self._refused = True
            self.status.update(mode=FOUND, listed=None, complete=None)
            return
        if reason != self._last_failure:
            # Once per reason: the listing is tried every interval.
            LOG.error('%sKeystone\'s project list unreadable: %s',
                      self._cloud.log_prefix, reason)
        self._last_failure = reason

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=False)
