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

A refresh writes all of its documents under keys that carry a new
generation id, and only then moves the "current" pointer to that
generation. Readers resolve the pointer first, so they see either the old
refresh or the new one, never a mix, and documents are immutable once
written. The status entry is separate: it records the last attempt, good or
bad, without touching published data.
"""

import uuid

from flavor_exporter.common import cache
from flavor_exporter.common import published as pub

CacheError = cache.CacheError


class DocumentStore:
    """Generations of rendered documents plus the worker's status."""

    def __init__(self, backend, prefix, ttl):
        self._backend = backend
        self._prefix = prefix
        self._ttl = ttl

    @classmethod
    def from_conf(cls, conf):
        options = conf.document_cache
        return cls(cache.backend_from_conf(conf), options.key_prefix,
                   options.expiration_time)

    def document_key(self, generation, name):
        return pub.document_key(self._prefix, generation, name)

    def publish(self, documents, pointer):
        """Write documents ({name: bytes}) then point readers at them.

        pointer is a dict describing the generation (published.pointer());
        its GENERATION is set here. Returns the new generation id.
        Raises CacheError, in which case readers still see the old one.
        """
        generation = uuid.uuid4().hex
        self._backend.set_many(
            {self.document_key(generation, name): body
             for name, body in documents.items()}, self._ttl)
        pointer = dict(pointer, **{pub.GENERATION: generation})
        self._set(pub.POINTER_NAME, pointer)
        return generation

    def current(self):
        """The pointer of the published generation, or None if cold."""
        return self._get(pub.POINTER_NAME)

    def document(self, generation, name):
        return self._backend.get(self.document_key(generation, name))

    def write_status(self, status):
        self._set(pub.STATUS_NAME, status)

    def status(self):
        return self._get(pub.STATUS_NAME)

    def _set(self, name, value):
        self._backend.set_many(
            {pub.key(self._prefix, name): pub.encode(value)}, self._ttl)

    def _get(self, name):
        return pub.decode(self._backend.get(pub.key(self._prefix, name)))

    def close(self):
        self._backend.close()
