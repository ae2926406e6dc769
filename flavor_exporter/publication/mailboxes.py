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
"""What the leading worker is asked through the cache.

API processes never read the cloud and never compute, and a worker that
hears one of Nova's notifications may not be the one that leads; when
they need the leader to act sooner than its next refresh, they leave a
request in a cache entry that whichever worker leads reads at its next
look (state lives in the cache, not in a process):

- RefreshRequests: publish now, because the cache is cold ([api]
  compute_on_miss) or lost parts of the current generation;
- ProjectRequests: compute these projects' documents;
- CheckRequests: answer these set checks; AnswerRequests: the same
  path for the other kinds the worker answers (what-if, ...);
- Changes: Nova announced a change; read these parts of the cloud again;
- TurnedAway: Nova placed these requests nowhere (NoValidHost).

Everything else API processes do with the cache is reading
(reader.py).
"""

import json

from flavor_exporter.publication import contract as pub

#: Seconds a client's counters of one minute are kept: past their
#: minute, and a little, for refunds that come late.
_COUNTED = 120
#: Suffixes of a client's counter of one minute: its charges refunded
#: (found real, or refused), and those found unknown.
_FOUND = '/found'
_UNKNOWN = '/unknown'
#: Whether a leader settles charges.
_SETTLING = '/settling'
#: Known ids written in one call: a bounded request to memcached.
_KNOWN_PER_WRITE = 1000


class RefreshRequests:
    """One cloud's request for a refresh now (contract.REFRESH_REQUEST_NAME).

    key: the cloud's reader.key, which makes memcached keys of names.
    """

    def __init__(self, backend, key):
        self._backend = backend
        self._key = key(pub.REFRESH_REQUEST_NAME)

    def ask(self, generation_id, ttl):
        """Ask the leading worker to publish now; forgotten after ttl s.

        generation_id: the generation some of whose parts are missing, or
        None when there is none at all (a cold cache).
        """
        self._backend.set_many(
            {self._key: pub.encode({pub.GENERATION: generation_id})}, ttl)

    def pending(self):
        """The request since the last answer, or None.

        {contract.GENERATION: the generation found with parts missing, or
        None when no data was found}.
        """
        return pub.decode(self._backend.get(self._key))

    def clear(self):
        self._backend.delete(self._key)


class ProjectRequests:
    """The projects API processes ask the worker about.

    A request is one slot of a ring: an atomic counter
    (contract.PROJECT_REQUESTS_NAME) numbers it, and slot number % SLOTS
    holds the project id. No process reads, changes and writes a shared
    entry, so no request is lost to another written at the same time;
    a worker that falls more than SLOTS requests behind (or takes over)
    reads the newest SLOTS, and the API asks again for the others.

    A project is asked for once until the worker answers or the request
    expires (an "asked" entry added, not set: one process wins), and a
    client may ask for at most so many new projects a minute: a crowd of
    made-up ids costs each client its own budget, never another's.

    Real projects do not pay for made-up ids (SETTLED): an id the leader
    listed as known (note_known, from Keystone) is asked for free; any
    other is charged, and the leader refunds the charge once it finds
    the project real (settle). A client's budget thus bounds the ids it
    asked about this minute that are unknown or not looked up yet: a
    burst of random ids still stops at the budget, while a portal's
    first questions about its projects cost it nothing.
    """

    SLOTS = 4096
    #: The name its entries are kept under.
    NAME = pub.PROJECT_REQUESTS_NAME

    def __init__(self, backend, key):
        self._backend = backend
        self._key = key
        self._counter = key(self.NAME + '/count')

    def _slot(self, number):
        return self._key('%s/slot/%d' % (self.NAME, number % self.SLOTS))

    def _asked(self, project_id):
        return self._key('%s/asked/%s' % (self.NAME, project_id))

    #: What ask() did.
    ASKED = 'asked'
    PENDING = 'pending'
    REFUSED = 'refused'
    #: Over the budget, but some of the client's charges are still being
    #: looked up (and may be refunded): ask again in a few seconds.
    BUSY = 'busy'

    #: Known ids asked for free, charges settled by the leader; set
    #: checks (CheckRequests) have neither.
    SETTLED = True

    def ask(self, project_id, ttl, client=None, limit=None, now=None,
            extra=None):
        """Ask for project_id; ASKED, PENDING (asked already), REFUSED, BUSY.

        ttl: seconds until an unanswered request may be asked again.
        client: who asks (a user id, or an address when nobody is
        authenticated), for its share of limit new projects a minute;
        None: no share counted (a project answered before). extra:
        {key: bytes} written with the request, only when it is asked.
        """
        asked = self._asked(project_id)
        if not self._backend.add(asked, b'1', ttl):
            return self.PENDING
        extra = dict(extra or {})
        if client is not None and not self._free(project_id):
            outcome, counter = self._charge(client, limit, now)
            if outcome != self.ASKED:
                self._backend.delete(asked)
                return outcome
            if self.SETTLED:
                extra[self._charged(project_id)] = counter.encode()
        number = self._backend.incr(self._counter, 0)
        self._backend.set_many(dict(extra, **{
            self._slot(number): project_id.encode()}), ttl)
        return self.ASKED

    def _free(self, project_id):
        """Whether the leader listed project_id as known lately."""
        return self.SETTLED and self._backend.get(
            self._known(project_id)) is not None

    def _charge(self, client, limit, now):
        """(ASKED, REFUSED or BUSY; the name of the counter charged)."""
        counter = '%s/client/%s/%d' % (
            self.NAME, pub.identity(client.encode()), int(now // 60))
        if self._backend.incr(self._key(counter), _COUNTED) <= limit:
            return self.ASKED, counter
        if not self.SETTLED:
            return self.REFUSED, counter
        # Over the budget as charged: the refunds of this minute's
        # charges may have made room. Read only now: the common case
        # costs one increment.
        names = [counter, counter + _FOUND, counter + _UNKNOWN,
                 self.NAME + _SETTLING]
        found = self._backend.get_many([self._key(n) for n in names])
        charged, refunded, unknown = (
            int(found.get(self._key(n)) or 0) for n in names[:3])
        if charged - refunded <= limit:
            return self.ASKED, counter
        # This refusal is no charge, or the refunds to come could never
        # bring the client back under its budget this minute.
        self._backend.incr(self._key(counter + _FOUND), _COUNTED)
        if self._key(names[3]) in found and unknown < limit:
            return self.BUSY, counter
        return self.REFUSED, counter

    def settle(self, project_id, found):
        """The leader found project_id real (found) or unknown.

        A real one's charge is refunded to the client that asked; an
        unknown one's stays, and is counted as such (BUSY or REFUSED).
        """
        charged = self._charged(project_id)
        counter = self._backend.get(charged)
        if counter is None:
            return  # asked for free, or not by a client
        self._backend.delete(charged)
        self._backend.incr(self._key(counter.decode() + (
            _FOUND if found else _UNKNOWN)), _COUNTED)

    def note_known(self, project_ids, ttl):
        """Ids the leader knows are real: asked for free for ttl s."""
        project_ids = list(project_ids)
        for start in range(0, len(project_ids), _KNOWN_PER_WRITE):
            self._backend.set_many({
                self._known(project_id): b'1'
                for project_id in project_ids[
                    start:start + _KNOWN_PER_WRITE]}, ttl)

    def note_settling(self, ttl):
        """A leader settles charges (for ttl s): over budget is BUSY."""
        self._backend.set_many({self._key(self.NAME + _SETTLING): b'1'},
                               ttl)

    def _known(self, project_id):
        return self._key('%s/known/%s' % (self.NAME, project_id))

    def _charged(self, project_id):
        return self._key('%s/charged/%s' % (self.NAME, project_id))

    def since(self, seen):
        """(number of the newest request, [project ids asked after seen]).

        seen: the number returned last time, or None the first time (then
        the newest SLOTS requests), in the order they were asked.
        """
        raw = self._backend.get(self._counter)
        newest = int(raw) if raw is not None else 0
        first = newest - self.SLOTS + 1
        if seen is not None and newest >= seen:
            first = max(first, seen + 1)
        first = max(first, 1)
        if first > newest:
            return newest, []
        keys = {number: self._slot(number)
                for number in range(first, newest + 1)}
        found = self._backend.get_many(list(keys.values()))
        asked = []
        for number in range(first, newest + 1):
            value = found.get(keys[number])
            if value is not None:
                asked.append(value.decode())
        return newest, asked

    def answered(self, project_id):
        """The worker answered: the project may be asked for again."""
        self._backend.delete(self._asked(project_id))


class AnswerRequests(ProjectRequests):
    """Requests of one kind the leading worker answers with a document.

    A ProjectRequests ring of request ids (a digest of the request as
    understood); the body of each is kept beside it, and the worker's
    answer under the same id, where every API process finds it. One ring
    per kind (name: contract.CHECK_REQUESTS_NAME, WHATIF_REQUESTS_NAME,
    ...), each with its own per-client budget: set checks, what-ifs and
    the like share the path, never each other's queue.
    """

    SETTLED = False

    def __init__(self, backend, key, name):
        self.NAME = name
        super().__init__(backend, key)

    def _body(self, request_id):
        return self._key('%s/body/%s' % (self.NAME, request_id))

    def _answer(self, request_id):
        return self._key('%s/answer/%s' % (self.NAME, request_id))

    def ask_body(self, request_id, body, ttl, client, limit, now):
        """Ask for request_id with its body; as ProjectRequests.ask."""
        return self.ask(request_id, ttl, client, limit, now,
                        {self._body(request_id): pub.encode(body)})

    def body(self, request_id):
        """The body asked with request_id, or None once expired."""
        return pub.decode(self._backend.get(self._body(request_id)))

    def answer(self, request_id, fields, ttl):
        """Publish the worker's answer; the request may be asked again."""
        self._backend.set_many(
            {self._answer(request_id): pub.encode(fields)}, ttl)
        self.answered(request_id)

    def answer_of(self, request_id):
        """The answer published for request_id (a dict), or None."""
        return pub.decode(self._backend.get(self._answer(request_id)))


class CheckRequests(AnswerRequests):
    """The set checks API processes ask the worker for."""

    def __init__(self, backend, key):
        super().__init__(backend, key, pub.CHECK_REQUESTS_NAME)

    ask_check = AnswerRequests.ask_body


class Changes:
    """Parts of the cloud Nova announced changes of, not yet read again.

    One counter per part (nova_events: usages, services, aggregates,
    flavors), counted up by whichever worker heard the notification, and
    the time of the first change the leader has not taken yet. The leader
    compares the counters with those it last took: nothing is lost to a
    change noted while it reads. The hosts whose usages changed go into
    a ring (as ProjectRequests'); a change that may concern any host
    counts an "anywhere" counter instead.
    """

    PARTS = ('usages', 'services', 'aggregates', 'flavors')
    SLOTS = 4096
    _ANYWHERE = 'anywhere'
    _HOSTS = 'hosts'

    def __init__(self, backend, key):
        self._backend = backend
        self._key = key
        self._counters = {part: key('%s/%s' % (pub.CHANGES_NAME, part))
                          for part in self.PARTS + (self._ANYWHERE,
                                                    self._HOSTS)}
        self._first = key(pub.CHANGES_NAME + '/first')

    def _slot(self, number):
        return self._key('%s/host/%d' % (pub.CHANGES_NAME,
                                         number % self.SLOTS))

    def note(self, parts, now, ttl, hosts=None):
        """Nova changed parts (an iterable of PARTS) at now.

        hosts: with usages, the hosts whose usages changed, None for any.
        """
        usages = 'usages' in parts
        self.note_many({part: 1 for part in parts},
                       set(hosts or ()) if usages else (),
                       1 if usages and hosts is None else 0, now, ttl)

    def note_many(self, counts, hosts, anywhere, now, ttl):
        """What a batch of notifications changed, in a few operations.

        counts: {part: notifications that changed it}; hosts: the hosts
        whose usages changed; anywhere: how many usage changes may concern
        any host. A burst costs each counter one increment per batch, not
        one per notification (the cache's pool is shared with the refresh).
        """
        for part, count in counts.items():
            if count:
                self._backend.incr(self._counters[part], ttl, count)
        if anywhere:
            self._backend.incr(self._counters[self._ANYWHERE], ttl, anywhere)
        hosts = sorted(hosts)
        if hosts:
            newest = self._backend.incr(self._counters[self._HOSTS], ttl,
                                        len(hosts))
            first = newest - len(hosts) + 1
            self._backend.set_many(
                {self._slot(first + i): host.encode()
                 for i, host in enumerate(hosts)}, ttl)
        self._backend.add(self._first, repr(now).encode(), ttl)

    def pending(self, taken):
        """(counters, first change or None, parts changed, hosts).

        taken: the counters returned when the leader last took changes
        ({} the first time: then nothing is pending, the refresh that
        starts a leader reads everything). hosts: those whose usages
        changed since, None when any may have.
        """
        found = self._backend.get_many(list(self._counters.values())
                                       + [self._first])
        counters = {part: int(found.get(key) or 0)
                    for part, key in self._counters.items()}
        first = found.get(self._first)
        changed = frozenset(part for part in self.PARTS
                            if taken and counters[part] != taken.get(part, 0))
        return (counters, float(first) if first else None, changed,
                self._hosts(taken, counters) if taken else None)

    def _hosts(self, taken, counters):
        if counters[self._ANYWHERE] != taken.get(self._ANYWHERE, 0):
            return None
        seen, newest = taken.get(self._HOSTS, 0), counters[self._HOSTS]
        if newest < seen or newest - seen > self.SLOTS:
            return None  # lost track: read every host
        keys = [self._slot(n) for n in range(seen + 1, newest + 1)]
        found = self._backend.get_many(keys)
        if len(found) != len(keys):
            return None
        return frozenset(value.decode() for value in found.values())

    def take(self):
        """The leader reads the changes now: the next ones start anew."""
        self._backend.delete(self._first)


class TurnedAway:
    """Requests Nova placed nowhere, in a ring as ProjectRequests has.

    Each slot holds one failure as JSON: [flavor id, flavor name, project
    id or null, time]. The leader adds them up (worker/demand.py); a
    leader that falls more than SLOTS behind counts the rest as lost.
    """

    SLOTS = 4096

    def __init__(self, backend, key):
        self._backend = backend
        self._key = key
        self._counter = key(pub.TURNED_AWAY_NAME + '/count')

    def _slot(self, number):
        return self._key('%s/slot/%d' % (pub.TURNED_AWAY_NAME,
                                         number % self.SLOTS))

    def note(self, flavor_id, flavor_name, project_id, now, ttl,
             once=None):
        """One failure; once: a key that notes it only the first time."""
        self.note_many([(flavor_id, flavor_name, project_id, once)], now,
                       ttl)

    def note_many(self, failures, now, ttl):
        """Failures [(flavor id, name, project, once)] heard at now.

        once: a key that notes a failure only the first time, or None.
        The ring's numbers are taken in one increment.
        """
        new = [failure for failure in failures
               if failure[3] is None or self._backend.add(
                   self._key('%s/once/%s' % (
                       pub.TURNED_AWAY_NAME,
                       pub.identity(failure[3].encode()))), b'1', ttl)]
        if not new:
            return
        newest = self._backend.incr(self._counter, 0, len(new))
        first = newest - len(new) + 1
        self._backend.set_many({
            self._slot(first + i): json.dumps(
                [flavor_id, name, project_id, now]).encode()
            for i, (flavor_id, name, project_id, _) in enumerate(new)}, ttl)

    def since(self, seen):
        """(newest number, [(number, failure or None)], failures lost).

        The slots after seen, in order; None where a slot holds nothing:
        a writer that took its number and has not written yet, or a slot
        that expired (the caller tells which). lost: those the ring no
        longer holds because more than SLOTS came after seen.
        """
        raw = self._backend.get(self._counter)
        newest = int(raw) if raw is not None else 0
        if seen is None or newest < seen:
            # Never read, or the counter was lost: from what the ring has.
            seen = max(0, newest - self.SLOTS)
        first = max(seen + 1, newest - self.SLOTS + 1)
        lost = first - seen - 1
        keys = {number: self._slot(number)
                for number in range(first, newest + 1)}
        found = self._backend.get_many(list(keys.values()))
        slots = []
        for number, key in keys.items():
            value = found.get(key)
            slots.append((number, None if value is None
                          else json.loads(value)))
        return newest, slots, lost
