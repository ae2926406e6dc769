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
"""The two things API processes ask the leading worker, through the cache.

API processes never read the cloud and never compute; when they need the
worker to act sooner than its next refresh, they leave a request in a
cache entry that whichever worker leads reads at its next look (state
lives in the cache, not in a process):

- RefreshRequests: publish now, because the cache is cold ([api]
  compute_on_miss) or lost parts of the current generation;
- ProjectRequests: compute these projects' documents.

Everything else API processes do with the cache is reading
(reader.py).
"""

from flavor_exporter.publication import contract as pub


class RefreshRequests:
    """One cloud's request for a refresh now (contract.REFRESH_REQUEST_NAME).

    key: the cloud's reader.key, which makes memcached keys of names.
    """

    def __init__(self, backend, key):
        self._backend = backend
        self._key = key(pub.REFRESH_REQUEST_NAME)

    def ask(self, generation_id, ttl):
        """Ask the leading worker to publish now; forgotten after ttl s.

        generation_id: the generation some of whose parts are missing, or
        None when there is none at all (a cold cache).
        """
        self._backend.set_many(
            {self._key: pub.encode({pub.GENERATION: generation_id})}, ttl)

    def pending(self):
        """The request since the last answer, or None.

        {contract.GENERATION: the generation found with parts missing, or
        None when no data was found}.
        """
        return pub.decode(self._backend.get(self._key))

    def clear(self):
        self._backend.delete(self._key)


class ProjectRequests:
    """The projects API processes wait for (contract.PROJECT_REQUESTS_NAME)."""

    def __init__(self, backend, key):
        self._backend = backend
        self._key = key(pub.PROJECT_REQUESTS_NAME)

    def ask(self, project_id, now, ttl):
        """Ask the leading worker for project_id's document.

        Requests of several API processes share one entry: one written
        between this read and write is lost, and asked for again by its
        process's next poll (api/resources/projects.py).
        """
        asked = pub.decode(self._backend.get(self._key)) or {}
        if project_id in asked:
            return
        asked[project_id] = now
        self._backend.set_many({self._key: pub.encode(asked)}, ttl)

    def pending(self):
        """{project id: when asked} of the projects waited for."""
        return pub.decode(self._backend.get(self._key)) or {}

    def clear(self, answered, ttl):
        """Forget the requests of the projects answered (ids)."""
        asked = self.pending()
        left = {pid: at for pid, at in asked.items() if pid not in answered}
        if left:
            self._backend.set_many({self._key: pub.encode(left)}, ttl)
        else:
            self._backend.delete(self._key)
