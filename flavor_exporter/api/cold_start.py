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
"""Answer a cold cache with data, not a 503: ``[api] compute_on_miss``.

The API never computes: it asks the leading worker to publish now (a
refresh request in the cache, see publication/mailboxes.py) and waits for
the pointer to appear, up to ``[api] compute_on_miss_timeout`` seconds.
The worker answers once however many ask (worker/manager.py). Within a
process one request asks and waits; concurrent ones wait for that same
wait and share its outcome, and after a wait that ended without data
none asks again for ``[api] retry_after`` seconds (those requests get the
usual 503).
"""

import threading
import time

from oslo_log import log

from flavor_exporter.common import failures
from flavor_exporter.publication import cache
from flavor_exporter.publication import mailboxes

LOG = log.getLogger(__name__)

POLL_SECONDS = 0.2


def ask_worker(reader, timeout, sleep=time.sleep, clock=time.monotonic):
    """The refresh of a cold cache: ask the leading worker, then wait.

    reader: the cloud's publication.reader.Reader. True once data is
    published, False after timeout seconds without.
    """
    def refresh():
        deadline = clock() + timeout
        try:
            mailboxes.RefreshRequests(reader.backend, reader.key).ask(
                None, timeout)
            while reader.current() is None:
                if clock() >= deadline:
                    LOG.warning('No worker published data within [api] '
                                'compute_on_miss_timeout = %ds; is '
                                'flavor-exporter-worker running?', timeout)
                    return False
                sleep(POLL_SECONDS)
        except cache.CacheError as exc:
            LOG.info('The cache cannot take a refresh request: %s', exc)
            return False
        return True
    return refresh


class SingleFlight:
    """Runs refresh() for many callers, one run at a time.

    refresh() says whether data is there now (see ask_worker).
    """

    def __init__(self, refresh, backoff, clock=time.monotonic):
        self._refresh = refresh
        self._backoff = backoff
        self._clock = clock
        self._cond = threading.Condition()
        self._running = False
        self._runs = 0
        self._outcome = False
        self._quiet_until = float('-inf')

    def __call__(self):
        """True when a run (this caller's or the one waited for) succeeded."""
        with self._cond:
            if self._running:
                run = self._runs
                self._cond.wait_for(lambda: self._runs != run)
                return self._outcome
            if self._clock() < self._quiet_until:
                return False
            self._running = True
        outcome = False
        try:
            outcome = bool(self._refresh())
        except Exception as exc:
            # The refresh logs its own failures in one line; this is a
            # failure around it. The traceback is for --debug.
            LOG.debug('The cold-cache wait', exc_info=True)
            LOG.error('Waiting for data on a cold cache failed: %s',
                      failures.explain(exc))
        finally:
            with self._cond:
                self._running = False
                self._runs += 1
                self._outcome = outcome
                if not outcome:
                    self._quiet_until = self._clock() + self._backoff
                self._cond.notify_all()
        return outcome
