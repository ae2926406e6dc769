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
"""Reading what the worker published: the pointer, manifests, documents.

The pointer is written to every memcached server (a "replica", see
cache.py); the reader takes the copy with the highest sequence among the
servers that answer, so losing one server loses no answer. The pointer
names a manifest, the manifest names each document's stored parts, and
parts never change once written (their names come from their content, see
contract.py): a reader that resolved the pointer sees one generation
whole, never a mix of two.

Besides the documents, the reader reads the worker's status entry and
the project documents. It writes nothing: what API processes ask the
worker is in mailboxes.py.
"""

from flavor_exporter.common import clouds
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub

CacheError = cache.CacheError


class MissingData(CacheError):
    """A part the pointer leads to is not in the cache (evicted, lost)."""


def sequence(pointer):
    """The pointer's place in the line of generations (0: none)."""
    return pointer.get(pub.SEQUENCE, 0) if pointer else 0


def newest(pointers):
    """The pointer with the highest sequence (the first of equals)."""
    found = None
    for pointer in pointers:
        if pointer is not None and (found is None or
                                    sequence(pointer) > sequence(found)):
            found = pointer
    return found


class Reader:
    """The published generations of one cloud, as stored."""

    def __init__(self, backend, prefix):
        self._backend = backend
        self._prefix = prefix

    @classmethod
    def from_conf(cls, conf, cloud=None, backend=None):
        """The reader of cloud (the single or default one when None).

        backend: a cache backend to share with the other clouds'.
        """
        if cloud is None:
            cloud = clouds.default(conf)
        return cls(backend or cache.backend_from_conf(conf),
                   cloud.key_prefix)

    @property
    def backend(self):
        """The cache client, for other clouds' readers to share."""
        return self._backend

    def key(self, name):
        """The memcached key of cache entry name of this cloud."""
        return pub.key(self._prefix, name)

    def pointer_copies(self):
        """{replica: (pointer or None, cas token)} of the servers answering.

        Raises CacheError when none answers.
        """
        key = self.key(pub.POINTER_NAME)
        copies = {}
        error = None
        for replica in self._backend.replicas:
            try:
                raw, token = self._backend.gets_replica(replica, key)
            except CacheError as exc:
                error = exc
                continue
            copies[replica] = (pub.decode(raw), token)
        if not copies:
            raise error
        return copies

    def current(self):
        """The pointer of the published generation, or None if cold.

        Raises CacheError when no server answers.
        """
        return newest(pointer for pointer, _ in self.pointer_copies().values())

    def manifest(self, pointer):
        """{document name: Entry} of the generation pointer names.

        Raises MissingData when the manifest is not in the cache.
        """
        return pub.manifest_entries(pub.decode(self.read(
            pub.Entry(*pointer[pub.MANIFEST]), 'the manifest')))

    def read(self, entry, what='a document'):
        """The bytes of entry, as served.

        Raises MissingData when a part is not in the cache: an evicted or
        lost part, never an unknown document (the manifest knows those).
        """
        names = entry.part_names()
        found = self._backend.get_many([self.key(n) for n in names])
        try:
            return b''.join(found[self.key(n)] for n in names)
        except KeyError:
            raise MissingData(
                'the cache lost %s of the published data (memcached '
                'evicted it or restarted); the worker publishes it again '
                'at its next refresh' % what) from None

    def document(self, pointer, name):
        """Document name of a generation, or None if it has none."""
        entry = self.manifest(pointer).get(name)
        return None if entry is None else self.read(entry)

    def status(self):
        """The worker's status entry, or None."""
        return pub.decode(self._backend.get(self.key(pub.STATUS_NAME)))

    def demand(self):
        """The requests Nova placed nowhere, as the leader added them up."""
        return pub.decode(self._backend.get(self.key(pub.DEMAND_NAME)))

    def project_status(self):
        """How the leading worker answers projects, or None."""
        return pub.decode(self._backend.get(
            self.key(pub.PROJECT_STATUS_NAME)))

    def project(self, project_id):
        """(entry fields, quota part bytes or None) of a project, or None.

        The part is None when the entry names none (only a problem), or
        when memcached lost it: the worker writes it again when asked.
        """
        fields = pub.decode(self._backend.get(
            self.key(pub.project(project_id))))
        if fields is None:
            return None
        if pub.ENTRY not in fields:
            return fields, None
        try:
            return fields, self.read(pub.Entry(*fields[pub.ENTRY]),
                                     "a project's document")
        except MissingData:
            return fields, None

    def close(self):
        self._backend.close()
