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
request would cost a round trip each, so a thread of each API process
(started by its first request, after the server forked it) reads the
"current" pointer every ``[api] generation_check_interval`` seconds
(0.2 by default) and requests only read what it found. It reads the
manifest of each new generation (which documents it has, and their
parts), and keeps answering from the last generation it saw when the
cache fails or forgets the pointer (a memcached restart), or when the
pointer names a generation in a format this API does not read (a worker
of another release), saying the data is stale: a cache outage costs
freshness, not availability. Without a thread that runs (uWSGI without
enable-threads), or with the interval 0, requests read the pointer
themselves, at most once per interval, as they did before.

A process that serves a generation moves to the next one
generation_check_interval after it was published (pointer PUBLISHED_AT,
by the wall clock): by then every process has read the new pointer, so
they all move at the same moment, and a client whose requests go to
different processes never gets an older answer after a newer one. From
that moment on no request of a process that read the pointer gets the
older generation, even before its thread looks again. A process that
missed several generations is behind every other, and moves to the
newest at once.
"""

import collections
import os
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
        # (Generation or None, trouble or None, pending), replaced as a
        # whole so that readers never see half an update. pending:
        # (Generation, when to serve it) newer than the one served, read
        # but not served before its time, or None.
        self._state = (None, None, None)
        self._next_check = float('-inf')
        # The id of the generation some of whose parts are missing.
        self._lost = None
        # The thread that reads the pointer (watch_in_background): the
        # id of the process it runs in, so that a forked child starts
        # its own.
        self._background = False
        self._watching_pid = None
        self._start_lock = threading.Lock()
        self._stopped = threading.Event()
        #: Pointer reads, for the benchmarks and tests.
        self.checks = 0
        #: A callable: the id of the generation another process found
        #: parts of missing (its request to the worker), or None.
        self.lost_elsewhere = None

    def watch_in_background(self):
        """Read the pointer in a thread of its own, not in requests.

        The thread starts with the first view() of each process (a
        server forks its workers after loading the application). With
        an interval of 0 every request reads the pointer: no thread.
        """
        self._background = self._check_interval > 0

    def close(self):
        """Stop the thread (tests; the process's end stops it anyway)."""
        self._stopped.set()

    def lost(self, generation):
        """Parts of generation are missing: stale until the next one."""
        with self._check_lock:
            if self._lost != generation.id:
                LOG.warning('Parts of generation %s are missing from the '
                            'cache (a memcached server restarted, or '
                            'evicted them); the worker is asked to '
                            'publish them again', generation.id)
            self._lost = generation.id
            served, trouble, pending = self._state
            if pending is not None and pending[0] is generation:
                # Served since its moment came, before the thread looked.
                self._state = (generation, LOST_PARTS, None)
            elif served is generation and not trouble:
                self._state = (served, LOST_PARTS, pending)

    def view(self, force=False):
        """The View a request answers from; force reads the pointer now."""
        if self._background:
            self._watch()
        if force or self._state[:2] == (None, None):
            # Nothing published when last asked: ask at once, so that
            # the first data is served by every process as soon as by one.
            # Holding nothing, a request waits for the thread that asks
            # rather than answer 503 while the data may be on its way.
            self._check(force or self._state[0] is None)
        elif not self._background:
            if self._clock() >= self._next_check:
                self._check(False)
        elif self._clock() >= self._next_check + self._check_interval:
            # The thread is a whole interval late: it does not run (uWSGI
            # without enable-threads) or the cache is slow. One request
            # looks (the others do not wait for it).
            self._check(False)
        generation, trouble, pending = self._state
        if pending is not None and self._wall_clock() >= pending[1]:
            # Its moment came before the thread looked again: every
            # other process serves it now, and so does this one.
            generation = pending[0]
        if generation is None:
            return View(None, True, None, trouble)
        age = None
        if generation.timestamp is not None:
            age = max(0.0, self._wall_clock() - generation.timestamp)
        stale = bool(trouble) or age is None or age > self._stale_after
        return View(generation, stale, age, trouble)

    def _watch(self):
        pid = os.getpid()
        if self._watching_pid == pid:
            return
        with self._start_lock:
            if self._watching_pid == pid:
                return
            self._start_thread()
            self._watching_pid = pid

    def _start_thread(self):
        threading.Thread(target=self._poll, daemon=True,
                         name='generation-watcher').start()

    def _poll(self):
        """The thread: the pointer read every interval, or when due."""
        while not self._stopped.wait(
                max(0.0, self._next_check - self._clock())):
            try:
                # Blocking: a request may be reading (the first one);
                # then this reads again after it, once.
                self._check(True)
            except Exception:
                # _resolve catches the cache's errors; anything else must
                # not end the thread (requests would read in its place).
                LOG.exception('Reading the published generation failed')
                self._next_check = self._clock() + self._check_interval

    def _check(self, force):
        # One thread asks the cache; the others answer from what is known
        # instead of queueing behind a slow cache.
        if not self._check_lock.acquire(blocking=force):
            return
        try:
            self._next_check = self._clock() + self._check_interval
            self.checks += 1
            self._state = self._resolve(*self._state)
        finally:
            self._check_lock.release()

    def _resolve(self, generation, trouble, pending):
        try:
            newest = self._newest(generation, pending)
        except reader_mod.MissingData:
            newest = None  # the pointer is there, its manifest is not
        except reader_mod.CacheError as exc:
            if not trouble or not trouble.startswith(UNREACHABLE):
                LOG.warning('Cache unreachable (%s); serving the last '
                            'data this process has, marked stale', exc)
            return generation, '%s: %s' % (UNREACHABLE, exc), pending
        except UnreadableFormat as exc:
            if trouble != str(exc):
                LOG.warning('%s; serving what this process has, marked '
                            'stale', exc)
            return generation, str(exc), pending
        if newest is None:
            if generation is None:
                return None, None, None
            if trouble != _LOST:
                LOG.warning('The cache lost the published data; serving '
                            'generation %s, marked stale, until the '
                            'worker publishes again', generation.id)
            return generation, _LOST, pending
        if newest.id != self._lost and self._lost_in_another(newest):
            self._lost = newest.id
        if newest.id == self._lost:
            return newest, LOST_PARTS, None
        if trouble:
            LOG.info('Cache readable again')
        if newest is not generation:
            serve_at = self._serve_at(newest, pending)
            wait = serve_at - self._wall_clock()
            if _succeeds(newest, generation) and wait > 0:
                # Look again when it is due, not a whole interval later.
                self._next_check = min(self._next_check,
                                       self._clock() + wait)
                return generation, None, (newest, serve_at)
            LOG.debug('Now serving generation %s', newest.id)
        return newest, None, None

    def _lost_in_another(self, generation):
        """Whether another API process found parts of generation missing.

        Each process learns of a lost part when a request of its own
        misses it; without this, a process that has not missed one yet
        would call the data healthy while the others answer 503.
        """
        if self.lost_elsewhere is None:
            return False
        try:
            found = self.lost_elsewhere() == generation.id
        except reader_mod.CacheError:
            return False  # the pointer was just read: a blip
        if found:
            LOG.warning('Parts of generation %s are missing from the cache '
                        '(found by another API process); serving it marked '
                        'stale until the worker publishes again',
                        generation.id)
        return found

    def _serve_at(self, generation, pending):
        """When (wall clock) every process serves generation (see above).

        At most one interval after this process first read it: a clock
        behind the worker's must not hold new data back for longer.
        """
        if pending is not None and pending[0] is generation:
            return pending[1]
        published_at = generation.pointer[pub.PUBLISHED_AT]
        return min(published_at, self._wall_clock()) + self._check_interval

    def _newest(self, generation, pending):
        """The Generation the pointer names; None when there is none."""
        pointer = self._reader.current()
        if pointer is None:
            return None
        for known in (generation, pending and pending[0]):
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
