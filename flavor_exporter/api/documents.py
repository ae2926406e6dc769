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

Stored parts are immutable (their names come from their content, see
flavor_exporter.common.published), so a document fetched from the cache
is never invalidated, only evicted, and one that a new generation did not
change is not fetched again: in a steady state a request makes no cache
round trip at all. Each document is held as the Representation the API
serves: its bytes, its entity tag and when its content last changed.
"""

import collections
import wsgiref.handlers

from flavor_exporter.api import generations
from flavor_exporter.api import lru
from flavor_exporter.common import published as pub
from flavor_exporter.common import store as store_mod

# Per process. A 500-flavor cloud's lists are ~0.1-0.5 MB each; per-flavor
# documents with their host breakdown are the bulk. Past the budget the
# least recently used documents are fetched again from the cache.
MAX_BYTES = 64 * 1024 * 1024
MAX_ENTRIES = 4096
# What an entry costs besides its bytes, roughly.
ENTRY_OVERHEAD = 200


class Representation(collections.namedtuple(
        'Representation', 'body etag last_modified')):
    """The bytes of an answer, their strong entity tag, and their time."""


def http_date(epoch):
    return None if epoch is None else wsgiref.handlers.format_date_time(
        epoch)


class DocumentCache:
    """Published documents, by content; thread-safe."""

    def __init__(self, store, max_bytes=MAX_BYTES, max_entries=MAX_ENTRIES):
        self._store = store
        self._lru = lru.BytesLRU(max_bytes, max_entries)

    def get(self, generation, name):
        """The Representation of document name, or None if unknown.

        Raises generations.Unavailable when the cache fails, or lost the
        document, and it is not held here.
        """
        entry = generation.documents.get(name)
        if entry is None:
            return None
        if name in pub.REFRESH_STAMPED:
            # Its bytes say when the generation was refreshed.
            key = (entry, generation.id)
        else:
            key = (entry, None)
        held = self._lru.get(key)
        if held is None:
            held = self._fetch(generation, name, entry, key)
            self._lru.put(key, held, len(held.body) + ENTRY_OVERHEAD)
        return held

    def _fetch(self, generation, name, entry, key):
        try:
            body = self._store.read(entry)
        except store_mod.MissingData as exc:
            raise generations.Unavailable(str(exc)) from exc
        except store_mod.CacheError as exc:
            raise generations.Unavailable('%s: %s' % (
                generations.UNREACHABLE, exc)) from exc
        body = pub.served(name, body, generation.pointer)
        if key[1] is None:
            return Representation(body, entry.etag,
                                  http_date(entry.changed_at))
        return Representation(body, '%s-%s"' % (entry.etag[:-1],
                                                generation.id[:8]),
                              generation.last_modified)

    def keep_only(self, generation):
        """Forget the documents generation does not have."""
        current = set(generation.documents.values())
        self._lru.keep_only(lambda key: key[0] in current and (
            key[1] is None or key[1] == generation.id))

    def __len__(self):
        return len(self._lru)
