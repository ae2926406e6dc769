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
"""Which published generation an API process serves, and how fresh it is.

Every request needs the current generation. Asking the cache on every
request would cost a round trip for data that changes every few minutes,
so the GenerationWatcher resolves the "current" pointer at most once per
``[api] generation_check_interval`` seconds, reads the manifest of each
new generation (which documents it has, and their parts), and keeps
answering from the last generation it saw when the cache fails or forgets
the pointer (a memcached restart), or when the pointer names a generation
in a format this API does not read (a worker of another release), saying
the data is stale: a cache outage costs freshness, not availability.

A process that serves a generation moves to the next one only
generation_check_interval after it was published (pointer PUBLISHED_AT,
by the wall clock): by then every process that gets a request has read
the new pointer, so they all move at the same moment, and a client whose
requests go to different processes never gets an older answer after a
newer one. A process that missed several generations (it had no
requests) is behind every other, and moves to the newest at once.
"""

import collections
import threading
import time
import wsgiref.handlers

from oslo_log import log

from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import reader as reader_mod

LOG = log.getLogger(__name__)

# View.trouble starts with this when the cache could not be read at all.
UNREACHABLE = 'cache unreachable'
_LOST = 'the cache no longer holds the published data'
LOST_PARTS = ('the cache lost parts of the published data; the worker is '
              'asked to publish them again')


class Generation:
    """One published generation: its pointer and its manifest.

    documents: {document name: published.Entry}; timestamp: when its
    refresh read the cloud (seconds since the epoch, or None).
    """

    __slots__ = ('id', 'pointer', 'documents', 'timestamp',
                 'last_modified', 'host_index_tags')

    def __init__(self, pointer, documents):
        self.id = pointer[pub.GENERATION]
        self.pointer = pointer
        self.documents = documents
        # What every flavor's per-host rows are also made of.
        self.host_index_tags = tuple(
            entry.etag for name, entry in sorted(documents.items())
            if pub.is_hosts_page(name))
        self.timestamp = pub.epoch(pointer.get(pub.TIMESTAMP))
        self.last_modified = (
            wsgiref.handlers.format_date_time(self.timestamp)
            if self.timestamp is not None else None)


class View(collections.namedtuple('View', 'generation stale age trouble')):
    """What one request answers from.

    generation: the Generation, None when this process has none (nothing
    published yet, or trouble says why not); stale: whether to say the
    data is stale; age: seconds since the data was collected (None if
    unknown); trouble: why the cache could not be trusted just now, or
    None.
    """


def _succeeds(newest, generation):
    """Whether newest is the generation published right after generation.

    Only then may other processes still serve generation: a process that
    missed several is behind them all, and catches up at once.
    """
    return generation is not None and (
        newest.pointer.get(pub.SEQUENCE) ==
        generation.pointer.get(pub.SEQUENCE, -1) + 1)


class GenerationWatcher:
    """The current generation of a store, for one API process."""

    def __init__(self, reader, check_interval, stale_after,
                 clock=time.monotonic, wall_clock=time.time):
        """reader: the publication.reader.Reader of one cloud."""
        self._reader = reader
        self._check_interval = check_interval
        self._stale_after = stale_after
        self._clock = clock
        self._wall_clock = wall_clock
        self._check_lock = threading.Lock()
        # (Generation or None, trouble or None), replaced as a whole so
        # that readers never see half an update.
        self._state = (None, None)
        self._next_check = float('-inf')
        # (Generation, when to serve it): newer than the one served, read
        # but not served before its time.
        self._pending = None
        # The id of the generation some of whose parts are missing.
        self._lost = None

    def lost(self, generation):
        """Parts of generation are missing: stale until the next one."""
        with self._check_lock:
            if self._lost != generation.id:
                LOG.warning('Parts of generation %s are missing from the '
                            'cache (a memcached server restarted, or '
                            'evicted them); the worker is asked to '
                            'publish them again', generation.id)
            self._lost = generation.id
            served, trouble = self._state
            if served is generation and not trouble:
                self._state = (served, LOST_PARTS)

    def view(self, force=False):
        """The View a request answers from; force reads the pointer now."""
        if force or self._clock() >= self._next_check or \
                self._state == (None, None):
            # Nothing published when last asked: ask at once, so that
            # the first data is served by every process as soon as by one.
            # Holding nothing, a request waits for the thread that asks
            # rather than answer 503 while the data may be on its way.
            self._check(force or self._state[0] is None)
        generation, trouble = self._state
        if generation is None:
            return View(None, True, None, trouble)
        age = None
        if generation.timestamp is not None:
            age = max(0.0, self._wall_clock() - generation.timestamp)
        stale = bool(trouble) or age is None or age > self._stale_after
        return View(generation, stale, age, trouble)

    def _check(self, force):
        # One thread asks the cache; the others answer from what is known
        # instead of queueing behind a slow cache.
        if not self._check_lock.acquire(blocking=force):
            return
        try:
            self._next_check = self._clock() + self._check_interval
            self._state = self._resolve(*self._state)
        finally:
            self._check_lock.release()

    def _resolve(self, generation, trouble):
        try:
            newest = self._newest(generation)
        except reader_mod.MissingData:
            newest = None  # the pointer is there, its manifest is not
        except reader_mod.CacheError as exc:
            if not trouble or not trouble.startswith(UNREACHABLE):
                LOG.warning('Cache unreachable (%s); serving the last '
                            'data this process has, marked stale', exc)
            return generation, '%s: %s' % (UNREACHABLE, exc)
        except UnreadableFormat as exc:
            if trouble != str(exc):
                LOG.warning('%s; serving what this process has, marked '
                            'stale', exc)
            return generation, str(exc)
        if newest is None:
            if generation is None:
                return None, None
            if trouble != _LOST:
                LOG.warning('The cache lost the published data; serving '
                            'generation %s, marked stale, until the '
                            'worker publishes again', generation.id)
            return generation, _LOST
        if newest.id == self._lost:
            return newest, LOST_PARTS
        if trouble:
            LOG.info('Cache readable again')
        if newest is not generation:
            wait = self._serve_at(newest) - self._wall_clock()
            if _succeeds(newest, generation) and wait > 0:
                # Look again when it is due, not a whole interval later.
                self._next_check = min(self._next_check,
                                       self._clock() + wait)
                return generation, None
            self._pending = None
            LOG.debug('Now serving generation %s', newest.id)
        return newest, None

    def _serve_at(self, generation):
        """When (wall clock) every process serves generation (see above).

        At most one interval after this process first read it: a clock
        behind the worker's must not hold new data back for longer.
        """
        if self._pending is not None and self._pending[0] is generation:
            return self._pending[1]
        published_at = generation.pointer[pub.PUBLISHED_AT]
        serve_at = min(published_at, self._wall_clock()) + \
            self._check_interval
        self._pending = (generation, serve_at)
        return serve_at

    def _newest(self, generation):
        """The Generation the pointer names; None when there is none."""
        pointer = self._reader.current()
        if pointer is None:
            return None
        pending = self._pending[0] if self._pending else None
        for known in (generation, pending):
            if known is not None and \
                    pointer.get(pub.GENERATION) == known.id:
                return known
        if pointer.get(pub.FORMAT) != pub.FORMAT_VERSION:
            raise UnreadableFormat(pointer.get(pub.FORMAT))
        return Generation(pointer, self._reader.manifest(pointer))


class UnreadableFormat(Exception):
    """The pointer names a generation this API cannot read."""

    def __init__(self, found):
        super().__init__(
            'the published data is in format %s, this API reads format %d: '
            'run the workers and the API of the same release'
            % (found or 1, pub.FORMAT_VERSION))
