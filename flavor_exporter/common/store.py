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

import hashlib
import json
import urllib.parse
import uuid

from flavor_exporter.common import cache

CacheError = cache.CacheError

# memcached keys: at most 250 bytes, no spaces or control characters.
_MAX_NAME = 160


def _encode(value):
    return json.dumps(value, separators=(',', ':'), sort_keys=True).encode()


def _decode(raw):
    return json.loads(raw) if raw is not None else None


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

    def _key(self, name):
        safe = urllib.parse.quote(name, safe='/:=.-_')
        if len(safe) > _MAX_NAME:
            safe = 'sha256-' + hashlib.sha256(name.encode()).hexdigest()
        return '%s:%s' % (self._prefix, safe)

    def document_key(self, generation, name):
        return self._key('%s/%s' % (generation, name))

    def publish(self, documents, pointer):
        """Write documents ({name: bytes}) then point readers at them.

        pointer is a dict describing the generation (timestamp, source...);
        its "generation" is set here. Returns the new generation id.
        Raises CacheError, in which case readers still see the old one.
        """
        generation = uuid.uuid4().hex
        self._backend.set_many(
            {self.document_key(generation, name): body
             for name, body in documents.items()}, self._ttl)
        pointer = dict(pointer, generation=generation)
        self._backend.set_many({self._key('current'): _encode(pointer)},
                               self._ttl)
        return generation

    def current(self):
        """The pointer of the published generation, or None if cold."""
        return _decode(self._backend.get(self._key('current')))

    def document(self, generation, name):
        return self._backend.get(self.document_key(generation, name))

    def write_status(self, status):
        self._backend.set_many({self._key('status'): _encode(status)},
                               self._ttl)

    def status(self):
        return _decode(self._backend.get(self._key('status')))

    def close(self):
        self._backend.close()
