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
"""What heap.settle freezes, and when the frozen garbage is collected."""

import gc
import weakref

from flavor_exporter.tests import base
from flavor_exporter.worker import heap


class _Node:
    """A reference cycle's member: freed by the collector only."""


def _cycle():
    """A weak reference to a dead reference cycle."""
    node = _Node()
    node.self = node
    return weakref.ref(node)


class TestSettle(base.TestCase):

    def setUp(self):
        super().setUp()
        # Only settle collects: an automatic collection would free the
        # cycles whatever settle does.
        gc.disable()
        self.addCleanup(gc.enable)
        self.addCleanup(gc.unfreeze)
        saved = heap._collected_at
        heap._collected_at = None
        self.addCleanup(setattr, heap, '_collected_at', saved)

    def test_first_settle_collects_then_freezes(self):
        dead = _cycle()
        heap.settle(clock=lambda: 1000.0)
        self.assertIsNone(dead())
        self.assertGreater(gc.get_freeze_count(), 0)

    def test_frozen_cycle_lives_until_the_next_full_collection(self):
        heap.settle(clock=lambda: 1000.0)
        dead = _cycle()
        heap.settle(clock=lambda: 1001.0)  # frozen, not collected
        gc.collect()
        self.assertIsNotNone(dead())
        heap.settle(clock=lambda: 1000.0 + heap.FULL_COLLECTION_EVERY)
        self.assertIsNone(dead())

    def test_freeze_keeps_a_cycle_out_of_collections(self):
        dead = _cycle()
        heap.freeze()
        gc.collect()
        self.assertIsNotNone(dead())
        gc.unfreeze()
        gc.collect()
        self.assertIsNone(dead())
