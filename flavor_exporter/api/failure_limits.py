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
"""How many failed attempts a key (a client address, a user name) has left.

A leaky bucket per key: ``burst`` failures at once, then one more every
60 / ``per_minute`` seconds. An attempt is charged before it is verified
and refunded when it succeeds, so that many attempts at once cannot all
pass before the first failure is counted. Kept in the process: each API
process limits on its own (doc/source/admin/policy.rst).
"""

import math
import threading
import time

#: Keys remembered at most; past it, those with nothing left to count
#: are forgotten, then all of them (the memory stays bounded).
MAX_KEYS = 10000


class FailureLimit:
    """Failed attempts per key, burst at once then per_minute."""

    def __init__(self, burst, per_minute, clock=time.monotonic,
                 max_keys=MAX_KEYS):
        self._burst = burst
        self._rate = per_minute / 60.0
        self._clock = clock
        self._max_keys = max_keys
        self._levels = {}
        self._lock = threading.Lock()

    def _level(self, key, now):
        level, then = self._levels.get(key, (0.0, now))
        return max(0.0, level - (now - then) * self._rate)

    def take(self, key):
        """Charge one attempt to key: 0, or seconds until one is allowed."""
        with self._lock:
            now = self._clock()
            level = self._level(key, now)
            if level + 1 > self._burst:
                return max(1, math.ceil((level + 1 - self._burst)
                                        / self._rate))
            if key not in self._levels and \
                    len(self._levels) >= self._max_keys:
                self._forget(now)
            self._levels[key] = (level + 1, now)
            return 0

    def refund(self, key):
        """Give back the attempt take() charged: it succeeded."""
        with self._lock:
            now = self._clock()
            level = self._level(key, now) - 1
            if level <= 0:
                self._levels.pop(key, None)
            else:
                self._levels[key] = (level, now)

    def _forget(self, now):
        for key in [k for k in self._levels if self._level(k, now) == 0]:
            del self._levels[key]
        if len(self._levels) >= self._max_keys:
            self._levels.clear()
