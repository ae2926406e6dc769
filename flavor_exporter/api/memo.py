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
"""What an API process keeps of the published data, by entity tag.

Stored parts never change once written (their names come from their
content, see publication/contract.py), so whatever is made from them - a
document's bytes, its decoded value, a filtered or stale-marked variant -
is made once and never invalidated: keyed by what it was made from, it is
only evicted, least recently used first, when the process holds more
than its budget. In a steady state a request makes no cache round trip
and encodes nothing.
"""

import collections
import threading

# Per process, every cloud together. A 1,000-flavor cloud's lists are
# ~0.1-0.5 MB each; per-flavor documents with their host rows are the
# bulk. Past the budget the least recently used is made again.
MAX_BYTES = 96 * 1024 * 1024
MAX_ENTRIES = 8192
# What an entry costs besides its own size, roughly.
ENTRY_OVERHEAD = 200


class Memo:
    """A bounded least-recently-used map; thread-safe."""

    def __init__(self, max_bytes=MAX_BYTES, max_entries=MAX_ENTRIES):
        self._items = collections.OrderedDict()
        self._bytes = 0
        self._max_bytes = max_bytes
        self._max_entries = max_entries
        self._lock = threading.Lock()

    def get(self, key, make, size):
        """The value of key, made by make() when not held.

        size(value) is what it costs in bytes. make() runs outside the
        lock: two threads may both make a value, never block each other
        on a slow cache. What make() raises is raised, and nothing kept.
        """
        with self._lock:
            held = self._items.get(key)
            if held is not None:
                self._items.move_to_end(key)
                return held[0]
        value = make()
        cost = size(value) + ENTRY_OVERHEAD
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._items[key] = (value, cost)
            self._bytes += cost
            while len(self._items) > 1 and (
                    self._bytes > self._max_bytes or
                    len(self._items) > self._max_entries):
                _, (_, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped
        return value

    def __len__(self):
        return len(self._items)
