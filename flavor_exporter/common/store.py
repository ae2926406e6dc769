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
"""How rendered documents are published to, and read from, the cache.

A refresh stores the parts of the documents whose content changed, then a
manifest naming every document's parts, then moves the "current" pointer
to the new manifest. Readers resolve the pointer first, so they see either
the old refresh or the new one, never a mix; parts are immutable once
written (their names come from their content, see
flavor_exporter.common.published). A refresh that changes nothing writes
only the pointer.

The publisher keeps the cache tidy: the parts only the generation before
the previous one used are deleted once the new pointer is out (readers of
the previous generation still find theirs), and parts still in use are
written again before they would expire. What it knows of earlier
generations it reads back from the cache when it starts, so a restarted
worker, or another machine's, carries on where the last one stopped.

The status entry is separate: it records the last attempt, good or bad,
without touching published data.
"""

import time
import uuid

from oslo_log import log

from flavor_exporter.common import cache
from flavor_exporter.common import published as pub

LOG = log.getLogger(__name__)

CacheError = cache.CacheError


class MissingData(CacheError):
    """A part the pointer leads to is not in the cache (evicted, lost)."""


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


class DocumentStore:
    """Generations of rendered documents plus the worker's status."""

    def __init__(self, backend, prefix, ttl, clock=time.time):
        self._backend = backend
        self._prefix = prefix
        self._ttl = ttl
        self._clock = clock
        # The publisher's view: the last two generations, newest last.
        self._published = None
        # Part name -> when this process last wrote it.
        self._written = {}

    @classmethod
    def from_conf(cls, conf):
        options = conf.document_cache
        return cls(cache.backend_from_conf(conf), options.key_prefix,
                   options.expiration_time)

    def _key(self, name):
        return pub.key(self._prefix, name)

    # Publishing

    def publish(self, documents, pointer, collected_at, rewrite=False):
        """Store documents ({name: bytes with stamps}), then point at them.

        pointer: the refresh's fields (published.pointer()); the store
        adds GENERATION, SEQUENCE and MANIFEST. rewrite writes every part
        again, for a cache that lost them. Returns the new pointer.
        Raises CacheError, in which case readers still see the old one.
        """
        history = self._history()
        if history:
            published = self.current()
            if published is None:
                # memcached restarted: nothing of ours is left.
                rewrite = True
            elif published[pub.GENERATION] != \
                    history[-1].pointer[pub.GENERATION]:
                # Another publisher took over: carry on from its data.
                self._published = None
                history = self._history()
        last = history[-1] if history else None
        changed_at = pub.epoch(pub.iso_timestamp(collected_at))
        now = self._clock()
        writes = {}

        def stored(content, known):
            return self._stored(content, known, changed_at, now, rewrite,
                                writes)
        entries = {name: stored(template,
                                last.entries.get(name) if last else None)
                   for name, template in documents.items()}
        manifest = stored(pub.encode_manifest(entries),
                          last.manifest if last else None)
        self._write(writes, now)
        pointer = dict(pointer, **{
            pub.GENERATION: uuid.uuid4().hex,
            pub.SEQUENCE: last.pointer.get(pub.SEQUENCE, 0) + 1 if last
            else 1,
            pub.MANIFEST: list(manifest)})
        self._set(pub.POINTER_NAME, pointer)
        self._forget(history, _Generation(pointer, entries))
        LOG.debug('Published generation %d: %d parts written for %d '
                  'documents', pointer[pub.SEQUENCE], len(writes),
                  len(entries))
        return pointer

    def _stored(self, content, known, changed_at, now, rewrite, writes):
        """The Entry of content; the parts to write go into writes.

        known: the Entry the same document had in the last generation.
        Unchanged content keeps it, and so its entity tag and time.
        """
        identity = pub.identity(content)
        if known is None or known.identity != identity:
            known = pub.Entry(identity, changed_at, 0)
        elif not (rewrite or self._expiring(known, now)):
            return known
        parts = pub.split(pub.stamp(content, pub.COLLECTED_AT,
                                    pub.iso_from_epoch(known.changed_at)))
        entry = known._replace(parts=len(parts))
        writes.update(zip(entry.part_names(), parts))
        return entry

    def _history(self):
        if self._published is None:
            self._published = []
            try:
                pointer = self.current()
                if pointer is not None:
                    self._published = [_Generation(
                        pointer, self.manifest(pointer))]
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
        self._backend.set_many({self._key(name): body
                                for name, body in parts.items()}, self._ttl)
        for name in parts:
            self._written[name] = now

    def _forget(self, history, generation):
        """Delete what only the generation before the previous used."""
        history.append(generation)
        if len(history) > 2:
            oldest = history.pop(0)
            unused = oldest.keys - history[0].keys - history[1].keys
            if unused:
                try:
                    self._backend.delete_many(
                        [self._key(name) for name in unused])
                except CacheError as exc:
                    # They expire anyway; publishing has succeeded.
                    LOG.info('Could not delete %d superseded parts: %s',
                             len(unused), exc)
                for name in unused:
                    self._written.pop(name, None)

    # Reading

    def current(self):
        """The pointer of the published generation, or None if cold."""
        return self._get(pub.POINTER_NAME)

    def manifest(self, pointer):
        """{document name: Entry} of the generation pointer names.

        Raises MissingData when the manifest is not in the cache.
        """
        return pub.manifest_entries(pub.decode(self.read(
            pub.Entry(*pointer[pub.MANIFEST]), 'the manifest')))

    def read(self, entry, what='a document'):
        """The stored bytes (stamped) of entry.

        Raises MissingData when a part is not in the cache: an evicted or
        lost part, never an unknown document (the manifest knows those).
        """
        names = entry.part_names()
        found = self._backend.get_many([self._key(n) for n in names])
        try:
            return b''.join(found[self._key(n)] for n in names)
        except KeyError:
            raise MissingData(
                'the cache lost %s of the published data (memcached '
                'evicted it or restarted); the worker publishes it again '
                'at its next refresh' % what) from None

    def document(self, pointer, name):
        """Document name of a generation as stored, or None if unknown."""
        entry = self.manifest(pointer).get(name)
        return None if entry is None else self.read(entry)

    # The worker's status entry

    def write_status(self, status):
        self._set(pub.STATUS_NAME, status)

    def status(self):
        return self._get(pub.STATUS_NAME)

    def _set(self, name, value):
        self._backend.set_many({self._key(name): pub.encode(value)},
                               self._ttl)

    def _get(self, name):
        return pub.decode(self._backend.get(self._key(name)))

    def close(self):
        self._backend.close()
