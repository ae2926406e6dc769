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
"""Published documents decoded once, and what is derived from them.

The lists and the name index are decoded to filter them and to tell an
unknown flavor (404) from an unreadable one (503); a few values at a time,
so a plain dict, keyed by the entity tag of the decoded bytes, bounds them.
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

    def get(self, generation, name):
        """Document name as a JSON value; None if unknown."""
        held = self._documents.get(generation, name)
        if held is None:
            return None
        return self._memo((held.etag, None), lambda: json.loads(held.body))

    def derived(self, generation, name, purpose, compute):
        """compute(value of document name), memoised while it is unchanged.

        Raises generations.Unavailable when the generation has no such
        document: the indexes are what says whether a name exists.
        """
        held = self._documents.get(generation, name)
        if held is None:
            raise generations.Unavailable(
                'the published data has no %s document' % name)
        return self._memo((held.etag, purpose),
                          lambda: compute(self.get(generation, name)))

    def _memo(self, key, make):
        try:
            return self._values[key]
        except KeyError:
            pass
        value = make()
        with self._lock:
            if len(self._values) >= MAX_ENTRIES:
                self._values.clear()
            self._values[key] = value
        return value

    def keep_only(self, generation):
        """Forget what generation no longer has."""
        with self._lock:
            self._values = {}
