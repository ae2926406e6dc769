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
"""The garbage collector's share of a refresh, kept small.

Between refreshes a worker holds millions of objects at 10,000 hosts (the
last snapshot and report, the provider cache, the documents), and a refresh
allocates as many again (the listings' JSON, the new snapshot). CPython's
collector then runs full collections in the middle of the refresh, each
walking the whole heap to find the few reference cycles: at 10,000 x 1,000
they were most of a warm refresh's CPU (tools/bench/worker.py). So what a
refresh leaves alive is frozen once it has published (gc.freeze: left out
of later collections, still freed by reference counting as usual), and
the collections of the next refresh walk only what it allocates itself.

A cycle among frozen objects that later dies is not found while frozen:
every FULL_COLLECTION_EVERY seconds, after a refresh has published (the
new data is out, a second's delay costs no reader anything), everything is
unfrozen and collected once, so such garbage lives that long at most.
"""

import gc
import threading
import time

# Seconds between two full collections of the whole heap (~0.5 s of CPU at
# 10,000 x 1,000).
FULL_COLLECTION_EVERY = 600

_lock = threading.Lock()
_collected_at = None


def freeze():
    """Freeze what is alive now (what a collect read), without collecting.

    For the middle of a refresh: what was read and will outlive the
    refresh is left out of the collections of the rest of it. A cycle
    frozen this way that dies is found by the next full collection.
    """
    gc.freeze()


def settle(clock=time.monotonic):
    """Freeze what a refresh left alive; call it after it published.

    Every FULL_COLLECTION_EVERY seconds (and at the first call) the whole
    heap is collected first. Several refreshers of one process (several
    clouds) share one heap, hence module state.
    """
    global _collected_at
    with _lock:
        now = clock()
        if (_collected_at is None
                or now - _collected_at >= FULL_COLLECTION_EVERY):
            gc.unfreeze()
            gc.collect()
            _collected_at = now
        gc.freeze()
