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
"""Publishing rendered documents to the cache, fenced.

A refresh stores the parts of the documents whose content changed, then a
manifest naming every document's parts, then moves the "current" pointer
to the new manifest (see reader.py for what readers do with it). Parts
are immutable once written and stamped once, here: an unchanged document
keeps its bytes, entity tag and time from one generation to the next. A
refresh that changes nothing writes only the pointer.

The publisher keeps the cache tidy: the parts only the generation before
the previous one used are deleted once the new pointer is out (readers of
the previous generation still find theirs), and parts still in use are
written again before they would expire. What it knows of earlier
generations it reads back from the cache when it starts, so a restarted
worker, or another machine's, carries on where the last one stopped.

Several workers may publish (one leads, see flavor_exporter.worker.
leadership, but a leader paused past its lease still believes it leads),
so moving the pointer is conditional: the pointer carries a sequence that
only grows, and a publisher replaces it only while it still holds the
sequence the publisher based its work on (compare-and-set), or adds it
where it is absent. A publisher that finds a newer sequence raises
Superseded and its refresh is dropped; its parts are never pointed at.

The parts are spread over the memcached servers by hashing: when a server
is lost, or comes back empty, or the servers the keys hash to change (a
server marked dead, or back after dead_retry), the publisher notices (its
copy of the pointer is missing, or its ring changed) and writes every
part again, hashed onto the servers it has now.

The status entry is separate: it records the last attempt, good or bad,
without touching published data.
"""

import time
import uuid

from oslo_log import log

from flavor_exporter.common import clouds
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import mailboxes
from flavor_exporter.publication import reader as reader_mod

LOG = log.getLogger(__name__)

CacheError = cache.CacheError
_sequence = reader_mod.sequence
_newest = reader_mod.newest


class Superseded(CacheError):
    """Another publisher moved the pointer past this work's base."""

    def __init__(self, base_sequence, newer_sequence):
        super().__init__(
            'another worker published generation %s while this one worked '
            'from generation %s; this result is dropped, nothing of it is '
            'served' % (newer_sequence if newer_sequence is not None
                        else 'concurrently', base_sequence))
        self.newer_sequence = newer_sequence


# publish(base=...) left out: the newest pointer when publishing starts.
_NEWEST = object()


class _Generation:
    """What the publisher remembers of a generation it published."""

    def __init__(self, pointer, entries):
        self.pointer = pointer
        self.entries = entries  # {document name: Entry}
        self.keys = set()
        for entry in list(entries.values()) + [self.manifest]:
            self.keys.update(entry.part_names())

    @property
    def manifest(self):
        return pub.Entry(*self.pointer[pub.MANIFEST])


class Publisher:
    """Publishes one cloud's generations and its worker's status."""

    def __init__(self, backend, prefix, ttl, clock=time.time):
        self._backend = backend
        #: What was published, read as the API reads it.
        self.reader = reader_mod.Reader(backend, prefix)
        #: What API processes ask the worker of this cloud.
        self.refresh_requests = mailboxes.RefreshRequests(
            backend, self.reader.key)
        self.project_requests = mailboxes.ProjectRequests(
            backend, self.reader.key)
        self.check_requests = mailboxes.CheckRequests(
            backend, self.reader.key)
        self._answer_requests = {}
        #: What the workers heard of Nova's notifications.
        self.changes = mailboxes.Changes(backend, self.reader.key)
        self.turned_away = mailboxes.TurnedAway(backend, self.reader.key)
        self._ttl = ttl
        self._clock = clock
        # The publisher's view: the last two generations, newest last.
        self._published = None
        # Part name -> when this process last wrote it.
        self._written = {}
        # The replicas that held this publisher's last pointer, and the
        # servers its parts were hashed onto.
        self._holding = None
        self._ring = None
        # id(bytes) -> (the bytes, their identity) of the last documents
        # published: a refresh whose documents did not change hands the
        # same objects again, whose ~100 MB need not be hashed again.
        self._identities = {}

    def answer_requests(self, name):
        """The mailboxes.AnswerRequests of one kind (a contract name)."""
        if name == pub.CHECK_REQUESTS_NAME:
            return self.check_requests
        found = self._answer_requests.get(name)
        if found is None:
            found = self._answer_requests[name] = mailboxes.AnswerRequests(
                self._backend, self.reader.key, name)
        return found

    @classmethod
    def from_conf(cls, conf, cloud=None, backend=None):
        """The publisher of cloud (the single or default one when None).

        backend: a cache backend to share with the other clouds' publishers.
        """
        if cloud is None:
            cloud = clouds.default(conf)
        return cls(backend or cache.backend_from_conf(conf),
                   cloud.key_prefix, conf.document_cache.expiration_time)

    @property
    def backend(self):
        """The cache client, for other clouds' publishers to share."""
        return self._backend

    def publish(self, documents, pointer, collected_at, rewrite=False,
                base=_NEWEST):
        """Store documents ({name: bytes with stamps}), then point at them.

        pointer: the refresh's fields (published.pointer()); the store
        adds GENERATION, SEQUENCE and MANIFEST. rewrite writes every part
        again, for a cache that lost them. base: the pointer (or None when
        the cache was cold) current when the work began; the pointer is
        only moved if nothing newer was published since. Returns the new
        pointer. Raises Superseded when something newer was, CacheError
        when the cache failed; in both cases readers still see the old
        pointer.
        """
        copies = self.reader.pointer_copies()
        published = _newest(pointer for pointer, _ in copies.values())
        if base is _NEWEST:
            base = published
        if _sequence(published) > _sequence(base):
            # Fenced before writing anything.
            raise Superseded(_sequence(base), _sequence(published))
        history = self._history(published)
        if history:
            if published is None:
                # memcached restarted: nothing of ours is left.
                rewrite = True
            elif published[pub.GENERATION] != \
                    history[-1].pointer[pub.GENERATION]:
                # Another publisher took over: carry on from its data.
                self._published = None
                history = self._history(published)
        if self._moved(copies, published):
            # A server was lost or came back empty: the parts it held
            # are gone, the others hold the rest.
            rewrite = True
        ring = self._backend.ring()
        last = history[-1] if history else None
        changed_at = pub.epoch(pub.iso_timestamp(collected_at))
        now = self._clock()
        writes = {}
        identities = {}

        def stored(content, known):
            return self._stored(content, known, changed_at, now, rewrite,
                                writes, self._identity(content, identities))
        entries = {name: stored(template,
                                last.entries.get(name) if last else None)
                   for name, template in documents.items()}
        manifest = stored(pub.encode_manifest(entries),
                          last.manifest if last else None)
        self._write(writes, now)
        pointer = dict(pointer, **{
            pub.GENERATION: uuid.uuid4().hex,
            # Never backwards, even from a cache that forgot everything.
            pub.SEQUENCE: max(_sequence(base),
                              _sequence(last.pointer if last else None)) + 1,
            pub.PUBLISHED_AT: round(now, 3),
            pub.MANIFEST: list(manifest)})
        self._swap_pointer(_sequence(base), pointer)
        self._identities = identities
        self._ring = ring
        self._forget(history, _Generation(pointer, entries))
        LOG.debug('Published generation %d: %d parts written for %d '
                  'documents', pointer[pub.SEQUENCE], len(writes),
                  len(entries))
        return pointer

    def lost_parts(self, pointer):
        """True when pointer is current but readers miss some of its parts.

        A memcached server that restarted, or is lost, took its part of
        the parts and its copy of the pointer with it; a server that left
        or joined the ring moved where readers look for some. The parts
        have to be written again. pointer: one this publisher published.
        """
        copies = self.reader.pointer_copies()
        published = _newest(copy for copy, _ in copies.values())
        return (published is not None and
                published[pub.GENERATION] == pointer[pub.GENERATION] and
                self._moved(copies, published))

    def _moved(self, copies, published):
        """Whether parts moved since this publisher last wrote them."""
        if self._holding is None:
            return False
        return (self._holders(copies, published) != self._holding or
                self._backend.ring() != self._ring)

    @staticmethod
    def _holders(copies, published):
        return frozenset(
            replica for replica, (pointer, _) in copies.items()
            if published is not None and pointer is not None and
            pointer[pub.GENERATION] == published[pub.GENERATION])

    def _swap_pointer(self, base_sequence, pointer):
        """Write pointer on every replica still at base_sequence or older.

        The replicas are taken in the configured order, the same for every
        publisher, so the first one that answers decides between two
        publishers that race from the same base.
        """
        key = self.reader.key(pub.POINTER_NAME)
        body = pub.encode(pointer)
        written = set()
        error = None
        for replica in self._backend.replicas:
            try:
                raw, token = self._backend.gets_replica(replica, key)
                held = pub.decode(raw)
                if _sequence(held) > base_sequence:
                    raise Superseded(base_sequence, _sequence(held))
                if not self._backend.cas_replica(replica, key, body, token,
                                                 self._ttl):
                    raise Superseded(base_sequence, None)
            except Superseded:
                if written:
                    LOG.warning('Two workers published from generation %d '
                                'at once; readers take the first server\'s '
                                'copy', base_sequence)
                raise
            except CacheError as exc:
                error = exc
                continue
            written.add(replica)
        if not written:
            raise error
        if error is not None:
            LOG.info('Published generation %d without the pointer copy '
                     'on a memcached server that failed: %s',
                     pointer[pub.SEQUENCE], error)
        self._holding = frozenset(written)

    def _identity(self, content, identities):
        """pub.identity(content), remembered in identities.

        Taken from the last publication when content is the very object
        it published (bytes do not change); held with the object, so that
        its id is not another's.
        """
        held = self._identities.get(id(content))
        if held is not None and held[0] is content:
            identity = held[1]
        else:
            identity = pub.identity(content)
        identities[id(content)] = (content, identity)
        return identity

    def _stored(self, content, known, changed_at, now, rewrite, writes,
                identity):
        """The Entry of content; the parts to write go into writes.

        known: the Entry the same document had in the last generation.
        Unchanged content keeps it, and so its entity tag and time.
        identity: pub.identity(content).
        """
        if known is None or known.identity != identity:
            known = pub.Entry(identity, changed_at, 0)
        elif not (rewrite or self._expiring(known, now)):
            return known
        parts = pub.split(pub.stamped(content, known.changed_at))
        entry = known._replace(parts=len(parts))
        writes.update(zip(entry.part_names(), parts))
        return entry

    def _history(self, pointer):
        """What this publisher knows of the last generations.

        pointer: the current one, read back when the publisher knows
        nothing yet.
        """
        if self._published is None:
            self._published = []
            try:
                if pointer is not None:
                    self._published = [_Generation(
                        pointer, self.reader.manifest(pointer))]
            except CacheError as exc:
                LOG.info('No earlier generation read back (%s); every '
                         'document will be written', exc)
            for generation in self._published:
                # When its parts were written is not known: no later than
                # their content was first seen.
                entries = [generation.manifest, *generation.entries.values()]
                for entry in entries:
                    for key in entry.part_names():
                        self._written[key] = entry.changed_at
        return self._published

    def _expiring(self, entry, now):
        # A part still in use is written again before it could expire.
        return bool(self._ttl) and any(
            now - self._written.get(key, 0) > self._ttl / 2
            for key in entry.part_names())

    def _write(self, parts, now):
        if not parts:
            return
        self._backend.set_many({self.reader.key(name): body
                                for name, body in parts.items()}, self._ttl)
        for name in parts:
            self._written[name] = now

    def _forget(self, history, generation):
        """Delete what only the generation before the previous used.

        Safe with several publishers: the pointer only moves from the
        generation its publisher based its work on, so the generations
        form one line, and a publisher that takes over carries on from
        the current generation's parts. A part only the generation before
        the previous used is in neither of the two newest, and a newer
        generation names new content by the time it was first seen, later
        than the deleted part's.
        """
        history.append(generation)
        if len(history) > 2:
            oldest = history.pop(0)
            unused = oldest.keys - history[0].keys - history[1].keys
            if unused:
                try:
                    self._backend.delete_many(
                        [self.reader.key(name) for name in unused])
                except CacheError as exc:
                    # They expire anyway; publishing has succeeded.
                    LOG.info('Could not delete %d superseded parts: %s',
                             len(unused), exc)
                for name in unused:
                    self._written.pop(name, None)

    # The worker's status entry

    def write_status(self, status):
        self._backend.set_many(
            {self.reader.key(pub.STATUS_NAME): pub.encode(status)}, self._ttl)

    def write_demand(self, demand):
        """The leader's totals of the requests Nova placed nowhere."""
        self._backend.set_many(
            {self.reader.key(pub.DEMAND_NAME): pub.encode(demand)},
            self._ttl)

    def write_project_status(self, status):
        self._backend.set_many(
            {self.reader.key(pub.PROJECT_STATUS_NAME): pub.encode(status)},
            self._ttl)

    # Per-project documents

    def publish_project(self, project_id, fields, ttl, body=None):
        """Write a project's quota part (body, when given), then its entry.

        fields: the entry's fields (COMPUTED_AT, QUOTA_READ_AT, PROBLEM...).
        Without body, the entry keeps the part it named and its fields: a
        problem is reported beside the last good answer.
        """
        key = self.reader.key(pub.project(project_id))
        previous = pub.decode(self._backend.get(key)) or {}
        if body is None:
            kept = {name: value for name, value in previous.items()
                    if name != pub.PROBLEM}
            self._backend.set_many({key: pub.encode(dict(kept, **fields))},
                                   ttl)
            return
        parts = pub.split(body)
        entry = pub.Entry(pub.identity(body), int(self._clock()),
                          len(parts))
        self._backend.set_many(
            {self.reader.key(name): part
             for name, part in zip(entry.part_names(), parts)}, ttl)
        self._backend.set_many({key: pub.encode(
            dict(fields, **{pub.ENTRY: list(entry)}))}, ttl)
        if pub.ENTRY not in previous:
            return
        # Superseded parts would pile up for forget_after; a reader caught
        # between finds the new entry at its next look. Each part is its
        # project's own: the project id is in the bytes it is named after.
        superseded = set(pub.Entry(*previous[pub.ENTRY]).part_names()) - \
            set(entry.part_names())
        if superseded:
            self._backend.delete_many(
                [self.reader.key(name) for name in sorted(superseded)])

    def close(self):
        self._backend.close()
