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
"""The worker's refresh, for API processes that fill a cold cache.

With ``[api] compute_on_miss`` the entry points (flavor_exporter.wsgi.api,
flavor-exporter-all) hand this to the API, which never imports the worker.
The refresher, and with it openstacksdk and the capacity engine, is only
imported when compute_on_miss is on, and built on the first cold-cache
request.

The API's SingleFlight makes one run per process; across processes and
machines a lock in the cache (memcached add) makes one: the process that
takes it computes, the others wait for the pointer it publishes. Whoever
takes the lock looks for a pointer first: a request that found the cache
empty just before another computation published computes nothing.
"""

import time

from oslo_log import log

from flavor_exporter.common import cache

LOG = log.getLogger(__name__)

LOCK = 'compute-on-miss'

# How often a process waiting for another's computation looks for it.
POLL_SECONDS = 0.2


def factory(conf):
    """What the API takes as on_miss: (store, cloud) -> RefreshOnMiss."""
    return lambda store, cloud: RefreshOnMiss(conf, store, cloud)


class RefreshOnMiss:
    """Callable: one refresh of cloud into store; True when it published."""

    def __init__(self, conf, store, cloud=None, sleep=time.sleep,
                 clock=time.monotonic):
        """Raises exceptions.InvalidOption for a [pci] alias Nova refuses.

        cloud: a clouds.Cloud, by default the single (or default) one.
        """
        from flavor_exporter.worker import refresh
        self._refresh = refresh
        self._conf = conf
        self._store = store
        self._cloud = cloud
        # Checked when the application starts, not at the first miss.
        self._options = refresh.engine_options(conf)
        self._refresher = None
        self._sleep = sleep
        self._clock = clock
        # A computation longer than this is presumed dead (its process
        # was killed): another process may then try.
        self._lock_seconds = 2 * conf.worker.refresh_interval

    def __call__(self):
        try:
            mine = self._store.try_lock(LOCK, self._lock_seconds)
        except cache.CacheError as exc:
            LOG.debug('No lock for the cold-cache computation: %s', exc)
            mine = True  # the refresh reports the cache's state
        if not mine:
            return self._wait()
        try:
            # A request that saw the cache empty may get here just after
            # another computation (this process's or another's) published
            # and let the lock go: its data is there, computing again would
            # only cost the cloud a second full read.
            if self._published():
                return True
            if self._refresher is None:
                self._refresher = self._refresh.Refresher(
                    self._conf, self._store, options=self._options,
                    cloud=self._cloud)
            # False also when the worker published first: fine too.
            return self._refresher.refresh() or self._published()
        finally:
            try:
                self._store.unlock(LOCK)
            except cache.CacheError as exc:
                LOG.debug('The lock expires instead: %s', exc)

    def _wait(self):
        """True once another process's computation is published."""
        LOG.info('Another process computes the cold cache; waiting for it')
        deadline = self._clock() + self._lock_seconds
        while self._clock() < deadline:
            self._sleep(POLL_SECONDS)
            if self._published():
                return True
            try:
                if not self._store.locked(LOCK):
                    # It gave up or failed: one more look, then 503.
                    return self._published()
            except cache.CacheError:
                return False
        return False

    def _published(self):
        try:
            return self._store.current() is not None
        except cache.CacheError:
            return False
