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
"""Published documents decoded once per generation, and what is derived.

The lists and the name index are decoded to filter them and to tell an
unknown flavor (404) from an unreadable one (503); a few values per
generation, so a plain dict emptied on each new generation bounds them.
"""

import json
import threading

from flavor_exporter.api import generations

# Decoded documents and derived values held at once, per process.
MAX_ENTRIES = 32


class ParsedDocuments:
    """JSON values of the documents of a DocumentCache; thread-safe.

    Values are shared between requests: callers must not modify them.
    """

    def __init__(self, documents):
        self._documents = documents
        self._values = {}
        self._lock = threading.Lock()

    def get(self, generation_id, name):
        """Document name as a JSON value; None if absent."""
        key = (generation_id, name, None)
        try:
            return self._values[key]
        except KeyError:
            pass
        held = self._documents.get(generation_id, name)
        if held is None:
            return None
        value = json.loads(held.body)
        self._remember(key, value)
        return value

    def derived(self, generation_id, name, purpose, compute):
        """compute(value of document name), memoised per generation.

        Raises generations.Unavailable when the document cannot be read:
        the indexes are what says whether a name exists at all.
        """
        key = (generation_id, name, purpose)
        try:
            return self._values[key]
        except KeyError:
            pass
        value = self.get(generation_id, name)
        if value is None:
            raise generations.Unavailable(
                '%s of generation %s is missing from the cache'
                % (name, generation_id))
        derived = compute(value)
        self._remember(key, derived)
        return derived

    def _remember(self, key, value):
        with self._lock:
            if len(self._values) >= MAX_ENTRIES:
                self._values.clear()
            self._values[key] = value

    def keep_only(self, generation_id):
        with self._lock:
            self._values = {k: v for k, v in self._values.items()
                            if k[0] == generation_id}
