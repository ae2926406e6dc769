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
"""Cache backends: memcached for deployments, process memory for one process.

Both store bytes only (never pickles) and raise CacheError on failure, so
callers decide what a cache outage means for them.

Besides the hashed keys, both offer "replicas": the small entries that
must survive the loss of one memcached server (the pointer to the
published generation) are written to every server, each copy by
compare-and-set (gets/cas, or add when absent), so that two publishers
cannot overwrite each other unnoticed. memcached has no transaction over
several servers: the store decides what the copies mean.
"""

import threading
import time

from pymemcache.client import base as memcache_base
from pymemcache.client import hash as memcache_hash
from pymemcache import exceptions as memcache_exc

from flavor_exporter.common import exceptions


#: The cache could not be read or written (defined with the exceptions
#: common/ names).
CacheError = exceptions.CacheError


def _server_address(server):
    host, sep, port = server.strip().rpartition(':')
    if not sep or not port.isdigit():
        raise ValueError('memcached server %r is not host:port' % server)
    return host.strip('[]'), int(port)


_ERRORS = (memcache_exc.MemcacheError, OSError)


class MemcachedBackend:
    """memcached through pymemcache's pooled, thread-safe HashClient.

    The replica operations talk to each server through a client of its
    own; a server that failed is skipped for dead_retry seconds, so that a
    dead server costs a reader at most one socket_timeout per dead_retry.
    """

    def __init__(self, servers, socket_timeout=1.0, pool_maxsize=16,
                 dead_retry=5, clock=time.monotonic):
        addresses = [_server_address(s) for s in servers]
        self._client = memcache_hash.HashClient(
            addresses,
            use_pooling=True,
            max_pool_size=pool_maxsize,
            connect_timeout=socket_timeout,
            timeout=socket_timeout,
            retry_attempts=1,
            dead_timeout=dead_retry,
            ignore_exc=False,
            default_noreply=False)
        self.replicas = ['%s:%d' % address for address in addresses]
        self._replicas = {
            name: memcache_base.PooledClient(
                address, connect_timeout=socket_timeout,
                timeout=socket_timeout, max_pool_size=pool_maxsize,
                default_noreply=False)
            for name, address in zip(self.replicas, addresses)}
        self._dead_retry = dead_retry
        self._dead_until = {}
        self._clock = clock

    def get(self, key):
        try:
            return self._client.get(key)
        except (memcache_exc.MemcacheError, OSError) as exc:
            # Not the key: the message may reach an HTTP response.
            raise CacheError('memcached get: %s' % exc) from exc

    def get_many(self, keys):
        """{key: value} of the keys the cache holds."""
        try:
            return self._client.get_many(keys)
        except (memcache_exc.MemcacheError, OSError) as exc:
            raise CacheError('memcached get of %d keys: %s'
                             % (len(keys), exc)) from exc

    def delete_many(self, keys):
        try:
            self._client.delete_many(keys, noreply=True)
        except (memcache_exc.MemcacheError, OSError) as exc:
            raise CacheError('memcached delete: %s' % exc) from exc

    def set_many(self, values, ttl):
        try:
            try:
                failed = self._client.set_many(values, expire=ttl,
                                               noreply=False)
            except memcache_exc.MemcacheUnexpectedCloseError:
                # A server restarted since the last write: once more.
                failed = self._client.set_many(values, expire=ttl,
                                               noreply=False)
        except (memcache_exc.MemcacheError, OSError) as exc:
            raise CacheError('memcached set: %s' % exc) from exc
        if failed:
            # pymemcache reports a server it marked down by failing its
            # keys, without an exception. Items are never over
            # published.PART_BYTES, half memcached's default -I: a refused
            # item means a memcached that does not answer.
            raise CacheError('memcached did not store %d of %d items '
                             '(its server does not answer)'
                             % (len(failed), len(values)))

    def add(self, key, value, ttl):
        """Store value only if key is absent; True when stored."""
        try:
            return bool(self._client.add(key, value, expire=ttl,
                                         noreply=False))
        except _ERRORS as exc:
            raise CacheError('memcached add: %s' % exc) from exc

    def delete(self, key):
        try:
            self._client.delete(key, noreply=False)
        except _ERRORS as exc:
            raise CacheError('memcached delete: %s' % exc) from exc

    def incr(self, key, ttl, delta=1):
        """Add delta to the counter key (0 when absent): its new value.

        Atomic on the server, whoever else counts at the same time.
        """
        try:
            value = self._client.incr(key, delta, noreply=False)
            if value is None:
                # Absent: one process creates it; a lost race just adds.
                self._client.add(key, b'0', expire=ttl, noreply=False)
                value = self._client.incr(key, delta, noreply=False)
        except _ERRORS as exc:
            raise CacheError('memcached incr: %s' % exc) from exc
        if value is None:
            raise CacheError('memcached incr: the counter vanished')
        return int(value)

    def _replica(self, replica, operation, key, *args, **kwargs):
        until, why = self._dead_until.get(replica, (0, None))
        if self._clock() < until:
            # HashClient may have put it back in its ring already.
            self._drop_from_ring(replica)
            raise CacheError('memcached %s is marked dead for up to %ds '
                             '(it answered: %s)'
                             % (replica, self._dead_retry, why))
        call = getattr(self._replicas[replica], operation)
        try:
            try:
                result = call(key, *args, **kwargs)
            except memcache_exc.MemcacheUnexpectedCloseError:
                # A pooled connection to a server that restarted: the
                # pool dropped it, a new one finds the server.
                result = call(key, *args, **kwargs)
        except _ERRORS as exc:
            self._mark_dead(replica, exc)
            # No key names: the message reaches API clients.
            raise CacheError('memcached %s %s: %s'
                             % (replica, operation, exc)) from exc
        self._dead_until.pop(replica, None)
        return result

    def _mark_dead(self, replica, why):
        self._dead_until[replica] = (self._clock() + self._dead_retry, why)
        self._drop_from_ring(replica)

    def _drop_from_ring(self, replica):
        # The hashed keys go to the other servers from now on, until
        # dead_retry brings it back, instead of failing the next reads
        # too. HashClient only offers this through its failure records.
        address = self._replicas[replica].server
        ring = self._client
        if address in ring._dead_clients:
            # Out already: not back before dead_retry from now.
            ring._dead_clients[address] = time.time()
        else:
            ring._failed_clients.setdefault(
                address, {'failed_time': time.time(), 'attempts': 0})
            ring.remove_server(address)

    def ring(self):
        """The servers the hashed keys go to now: those not marked dead.

        Two processes whose rings differ put a key on different servers:
        a publisher whose ring changed since it wrote has parts where
        readers no longer look (a server lost, or back after dead_retry),
        and writes them again.
        """
        ring = self._client
        if ring._dead_clients:
            # What HashClient does before each command: bring back the
            # servers whose dead_retry is over.
            ring._retry_dead()
        return frozenset(
            replica for replica, client in self._replicas.items()
            if client.server not in ring._dead_clients)

    def gets_replica(self, replica, key):
        """(value, token) of key on one server; (None, None) if absent."""
        return self._replica(replica, 'gets', key)

    def cas_replica(self, replica, key, value, token, ttl):
        """Store value on one server if key still has token.

        token None: store only if key is absent. True when stored.
        """
        if token is None:
            return bool(self._replica(replica, 'add', key, value,
                                      expire=ttl, noreply=False))
        return bool(self._replica(replica, 'cas', key, value, token,
                                  expire=ttl, noreply=False))

    def close(self):
        for client in [self._client, *self._replicas.values()]:
            try:
                client.quit()
            except _ERRORS:
                pass  # a dead server: nothing to close


class MemoryBackend:
    """A dict with expiry, for flavor-exporter-all and tests."""

    replicas = ['memory']

    def ring(self):
        return frozenset(self.replicas)

    def __init__(self):
        self._items = {}
        self._lock = threading.Lock()
        # Compare-and-set tokens: a counter bumped by every write.
        self._writes = 0

    def get(self, key):
        with self._lock:
            return self._get(key)[0]

    def _get(self, key):
        item = self._items.get(key)
        if item is None:
            return None, None
        value, expires, token = item
        if expires and expires < time.monotonic():
            del self._items[key]
            return None, None
        return value, token

    def _put(self, key, value, ttl):
        self._writes += 1
        expires = time.monotonic() + ttl if ttl else 0
        self._items[key] = (value, expires, self._writes)

    def get_many(self, keys):
        found = {key: self.get(key) for key in keys}
        return {key: value for key, value in found.items()
                if value is not None}

    def delete_many(self, keys):
        with self._lock:
            for key in keys:
                self._items.pop(key, None)

    def set_many(self, values, ttl):
        with self._lock:
            for key, value in values.items():
                self._put(key, value, ttl)

    def add(self, key, value, ttl):
        with self._lock:
            if self._get(key)[0] is not None:
                return False
            self._put(key, value, ttl)
            return True

    def delete(self, key):
        with self._lock:
            self._items.pop(key, None)

    def incr(self, key, ttl, delta=1):
        with self._lock:
            value, _ = self._get(key)
            if value is None:
                self._put(key, str(delta).encode(), ttl)
                return delta
            # memcached keeps the expiry of a counter it increments.
            _, expires, _ = self._items[key]
            count = int(value) + delta
            self._writes += 1
            self._items[key] = (str(count).encode(), expires, self._writes)
            return count

    def gets_replica(self, replica, key):
        with self._lock:
            return self._get(key)

    def cas_replica(self, replica, key, value, token, ttl):
        with self._lock:
            if self._get(key)[1] != token:
                return False
            self._put(key, value, ttl)
            return True

    def close(self):
        pass


# One per process: the API and the worker of flavor-exporter-all share it.
_MEMORY = MemoryBackend()


def backend_from_conf(conf):
    options = conf.document_cache
    if options.backend == 'memory':
        return _MEMORY
    return MemcachedBackend(options.memcache_servers,
                            socket_timeout=options.socket_timeout,
                            pool_maxsize=options.pool_maxsize,
                            dead_retry=options.dead_retry)
