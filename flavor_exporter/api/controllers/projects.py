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

The leading worker reads a project's quota only when asked (see
worker/projects.py) and publishes the project's part: its quota reading
and headroom. This module serves the join of that part with the
current generation (publication/projects.py): as fresh as the
cloud-wide numbers, whenever the quota was read.

An API process finds the project's entry in the cache and answers at
once: the part, marked stale when its quota reading is older than
[projects] max_age (and asks for a new reading); 404 for a project Nova
does not know; 502 with the reason while its quota cannot be read. Only
a project never answered waits for the worker, up to [projects] wait,
and only [projects] max_waiting requests of a process wait at a time:
the others are a 503 with Retry-After at once, so that a crowd of
questions about projects never holds the threads other routes need.

A client's questions about projects never answered cost it its share of
[projects] new_per_client a minute, unless the leading worker listed
the project as real (Keystone's project list): a portal's projects are
asked about for free, a burst of made-up ids stops at the share (429),
and a share spent on projects the worker is still looking up is a 503
with Retry-After instead, freed as the worker finds them real
(publication/mailboxes.ProjectRequests).
"""

import math
import time

from flavor_exporter.api.controllers import base
from flavor_exporter.api import errors
from flavor_exporter.api import generations
from flavor_exporter.api import published
from flavor_exporter.api import waiting
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import mailboxes
from flavor_exporter.publication import projects as project_docs
from flavor_exporter.publication import reader as reader_mod

POLL_SECONDS = 0.2


class NotReady(errors.ServiceUnavailable):
    """No answer for the project yet; retry after retry_after seconds."""

    def __init__(self, project_id, retry_after):
        super().__init__(
            'The numbers of project %s are being computed; retry in %d '
            'seconds.' % (project_id, retry_after), retry_after)


class Busy(errors.ServiceUnavailable):
    """The client's share is spent on projects being looked up."""

    def __init__(self, project_id, retry_after):
        super().__init__(
            'The projects you asked about are being looked up; ask about '
            'project %s again in %d seconds.' % (project_id, retry_after),
            retry_after)


def _seconds_until(moment, now):
    return max(1, math.ceil(moment - now))


class ProjectDocuments:
    """The project entries of one cloud, as one API process reads them."""

    def __init__(self, reader, conf, request_ttl, clock=time.time,
                 sleep=time.sleep, threads=None):
        """conf: the [projects] options; threads: [api] threads.

        One thread at least is never left waiting: routes that answer at
        once keep it.
        """
        self._reader = reader
        self._requests = mailboxes.ProjectRequests(reader.backend,
                                                   reader.key)
        self._conf = conf
        self._request_ttl = request_ttl
        self._waiting = waiting.Waiting(conf.max_waiting, threads, clock,
                                        sleep)
        self._clock = clock

    def get(self, project_id, client, footprints):
        """(quota part bytes, its entry, stale) of project_id.

        client: who asks (for its share of new questions); footprints:
        the identity of the generation's pub.FOOTPRINTS, which the part
        must have been made for. Raises errors.NotFound, BadGateway,
        TooManyRequests, NotReady, Busy, or reader.CacheError.
        """
        answer = self._answer(project_id, client, footprints)
        if answer is None:
            answer = self._waiting.wait(
                self._conf.wait, POLL_SECONDS, lambda: self._answer(
                    project_id, client, footprints, asked=True))
        if answer is None:
            raise NotReady(project_id, self._conf.retry_after)
        return answer

    def _answer(self, project_id, client, footprints, asked=False):
        """What can be answered now, or None (after asking the worker)."""
        found = self._reader.project(project_id)
        fields, part = found if found is not None else ({}, None)
        now = self._clock()
        problem = fields.get(pub.PROBLEM)
        if problem and problem[pub.RETRY_AT] > now:
            if problem[pub.PROBLEM_KIND] == pub.UNKNOWN_PROJECT:
                raise errors.NotFound('No project %s: %s.' % (
                    project_id, problem[pub.REASON]))
        else:
            problem = None
        usable = part is not None and fields.get(
            project_docs.FOOTPRINTS_IDENTITY) == footprints
        if usable:
            young = now - fields[pub.QUOTA_READ_AT] < self._conf.max_age
            if not young and problem is None:
                self._ask(project_id, client, admit=False)
            return part, pub.Entry(*fields[pub.ENTRY]), not young
        if problem is not None:
            raise errors.BadGateway(
                'The quota of project %s cannot be read: %s. Retry in %d '
                'seconds.' % (project_id, problem[pub.REASON],
                              _seconds_until(problem[pub.RETRY_AT], now)),
                _seconds_until(problem[pub.RETRY_AT], now))
        if not asked:
            self._ask(project_id, client, admit=part is None)
        return None

    def _ask(self, project_id, client, admit):
        """Ask the worker, within the client's share of new projects."""
        asked = self._requests.ask(
            project_id, self._request_ttl, client if admit else None,
            self._conf.new_per_client, self._clock())
        if asked == self._requests.REFUSED:
            raise errors.TooManyRequests(
                'You asked about more than %d new projects this minute; '
                'retry in a minute.' % self._conf.new_per_client, 60)
        if asked == self._requests.BUSY:
            raise Busy(project_id, self._conf.retry_after)


def _project(request, project_id):
    """(Representation, View) of project_id's document."""
    data = request.published
    if not project_docs.valid_project_id(project_id):
        raise errors.BadRequest('"%s" is not a project id.'
                                % project_id[:80])
    state, view = data.answering(request.cloud)
    if state.projects is None:
        raise errors.NotFound('This API serves no project documents.')
    generation = view.generation
    footprints = data.document(state, generation, pub.FOOTPRINTS,
                               required=True)
    try:
        part, entry, old = state.projects.get(
            project_id, base.client(),
            generation.documents[pub.FOOTPRINTS].identity)
    except reader_mod.CacheError as exc:
        raise errors.Unavailable('%s: %s' % (generations.UNREACHABLE, exc),
                                 data.retry_after) from exc
    held = published.Representation(
        part, entry.etag, published.http_date(entry.changed_at))
    patterns = data.value(state, generation, pub.PROJECT_PATTERNS)
    pattern = project_docs.pattern_of(patterns, project_id)
    capacity = None
    if pattern is not None:
        capacity = data.document(state, generation,
                                 pub.project_capacity(pattern),
                                 required=True)
    listed = data.document(state, generation, pub.V3_LIST, required=True)
    access = data.document(state, generation, pub.ACCESS, required=True)
    stale = old or view.stale

    def make():
        return pub.encode(project_docs.join(
            generation.pointer, data.decoded(listed),
            data.decoded(footprints), patterns,
            data.decoded(capacity) if capacity is not None else None,
            data.decoded(held),
            project_docs.visible_to(data.decoded(access), project_id),
            stale))
    # What the document is made of; the part is the base.
    variant = (listed.etag, footprints.etag, access.etag,
               generation.documents[pub.PROJECT_PATTERNS].etag,
               capacity.etag if capacity is not None else None,
               generation.pointer.get(pub.UNREADABLE_COUNT), stale)
    return data.variant(held, variant, make), view._replace(stale=stale)


class ProjectFlavorsController(base.Resource):
    """/v3/projects/{project_id}/flavors/: what one project can start."""

    @base.expose('listProjectFlavors')
    def get_all(self, project_id):
        """The project's document; NotReady while the worker computes it."""
        return base.answer(*_project(base.request(), project_id))

    @base.expose('getProjectFlavor')
    def get_one(self, project_id, flavor):
        """One flavor of the project's, by id or name."""
        request = base.request()
        data = request.published
        held, view = _project(request, project_id)
        document = data.decoded(held)
        found = None
        for entry in document[pub.FLAVORS]:
            if entry[pub.ID] == flavor:
                found = entry
                break
            if found is None and entry[pub.NAME] == flavor:
                found = entry
        if found is None:
            raise errors.NotFound('Project %s may use no flavor with the id '
                                  'or name "%s".' % (project_id, flavor))

        def make():
            one = {k: v for k, v in document.items() if k != pub.FLAVORS}
            one[pub.FLAVOR] = found
            return pub.encode(one)
        return base.answer(data.variant(held, ('flavor', found[pub.ID]),
                                        make), view)


class ProjectsController(base.Resource):
    """/v3/projects/: only each project's flavors are served."""

    flavors = ProjectFlavorsController()

    @base.expose(None)
    def get_one(self, project_id):
        # Pecan finds the nested flavors through get_one's arguments;
        # the project itself is no resource (and no route).
        raise errors.NotFound('No such resource: %s'
                              % base.request().path_info)
