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
"""Requests that wait for the worker, a few at a time.

A project never answered and a new set check are computed by the leading
worker on request; the API request that asked polls the cache for the
answer. Only so many requests of a process wait at once, and never all
of its threads: the others are answered at once (a 503 with Retry-After)
so that waiting never holds the threads other routes need.
"""

import threading
import time


class Waiting:
    """At most `most` requests of a process wait, and one thread never."""

    def __init__(self, most, threads=None, clock=time.monotonic,
                 sleep=time.sleep):
        """most: the option's limit; threads: [api] threads."""
        if threads is not None:
            most = min(most, threads - 1)
        self._slots = threading.BoundedSemaphore(most) if most > 0 else None
        self._clock = clock
        self._sleep = sleep

    def wait(self, seconds, poll, answer):
        """answer()'s first value other than None, within seconds.

        None when seconds pass first, or at once when as many requests
        wait already.
        """
        if self._slots is None or not self._slots.acquire(blocking=False):
            return None
        try:
            deadline = self._clock() + seconds
            while self._clock() < deadline:
                self._sleep(poll)
                found = answer()
                if found is not None:
                    return found
        finally:
            self._slots.release()
        return None
