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
"""Fill a cold cache from the API process: ``[api] compute_on_miss``.

A computation reads the whole cloud, so it must never run once per
waiting request: one request computes, concurrent ones wait for that same
run and share its outcome, and after a failure nothing is tried again for
``[api] retry_after`` seconds (those requests get the usual 503). The
guard here is per process; the refresh handed in also takes a lock in
the cache, so that one process of all computes. The worker remains the
normal way to fill the cache. What to run is handed in by the entry points (see
worker/on_miss.py): the API does not import the worker.
"""

import threading
import time

from oslo_log import log

from flavor_exporter.common import failures

LOG = log.getLogger(__name__)


class SingleFlight:
    """Runs refresh() for many callers, one run at a time."""

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
            LOG.debug('The cache-miss computation', exc_info=True)
            LOG.error('Computing capacity on a cache miss failed: %s',
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
