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
"""The worker's status entry, as the API reports it.

Read at most once per ``[api] generation_check_interval`` seconds; the last
entry read stays reported while the cache cannot be read.
"""

import time

from oslo_log import log

from flavor_exporter.common import store as store_mod

LOG = log.getLogger(__name__)


class StatusPoller:

    def __init__(self, store, check_interval, clock=time.monotonic):
        self._store = store
        self._check_interval = check_interval
        self._clock = clock
        self._status = None
        self._next_read = float('-inf')

    def get(self):
        """The status entry (last known when the cache fails), or None."""
        if self._clock() >= self._next_read:
            self._next_read = self._clock() + self._check_interval
            try:
                self._status = self._store.status()
            except store_mod.CacheError as exc:
                LOG.debug('Status unreadable: %s', exc)
        return self._status
