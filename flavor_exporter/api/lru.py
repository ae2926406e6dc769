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
"""A least-recently-used map of bytes, bounded in size and in entries."""

import collections
import threading


class BytesLRU:
    """Thread-safe; values are (value, size in bytes) pairs."""

    def __init__(self, max_bytes, max_entries):
        self._items = collections.OrderedDict()
        self._bytes = 0
        self._max_bytes = max_bytes
        self._max_entries = max_entries
        self._lock = threading.Lock()

    def get(self, key):
        """The value of key, or None."""
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def put(self, key, value, size):
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._items[key] = (value, size)
            self._bytes += size
            while self._items and (self._bytes > self._max_bytes or
                                   len(self._items) > self._max_entries):
                _, (_, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped

    def keep_only(self, keep):
        """Drop every entry whose key keep(key) refuses."""
        with self._lock:
            for key in [k for k in self._items if not keep(k)]:
                self._bytes -= self._items.pop(key)[1]

    def __len__(self):
        return len(self._items)
