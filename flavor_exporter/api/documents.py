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
"""The API's reader of published documents: process memory first.

Every request needs the current generation and one document of it. Asking
the cache for both on every request would cost two round trips for data
that changes every few minutes, so each API process:

- resolves the "current" pointer at most once per
  ``[api] generation_check_interval`` seconds;
- keeps documents in a small LRU keyed by generation: a generation is
  immutable once its pointer is published (see
  flavor_exporter.common.store), so entries are never invalidated, only
  evicted, and a steady state makes no cache round trip at all;
- memoises variants (filtered lists, "stale": true re-renders) the same
  way, so each is computed once per generation;
- keeps answering from the last generation it saw when the cache fails or
  forgets the pointer (a memcached restart), and says the data is stale:
  a cache outage costs freshness, not availability.
"""

import calendar
import collections
import json
import threading
import time
import wsgiref.handlers
import zlib

from oslo_log import log

from flavor_exporter.common import store as store_mod

LOG = log.getLogger(__name__)

# Per process. A 500-flavor cloud's lists are ~0.1-0.5 MB each; per-flavor
# documents with their host breakdown are the bulk. Past the budget the
# least recently used documents are fetched again from the cache.
MAX_BYTES = 64 * 1024 * 1024
# Filtered lists are variants too; the entry count bounds how many
# distinct ?name= values a client can make this process keep.
MAX_ENTRIES = 4096


# View.trouble starts with this when the cache could not be read at all.
UNREACHABLE = 'cache unreachable'


class NoData(Exception):
    """Nothing has been published yet: the cache is cold."""


class Unavailable(Exception):
    """The cache failed and this process holds no copy of the answer."""


def _epoch(iso_timestamp):
    try:
        return calendar.timegm(
            time.strptime(iso_timestamp, '%Y-%m-%dT%H:%M:%SZ'))
    except (TypeError, ValueError):
        return None


def encode(value):
    """Compact JSON bytes, as the worker renders them."""
    return json.dumps(value, separators=(',', ':'),
                      ensure_ascii=False).encode('utf-8')


class Generation:
    """One published generation, as its pointer describes it."""

    __slots__ = ('id', 'pointer', 'timestamp', 'last_modified')

    def __init__(self, pointer):
        self.id = pointer['generation']
        self.pointer = pointer
        self.timestamp = _epoch(pointer.get('timestamp'))
        self.last_modified = (
            wsgiref.handlers.format_date_time(self.timestamp)
            if self.timestamp is not None else None)


class View(collections.namedtuple('View', 'generation stale age trouble')):
    """What one request answers from.

    generation: the Generation; stale: whether to say the data is stale;
    age: seconds since the data was collected (None if unknown); trouble:
    why the cache could not be trusted just now, or None.
    """


class Rendered(collections.namedtuple('Rendered', 'body etag')):
    """The bytes of an answer and their strong entity tag."""


class _LRU:
    """Bytes-bounded LRU; callers hold the reader's lock."""

    def __init__(self, max_bytes, max_entries):
        self._items = collections.OrderedDict()
        self._bytes = 0
        self._max_bytes = max_bytes
        self._max_entries = max_entries

    def get(self, key):
        item = self._items.get(key)
        if item is not None:
            self._items.move_to_end(key)
        return item

    def put(self, key, item, size):
        old = self._items.pop(key, None)
        if old is not None:
            self._bytes -= old[1]
        self._items[key] = (item, size)
        self._bytes += size
        while self._items and (self._bytes > self._max_bytes or
                               len(self._items) > self._max_entries):
            _, (_, dropped) = self._items.popitem(last=False)
            self._bytes -= dropped

    def keep_only(self, generation_id):
        for key in [k for k in self._items if k[0] != generation_id]:
            self._bytes -= self._items.pop(key)[1]

    def __len__(self):
        return len(self._items)


_MISSING = Rendered(None, None)


class DocumentReader:
    """Answers document reads for one API process; thread-safe."""

    def __init__(self, store, check_interval, stale_after, on_cold=None,
                 max_bytes=MAX_BYTES, max_entries=MAX_ENTRIES,
                 clock=time.monotonic, wall_clock=time.time):
        """Reader of store; on_cold fills a cold cache (True if it did)."""
        self._store = store
        self._on_cold = on_cold
        self._check_interval = check_interval
        self._stale_after = stale_after
        self._clock = clock
        self._wall_clock = wall_clock
        self._lock = threading.Lock()
        self._check_lock = threading.Lock()
        self._lru = _LRU(max_bytes, max_entries)
        self._decoded = {}
        # (Generation or None, trouble or None), replaced as a whole so
        # that readers never see half an update.
        self._state = (None, None)
        self._next_check = float('-inf')
        self._status = None
        self._next_status = float('-inf')

    @property
    def store(self):
        return self._store

    # The current generation

    def view(self, force=False, fill=True):
        """The View a request answers from.

        Raises NoData when nothing was ever published, Unavailable when
        the cache fails before this process saw any generation. With fill,
        a cold cache is first handed to on_cold.
        """
        try:
            return self._view(force)
        except NoData:
            if not fill or self._on_cold is None or not self._on_cold():
                raise
        return self._view(True)

    def _view(self, force):
        if force or self._clock() >= self._next_check:
            self._check(force)
        generation, trouble = self._state
        if generation is None:
            if trouble:
                raise Unavailable(trouble)
            raise NoData()
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
            pointer = self._store.current()
        except store_mod.CacheError as exc:
            if not trouble or not trouble.startswith(UNREACHABLE):
                LOG.warning('Cache unreachable (%s); serving the last '
                            'data this process has, marked stale', exc)
            return generation, '%s: %s' % (UNREACHABLE, exc)
        if pointer is None:
            if generation is None:
                return None, None
            if trouble != _LOST:
                LOG.warning('The cache lost the published data; serving '
                            'generation %s, marked stale, until the '
                            'worker publishes again', generation.id)
            return generation, _LOST
        if trouble:
            LOG.info('Cache readable again')
        if generation is None or pointer.get('generation') != generation.id:
            generation = Generation(pointer)
            with self._lock:
                self._lru.keep_only(generation.id)
                self._decoded = {}
            LOG.debug('Now serving generation %s', generation.id)
        return generation, None

    # Documents of a generation

    def raw(self, view, name):
        """The published bytes of document name, or None if absent.

        Raises Unavailable when the cache fails and the bytes are not
        held here.
        """
        rendered = self._lookup(view.generation.id, name, None, None)
        return rendered.body

    def render(self, view, name, variant=None, build=None):
        """A Rendered answer for document name, or None if absent.

        Without variant, the published bytes. With one, build(decoded
        document) makes the variant's JSON value; variant must identify
        it (it keys the memo and the entity tag).
        """
        rendered = self._lookup(view.generation.id, name, variant, build)
        return rendered if rendered.body is not None else None

    def decoded(self, view, name):
        """Document name as a JSON value, memoised; None if absent.

        The value is shared: callers must not modify it.
        """
        return self._decode(view.generation.id, name)

    def _decode(self, generation_id, name):
        key = (generation_id, name)
        value = self._decoded.get(key)
        if value is None:
            raw = self._lookup(generation_id, name, None, None).body
            if raw is None:
                return None
            value = json.loads(raw)
            with self._lock:
                # Only the lists, the name index and what is derived from
                # them: a few entries per generation.
                if len(self._decoded) >= 32:
                    self._decoded.clear()
                self._decoded[key] = value
        return value

    def _lookup(self, generation_id, name, variant, build):
        key = (generation_id, name, variant)
        with self._lock:
            item = self._lru.get(key)
        if item is not None:
            return item[0]
        if variant is None:
            try:
                body = self._store.document(generation_id, name)
            except store_mod.CacheError as exc:
                raise Unavailable('%s: %s' % (UNREACHABLE, exc)) from exc
        else:
            value = self._decode(generation_id, name)
            body = None if value is None else encode(build(value))
        if body is None:
            # Not remembered: pymemcache's HashClient answers a miss, not
            # an error, while it waits to retry a failed server, so a
            # missing document may be a cache failure. Callers check names
            # against the generation's indexes (see derived()) instead.
            return _MISSING
        tag = zlib.crc32(repr((name, variant)).encode('utf-8'))
        rendered = Rendered(body, '"%s-%08x"' % (generation_id, tag))
        with self._lock:
            self._lru.put(key, rendered, len(body) + 200)
        return rendered

    def derived(self, view, key, compute):
        """compute(decoded) of a document, memoised per generation.

        key is (document name, purpose). For the indexes that tell an
        unknown flavor (404) from an unreadable one (503). Raises
        Unavailable when the document cannot be read.
        """
        memo_key = (view.generation.id, key)
        try:
            return self._decoded[memo_key]
        except KeyError:
            pass
        document = self._decode(view.generation.id, key[0])
        if document is None:
            raise Unavailable('%s of generation %s is missing from the '
                              'cache' % (key[0], view.generation.id))
        value = compute(document)
        with self._lock:
            self._decoded[memo_key] = value
        return value

    # The worker's status entry

    def status(self):
        """The worker's status entry (last known when the cache fails)."""
        if self._clock() >= self._next_status:
            self._next_status = self._clock() + self._check_interval
            try:
                self._status = self._store.status()
            except store_mod.CacheError as exc:
                LOG.debug('Status unreadable: %s', exc)
        return self._status


_LOST = 'the cache no longer holds the published data'
