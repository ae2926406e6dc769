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
"""Can this set of servers start together? POST /v3/checks.

The API process imports no cloud client and computes nothing: it checks
the body (publication/checks.py) and the caller's right to check for the
project, then leaves the check for the leading worker in the cache
(mailboxes.CheckRequests) and waits for its answer, at most [checks]
wait; only [checks] max_waiting requests of a process wait at a time,
the others are a 503 with Retry-After at once. The same check asked
again for the same data is answered from the cache at once, by any API
process; a client asks for at most [checks] new_per_client new checks a
minute (429 beyond), so that a crowd cannot hold the worker.

A caller checks for its own project (the body's project_id, by default
the token's project); for another, it needs capacity:check:create to
allow that project (an administrator or a system reader). Host names
appear only for callers capacity:flavor:hosts allows.
"""

import dataclasses
import json
import time

from flavor_exporter.api.controllers import base
from flavor_exporter.api import errors
from flavor_exporter.api import generations
from flavor_exporter.api.middleware import request_body
from flavor_exporter.api import responses
from flavor_exporter.api import waiting
from flavor_exporter.policies import capacity as policies
from flavor_exporter.publication import checks as check_docs
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import mailboxes
from flavor_exporter.publication import projects as project_docs
from flavor_exporter.publication import reader as reader_mod

POLL_SECONDS = 0.05


class NotReady(errors.ServiceUnavailable):
    def __init__(self, retry_after, noun='check'):
        super().__init__('The %s is being computed; ask again in %d '
                         'seconds.' % (noun, retry_after), retry_after)


class WorkerAnswers:
    """Requests of one kind the leading worker answers, for one cloud.

    The kind is its mailbox name (contract.CHECK_REQUESTS_NAME,
    WHATIF_REQUESTS_NAME, ...) and the field its answer is published
    under; conf: the options bounding it (wait, max_waiting,
    new_per_client, retry_after). Set checks, what-ifs and the like take
    this one path: asked once per id and data, answered from the cache to
    anyone asking again, a budget per client, a bound on waiting requests.
    """

    def __init__(self, reader, conf, name, field, noun, threads=None,
                 clock=time.monotonic, sleep=time.sleep):
        self._requests = mailboxes.AnswerRequests(reader.backend,
                                                  reader.key, name)
        self._conf = conf
        self._field = field
        self._noun = noun
        self._waiting = waiting.Waiting(conf.max_waiting, threads, clock,
                                        sleep)

    def get(self, request_id, body, client, data_timestamp):
        """The answer (a dict) to the request request_id, body its body.

        data_timestamp: the TIMESTAMP of the data published now; an
        answer computed from older data is asked for again. Raises
        errors.NotFound, BadRequest, BadGateway, TooManyRequests,
        NotReady or reader.CacheError.
        """
        answer = self._answer(request_id, data_timestamp)
        if answer is not None:
            return answer
        asked = self._requests.ask_body(
            request_id, body, int(self._conf.wait * 4) + 10, client,
            self._conf.new_per_client, time.time())
        if asked == self._requests.REFUSED:
            raise errors.TooManyRequests(
                'You asked for more than %d new %ss this minute; retry '
                'in a minute.' % (self._conf.new_per_client, self._noun),
                60)
        answer = self._waiting.wait(
            self._conf.wait, POLL_SECONDS,
            lambda: self._answer(request_id, data_timestamp))
        if answer is None:
            raise NotReady(self._conf.retry_after, self._noun)
        return answer

    def _answer(self, request_id, data_timestamp):
        found = self._requests.answer_of(request_id)
        if found is None or found.get(pub.TIMESTAMP, '') < data_timestamp:
            return None
        problem = found.get(check_docs.PROBLEM)
        if problem is None:
            return found[self._field]
        if problem[check_docs.STATUS] == 404:
            raise errors.NotFound('%s.' % problem[check_docs.REASON])
        if problem[check_docs.STATUS] == 400:
            raise errors.BadRequest('%s.' % problem[check_docs.REASON])
        raise errors.BadGateway('The %s could not be computed: %s.'
                                % (self._noun, problem[check_docs.REASON]),
                                self._conf.retry_after)


class CheckAnswers(WorkerAnswers):
    """The checks of one cloud, as one API process asks and reads them."""

    def __init__(self, reader, conf, threads=None, clock=time.monotonic,
                 sleep=time.sleep):
        """conf: the [checks] options; threads: [api] threads."""
        super().__init__(reader, conf, pub.CHECK_REQUESTS_NAME,
                         check_docs.CHECK, 'check', threads, clock, sleep)
        self.max_servers = conf.max_servers

    def get(self, request, body, client, data_timestamp):
        """The answer (a dict) to a SetRequest whose body is body."""
        return super().get(check_docs.identity(request), body, client,
                           data_timestamp)


def request_json(request, not_json=check_docs.NOT_JSON):
    """The decoded JSON body of the request; BadRequest and the like.

    The body was read before the request reached Pecan, whole and within
    its limit (middleware/request_body.py), or refused there.
    """
    kind = request_body.content_type(request.environ)
    if kind and kind != 'application/json':
        raise errors.UnsupportedMediaType(check_docs.NOT_JSON_TYPE
                                          % kind[:80])
    refused = request_body.refusal(request.environ)
    if refused is not None:
        raise refused
    try:
        return json.loads(request.body)
    except ValueError:
        raise errors.BadRequest(not_json) from None


def worker_answer(mailbox, docs, invalid, refused):
    """The leading worker's answer to the request's body, as a value.

    For the requests asked and answered as set checks are, of a kind
    whose contract module docs has NOT_JSON, parse(), identity() and
    canonical(): mailbox names its AnswerRequests (WorkerAnswers of the
    cloud, set by app.py); invalid: the exception parse() raises;
    refused: the 404's message when this API answers none.
    """
    request = base.request()
    data = request.published
    state, view = data.answering(request.cloud)
    answers = state.answers.get(mailbox)
    if answers is None:
        raise errors.NotFound(refused)
    body = request_json(request, docs.NOT_JSON)
    try:
        wanted = docs.parse(body)
    except invalid as exc:
        raise errors.BadRequest('%s.' % exc) from None
    if view.generation is None:
        raise errors.NoData(data.retry_after)
    try:
        return answers.get(docs.identity(wanted), docs.canonical(wanted),
                           base.client(),
                           view.generation.pointer[pub.TIMESTAMP])
    except reader_mod.CacheError as exc:
        raise errors.Unavailable('%s: %s' % (generations.UNREACHABLE, exc),
                                 data.retry_after) from exc


class ChecksController(base.Resource):
    """/v3/checks: whether a set of servers starts, and where."""

    @base.expose('createCheck')
    def post(self):
        request = base.request()
        data = request.published
        state, view = data.answering(request.cloud)
        if state.checks is None:
            raise errors.NotFound('This API answers no checks ([checks] '
                                  'enabled is false).')
        body = request_json(request)
        try:
            wanted = check_docs.parse(body, state.checks.max_servers,
                                      project_docs.valid_project_id)
        except check_docs.InvalidCheck as exc:
            raise errors.BadRequest('%s.' % exc) from None
        caller = request.caller
        if wanted.project_id is None and caller.project_id:
            wanted = dataclasses.replace(wanted,
                                         project_id=caller.project_id)
        caller.require(policies.CHECK_CREATE,
                       {'project_id': wanted.project_id})
        if view.generation is None:
            raise errors.NoData(data.retry_after)
        try:
            answer = state.checks.get(
                wanted, check_docs.canonical(wanted), base.client(),
                view.generation.pointer[pub.TIMESTAMP])
        except reader_mod.CacheError as exc:
            raise errors.Unavailable('%s: %s' % (generations.UNREACHABLE,
                                                 exc),
                                     data.retry_after) from exc
        document = {check_docs.CHECK: answer}
        if not caller.may(policies.HOSTS):
            document = check_docs.without_hosts(document)
        return responses.page(document,
                              headers=[('Cache-Control', 'no-store')])
