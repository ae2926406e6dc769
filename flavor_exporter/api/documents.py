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
"""The published documents of the served generation, in process memory.

A generation is immutable once its pointer is published (see
flavor_exporter.common.store), so a document fetched from the cache is
never invalidated, only evicted: in a steady state a request makes no
cache round trip at all. Each document is held as the Representation the
API serves: its bytes, as published, and its entity tag.
"""

import collections
import zlib

from flavor_exporter.api import generations
from flavor_exporter.api import lru
from flavor_exporter.common import store as store_mod

# Per process. A 500-flavor cloud's lists are ~0.1-0.5 MB each; per-flavor
# documents with their host breakdown are the bulk. Past the budget the
# least recently used documents are fetched again from the cache.
MAX_BYTES = 64 * 1024 * 1024
MAX_ENTRIES = 4096
# What an entry costs besides its bytes, roughly.
ENTRY_OVERHEAD = 200


class Representation(collections.namedtuple('Representation',
                                            'body etag')):
    """The bytes of an answer and their strong entity tag."""


def entity_tag(generation_id, name, variant=None):
    """The ETag of document name (or one variant of it) of a generation."""
    tag = zlib.crc32(repr((name, variant)).encode('utf-8'))
    return '"%s-%08x"' % (generation_id, tag)


class DocumentCache:
    """Published documents of one generation at a time; thread-safe."""

    def __init__(self, store, max_bytes=MAX_BYTES, max_entries=MAX_ENTRIES):
        self._store = store
        self._lru = lru.BytesLRU(max_bytes, max_entries)

    def get(self, generation_id, name):
        """The Representation of document name, or None if absent.

        Raises generations.Unavailable when the cache fails and the
        document is not held here.
        """
        key = (generation_id, name)
        held = self._lru.get(key)
        if held is not None:
            return held
        try:
            body = self._store.document(generation_id, name)
        except store_mod.CacheError as exc:
            raise generations.Unavailable('%s: %s' % (
                generations.UNREACHABLE, exc)) from exc
        if body is None:
            # Not remembered: pymemcache's HashClient answers a miss, not
            # an error, while it waits to retry a failed server, so a
            # missing document may be a cache failure. Callers check names
            # against the generation's indexes (ParsedDocuments.derived)
            # to tell an unknown name from an unreadable document.
            return None
        held = Representation(body, entity_tag(generation_id, name))
        self._lru.put(key, held, len(body) + ENTRY_OVERHEAD)
        return held

    def keep_only(self, generation_id):
        """Forget the documents of every other generation."""
        self._lru.keep_only(lambda key: key[0] == generation_id)

    def __len__(self):
        return len(self._lru)
