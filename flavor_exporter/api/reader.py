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
"""What an API process reads, wired together once per process.

- generations: which generation is served, and how fresh it is;
- documents: its published documents, as served;
- parsed: their decoded values and the indexes derived from them;
- variants: answers made from them (filtered lists, stale copies);
- status: the worker's last refresh.

A cold cache may be filled on the spot by on_cold (``[api]
compute_on_miss``); the entry points pass it in, so the API never imports
the worker.
"""

import time

from flavor_exporter.api import documents as documents_mod
from flavor_exporter.api import generations as generations_mod
from flavor_exporter.api import parsed as parsed_mod
from flavor_exporter.api import refresh_status
from flavor_exporter.api import variants as variants_mod


class Reader:

    def __init__(self, store, check_interval, stale_after, on_cold=None,
                 clock=time.monotonic, wall_clock=time.time):
        """on_cold() fills a cold cache and says whether it did."""
        self.documents = documents_mod.DocumentCache(store)
        self.parsed = parsed_mod.ParsedDocuments(self.documents)
        self.variants = variants_mod.Variants(self.documents)
        self.generations = generations_mod.GenerationWatcher(
            store, check_interval, stale_after,
            listeners=(self.documents.keep_only, self.parsed.keep_only,
                       self.variants.keep_only),
            clock=clock, wall_clock=wall_clock)
        self.status = refresh_status.StatusPoller(store, check_interval,
                                                  clock)
        self._on_cold = on_cold

    def view(self, fill=True):
        """generations.view(); with fill, a cold cache goes to on_cold."""
        try:
            return self.generations.view()
        except generations_mod.NoData:
            if not fill or self._on_cold is None or not self._on_cold():
                raise
        return self.generations.view(force=True)


class CloudReaders:
    """The Reader of each cloud an API process serves.

    readers: {cloud name: Reader} in the configured order; default: the
    name of the cloud the legacy and unprefixed v2 routes serve.
    """

    def __init__(self, readers, default):
        self.readers = dict(readers)
        self.default_name = default
        self.default = self.readers[default]

    def items(self):
        return self.readers.items()
