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
"""Answers made from a published document: filtered lists, stale copies.

Each variant is built once per version of its document and then served as
bytes, like a published document; the entry count bounds how many
distinct ``?name=`` values a client can make one process keep.
"""

import zlib

from flavor_exporter.api import documents
from flavor_exporter.api import lru
from flavor_exporter.common import published as pub

MAX_BYTES = 32 * 1024 * 1024
MAX_ENTRIES = 1024


class Variants:
    """Memoised variants of published documents; thread-safe."""

    def __init__(self, document_cache, max_bytes=MAX_BYTES,
                 max_entries=MAX_ENTRIES):
        self._documents = document_cache
        self._lru = lru.BytesLRU(max_bytes, max_entries)

    def get(self, generation, name, variant, make):
        """The Representation of one variant of document name.

        variant identifies it (it keys the memo and the entity tag);
        make() builds its JSON value, or None when there is nothing to
        serve. None is returned when the document or its variant is
        absent.
        """
        base = self._documents.get(generation, name)
        if base is None:
            return None
        key = (base.etag, variant)
        held = self._lru.get(key)
        if held is not None:
            return held
        value = make()
        if value is None:
            return None
        body = pub.encode(value)
        tag = zlib.crc32(repr(variant).encode('utf-8'))
        held = documents.Representation(
            body, '%s-%08x"' % (base.etag[:-1], tag), base.last_modified)
        self._lru.put(key, held, len(body) + documents.ENTRY_OVERHEAD)
        return held

    def keep_only(self, generation):
        """Forget variants of documents generation no longer has."""
        current = {e.etag for e in generation.documents.values()}
        self._lru.keep_only(lambda key: key[0] in current)

    def __len__(self):
        return len(self._lru)
