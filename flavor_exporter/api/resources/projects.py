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
"""What one project can start: /v3/projects/{project_id}/flavors/.

The worker computes a project's document only when asked (see
worker/projects.py): a question about a project it has no young enough
answer for writes a request in the cache (publication/mailboxes.py) and
waits up to [projects] wait seconds for the answer. Then it serves what
it has: the new document, or the old one marked stale, or, for a project
never answered, a 503 whose Retry-After ([projects] retry_after) says
when to ask again.
"""

import re
import time

from flavor_exporter.api import errors
from flavor_exporter.api import generations
from flavor_exporter.api import published
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import mailboxes
from flavor_exporter.publication import reader as reader_mod

POLL_SECONDS = 0.2
# Keystone ids are 32 hex digits; other identity backends use up to 64
# characters of these. Anything else cannot be a project and must not
# reach a cache key.
_PROJECT_ID = re.compile(r'[A-Za-z0-9_-]{1,64}')


class NotReady(errors.ServiceUnavailable):
    """No answer for the project yet; retry after retry_after seconds."""

    def __init__(self, project_id, retry_after):
        super().__init__(
            'The numbers of project %s are being computed; retry in %d '
            'seconds.' % (project_id, retry_after), retry_after)


def valid_project_id(project_id):
    return _PROJECT_ID.fullmatch(project_id) is not None


class Held:
    """A project's document as read: its entry fields, bytes and age."""

    def __init__(self, fields, body):
        self.fields = fields
        self.body = body
        self.entry = pub.Entry(*fields[pub.ENTRY])

    @property
    def computed_at(self):
        return self.fields.get(pub.COMPUTED_AT) or 0

    def young(self, now, max_age):
        read_at = self.fields.get(pub.QUOTA_READ_AT)
        return read_at is not None and now - read_at < max_age


class ProjectDocuments:
    """The project documents of one cloud."""

    def __init__(self, reader, max_age, wait, retry_after, request_ttl,
                 clock=time.time, sleep=time.sleep):
        self._reader = reader
        self._requests = mailboxes.ProjectRequests(reader.backend,
                                                   reader.key)
        self._max_age = max_age
        self._wait = wait
        self._retry_after = retry_after
        self._request_ttl = request_ttl
        self._clock = clock
        self._sleep = sleep

    def get(self, project_id):
        """(Held, stale) of project_id; NotReady, or CacheError."""
        held = self._read(project_id)
        if held is not None and held.young(self._clock(), self._max_age):
            return held, False
        deadline = self._clock() + self._wait
        while True:
            # Asked again at each poll: a request another process's write
            # replaced is written again (mailboxes.ProjectRequests).
            self._requests.ask(project_id, self._clock(),
                               self._request_ttl)
            if self._clock() >= deadline:
                break
            self._sleep(POLL_SECONDS)
            newer = self._read(project_id)
            if newer is not None and (
                    held is None or newer.computed_at > held.computed_at):
                return newer, False
        if held is not None:
            return held, True
        raise NotReady(project_id, self._retry_after)

    def _read(self, project_id):
        try:
            found = self._reader.project(project_id)
        except reader_mod.MissingData:
            return None
        return None if found is None else Held(*found)


def _project(request):
    """(Representation, View) of the project the route names."""
    data = request.published
    project_id = request.params['project_id']
    state = data.cloud(request.cloud)
    if not valid_project_id(project_id):
        raise errors.BadRequest('"%s" is not a project id.'
                                % project_id[:80])
    if state.projects is None:
        raise errors.NotFound('This API serves no project documents.')
    try:
        held, stale = state.projects.get(project_id)
    except reader_mod.CacheError as exc:
        raise errors.Unavailable('%s: %s' % (generations.UNREACHABLE, exc),
                                 data.retry_after) from exc
    view = generations.View(None, stale, None, None)
    base = published.Representation(
        held.body, held.entry.etag, published.http_date(
            held.entry.changed_at))
    return data.fresh_or_stale(base, view), view


def list_project_flavors(request):
    """/v3/projects/{project_id}/flavors/: the project's document.

    Raises NotReady while the worker has not answered yet.
    """
    return published.Answer(*_project(request))


def show_project_flavor(request):
    """/v3/projects/{project_id}/flavors/{flavor}: one of its flavors."""
    data = request.published
    key = request.params['flavor']
    base, view = _project(request)
    document = data.decoded(base)
    found = None
    for entry in document[pub.FLAVORS]:
        if entry[pub.ID] == key:
            found = entry
            break
        if found is None and entry[pub.NAME] == key:
            found = entry
    if found is None:
        raise errors.NotFound('Project %s may use no flavor with the id or '
                              'name "%s".' % (request.params['project_id'],
                                              key))

    def make():
        one = {k: v for k, v in document.items() if k != pub.FLAVORS}
        one[pub.FLAVOR] = found
        return pub.encode(one)
    return published.Answer(data.variant(base, ('flavor', found[pub.ID]),
                                         make), view)
