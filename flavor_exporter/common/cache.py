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
"""

import threading
import time

from pymemcache.client import hash as memcache_hash
from pymemcache import exceptions as memcache_exc


class CacheError(Exception):
    """The cache could not be read or written."""


def _server_address(server):
    host, sep, port = server.strip().rpartition(':')
    if not sep or not port.isdigit():
        raise ValueError('memcached server %r is not host:port' % server)
    return host.strip('[]'), int(port)


class MemcachedBackend:
    """memcached through pymemcache's pooled, thread-safe HashClient."""

    def __init__(self, servers, socket_timeout=1.0, pool_maxsize=16,
                 dead_retry=5):
        self._client = memcache_hash.HashClient(
            [_server_address(s) for s in servers],
            use_pooling=True,
            max_pool_size=pool_maxsize,
            connect_timeout=socket_timeout,
            timeout=socket_timeout,
            retry_attempts=1,
            dead_timeout=dead_retry,
            ignore_exc=False,
            default_noreply=False)

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

    def close(self):
        self._client.quit()


class MemoryBackend:
    """A dict with expiry, for flavor-exporter-all and tests."""

    def __init__(self):
        self._items = {}
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            value, expires = item
            if expires and expires < time.monotonic():
                del self._items[key]
                return None
            return value

    def get_many(self, keys):
        found = {key: self.get(key) for key in keys}
        return {key: value for key, value in found.items()
                if value is not None}

    def delete_many(self, keys):
        with self._lock:
            for key in keys:
                self._items.pop(key, None)

    def set_many(self, values, ttl):
        expires = time.monotonic() + ttl if ttl else 0
        with self._lock:
            for key, value in values.items():
                self._items[key] = (value, expires)

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
