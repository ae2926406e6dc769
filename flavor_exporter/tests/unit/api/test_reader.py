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

import datetime
import json
import time
from unittest import mock

from flavor_exporter.api import documents
from flavor_exporter.api import generations
from flavor_exporter.api import reader as reader_mod
from flavor_exporter.api import variants
from flavor_exporter.common import store
from flavor_exporter.publication import contract as pub
from flavor_exporter.tests import base as test_base
from flavor_exporter.tests.unit.api import base

T0 = 1_800_000_000  # wall clock of the tests, seconds


def pointer_at(wall):
    return {'timestamp': time.strftime('%Y-%m-%dT%H:%M:%SZ',
                                       time.gmtime(wall))}


class Clock:

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class TestReader(test_base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.backend = base.FlakyBackend()
        self.store = store.DocumentStore(self.backend, 'test', 0)
        self.clock = Clock()
        self.wall = T0
        self.on_cold = None
        self.reader = self.make_reader()

    def make_reader(self):
        return reader_mod.Reader(
            self.store, check_interval=1.0, stale_after=300,
            on_cold=lambda: self.on_cold(), clock=self.clock,
            wall_clock=lambda: self.wall)

    def raw(self, view, name):
        held = self.reader.documents.get(view.generation, name)
        return None if held is None else held.body

    def variant(self, view, name, variant, build):
        def make():
            return build(self.reader.parsed.get(view.generation, name))
        return self.reader.variants.get(view.generation, name, variant,
                                        make)

    def generation(self):
        pointer = self.store.current()
        return generations.Generation(pointer, self.store.manifest(pointer))

    def publish(self, docs=None, age=0, rewrite=False):
        docs = docs or {'a': b'{"stale":false,"x":1}', 'b': b'"bee"'}
        moment = datetime.datetime.fromtimestamp(self.wall - age,
                                                 datetime.timezone.utc)
        return self.store.publish(docs, pointer_at(self.wall - age),
                                  moment, rewrite=rewrite)[pub.GENERATION]

    def test_cold(self):
        self.assertRaises(generations.NoData, self.reader.view, fill=False)

    def test_cold_and_cache_down(self):
        self.backend.down = True
        self.assertRaises(generations.Unavailable, self.reader.view,
                          fill=False)

    def test_view_of_published_generation(self):
        generation = self.publish(age=10)
        view = self.reader.view()
        self.assertEqual(generation, view.generation.id)
        self.assertFalse(view.stale)
        self.assertEqual(10, view.age)
        self.assertIsNone(view.trouble)
        self.assertEqual(b'"bee"', self.raw(view, 'b'))
        self.assertIsNone(self.raw(view, 'absent'))

    def test_pointer_read_once_per_interval(self):
        first = self.publish()
        self.assertEqual(first, self.reader.view().generation.id)
        second = self.publish()
        self.clock.now = 0.9
        self.assertEqual(first, self.reader.view().generation.id)
        self.clock.now = 1.0
        self.assertEqual(second, self.reader.view().generation.id)

    def test_processes_move_to_a_new_generation_together(self):
        # Two API processes (their own Readers) over one cache, the
        # worker's clock the same as theirs.
        self.store = store.DocumentStore(self.backend, 'test', 0,
                                         clock=lambda: self.wall)
        first = self.publish()
        one, two = self.make_reader(), self.make_reader()
        self.assertEqual(first, one.view().generation.id)
        self.clock.now, self.wall = 0.5, T0 + 0.5
        self.assertEqual(first, two.view().generation.id)
        # Published at T0 + 0.6: served by both from T0 + 1.6 on.
        self.clock.now, self.wall = 0.6, T0 + 0.6
        second = self.publish()
        self.clock.now, self.wall = 1.0, T0 + 1.0
        self.assertEqual(first, one.view().generation.id)  # read, held
        self.clock.now, self.wall = 1.59, T0 + 1.59
        self.assertEqual(first, one.view().generation.id)
        self.assertEqual(first, two.view().generation.id)
        self.clock.now, self.wall = 1.6, T0 + 1.6
        self.assertEqual(second, two.view().generation.id)
        self.assertEqual(second, one.view().generation.id)

    def test_a_process_behind_several_generations_catches_up_at_once(self):
        # Idle while two refreshes published: every other process that
        # got requests serves a newer generation than this one.
        self.store = store.DocumentStore(self.backend, 'test', 0,
                                         clock=lambda: self.wall)
        self.publish()
        self.reader.view()
        self.publish()
        self.clock.now, self.wall = 30.0, T0 + 30.0
        newest = self.publish()
        self.assertEqual(newest, self.reader.view().generation.id)

    def test_a_process_without_data_serves_the_newest_at_once(self):
        self.store = store.DocumentStore(self.backend, 'test', 0,
                                         clock=lambda: self.wall)
        generation = self.publish()
        self.assertEqual(generation, self.reader.view().generation.id)

    def test_a_late_clock_holds_new_data_back_one_interval_at_most(self):
        self.store = store.DocumentStore(self.backend, 'test', 0,
                                         clock=lambda: self.wall + 3600)
        first = self.publish()
        self.assertEqual(first, self.reader.view().generation.id)
        second = self.publish()
        self.clock.now, self.wall = 1.0, T0 + 1.0
        self.assertEqual(first, self.reader.view().generation.id)
        self.clock.now, self.wall = 2.0, T0 + 2.0
        self.assertEqual(second, self.reader.view().generation.id)

    def test_steady_state_makes_no_cache_round_trip(self):
        self.publish()
        view = self.reader.view()
        self.raw(view, 'a')
        gets = self.backend.gets
        for _ in range(100):
            view = self.reader.view()
            self.raw(view, 'a')
            self.variant(view, 'a', 'v', lambda doc: doc)
            self.reader.parsed.derived(view.generation, 'a', 'keys', sorted)
        # The variant is decoded from the bytes held here too.
        self.assertEqual(gets, self.backend.gets)

    def test_new_generation_drops_old_entries(self):
        self.publish()
        self.raw(self.reader.view(), 'a')
        self.variant(self.reader.view(), 'a', 'v', lambda doc: doc)
        self.assertEqual(1, len(self.reader.documents))
        self.assertEqual(1, len(self.reader.variants))
        self.publish({'a': b'2'})
        self.clock.now = 5
        view = self.reader.view()
        self.assertEqual(0, len(self.reader.documents))
        self.assertEqual(0, len(self.reader.variants))
        self.assertEqual(b'2', self.raw(view, 'a'))

    def test_old_data_is_stale(self):
        self.publish(age=301)
        view = self.reader.view()
        self.assertTrue(view.stale)
        self.assertIsNone(view.trouble)

    def test_cache_down_serves_what_this_process_holds(self):
        generation = self.publish()
        self.raw(self.reader.view(), 'a')
        self.backend.down = True
        self.clock.now = 5
        with mock.patch.object(generations.LOG, 'warning') as warning:
            view = self.reader.view()
            self.clock.now = 10
            view = self.reader.view()
        warning.assert_called_once()  # once per outage, not per check
        self.assertEqual(generation, view.generation.id)
        self.assertTrue(view.stale)
        self.assertIn('cache unreachable', view.trouble)
        self.assertEqual(b'{"stale":false,"x":1}',
                         self.raw(view, 'a'))
        self.assertRaises(generations.Unavailable, self.raw, view, 'b')
        self.backend.down = False
        self.clock.now = 20
        view = self.reader.view()
        self.assertFalse(view.stale)
        self.assertIsNone(view.trouble)

    def test_lost_pointer_serves_last_generation_stale(self):
        generation = self.publish()
        self.raw(self.reader.view(), 'a')
        self.backend.flush()
        self.clock.now = 5
        view = self.reader.view()
        self.assertEqual(generation, view.generation.id)
        self.assertTrue(view.stale)
        self.assertEqual(generations._LOST, view.trouble)
        self.assertIsNotNone(self.raw(view, 'a'))
        # As the worker does when it finds the pointer gone.
        republished = self.publish(rewrite=True)
        self.clock.now = 10
        view = self.reader.view()
        self.assertEqual(republished, view.generation.id)
        self.assertFalse(view.stale)

    def test_variant_built_once_per_generation(self):
        self.publish()
        build = mock.Mock(side_effect=lambda doc: dict(doc, stale=True))
        view = self.reader.view()
        first = self.variant(view, 'a', 'stale', build)
        again = self.variant(view, 'a', 'stale', build)
        self.assertEqual(1, build.call_count)
        self.assertIs(first, again)
        self.assertEqual({'stale': True, 'x': 1}, json.loads(first.body))
        plain = self.reader.documents.get(view.generation, 'a')
        self.assertEqual(b'{"stale":false,"x":1}', plain.body)
        self.assertNotEqual(plain.etag, first.etag)
        self.assertIsNone(self.variant(view, 'absent', 'v', build))

    def test_etag_and_time_follow_the_content(self):
        self.publish(age=10)
        first = self.reader.documents.get(self.reader.view().generation,
                                          'b')
        self.wall += 150
        self.publish()
        self.clock.now = 5
        same = self.reader.documents.get(self.reader.view().generation, 'b')
        self.assertEqual(first, same)
        self.assertTrue(first.etag.startswith('"'))
        self.assertTrue(first.etag.endswith('"'))
        self.assertEqual('Fri, 15 Jan 2027 07:59:50 GMT',
                         first.last_modified)
        self.publish({'a': b'1', 'b': b'"wasp"'})
        self.clock.now = 10
        changed = self.reader.documents.get(self.reader.view().generation,
                                            'b')
        self.assertNotEqual(first.etag, changed.etag)
        self.assertEqual('Fri, 15 Jan 2027 08:02:30 GMT',
                         changed.last_modified)

    def test_decoded_is_memoised(self):
        self.publish()
        view = self.reader.view()
        parsed = self.reader.parsed
        self.assertIs(parsed.get(view.generation, 'a'),
                      parsed.get(view.generation, 'a'))
        self.assertIsNone(parsed.get(view.generation, 'absent'))

    def test_documents_bounded_by_bytes(self):
        cache = documents.DocumentCache(self.store, max_bytes=1100)
        self.publish({'big%d' % i: b'"%s"' % (b'x' * 300 + b'%d' % i)
                      for i in range(5)})
        generation = self.generation()
        for i in range(5):
            cache.get(generation, 'big%d' % i)
        self.assertLessEqual(cache._lru._bytes, 1100)
        self.assertEqual(2, len(cache))
        gets = self.backend.gets
        cache.get(generation, 'big4')
        self.assertEqual(gets, self.backend.gets)
        cache.get(generation, 'big0')
        self.assertEqual(gets + 1, self.backend.gets)

    def test_variants_bounded_by_entries(self):
        self.publish()
        memo = variants.Variants(self.reader.documents, max_entries=3)
        for i in range(10):
            memo.get(self.generation(), 'a', i, lambda: {'x': 1})
        self.assertEqual(3, len(memo))

    def test_unknown_documents_cost_no_round_trip(self):
        # The manifest lists every document of the generation.
        self.publish()
        view = self.reader.view()
        gets = self.backend.gets
        self.assertIsNone(self.raw(view, 'absent'))
        self.assertEqual(gets, self.backend.gets)

    def test_lost_parts_are_unavailable_not_remembered(self):
        self.publish()
        view = self.reader.view()
        entry = view.generation.documents['a']
        for part in entry.part_names():
            del self.backend._items[pub.key('test', part)]
        self.assertRaises(generations.Unavailable, self.raw, view, 'a')
        self.store.publish({'a': b'{"stale":false,"x":1}', 'b': b'"bee"'},
                           pointer_at(self.wall), datetime.datetime.now(
                               datetime.timezone.utc), rewrite=True)
        self.assertIsNotNone(self.raw(view, 'a'))

    def test_derived(self):
        self.publish()
        view = self.reader.view()
        compute = mock.Mock(return_value='keys')
        derived = self.reader.parsed.derived
        generation = view.generation
        self.assertEqual('keys', derived(generation, 'a', 'k', compute))
        self.assertEqual('keys', derived(generation, 'a', 'k', compute))
        compute.assert_called_once_with({'stale': False, 'x': 1})
        self.assertRaises(generations.Unavailable, derived,
                          generation, 'absent', 'k', compute)

    def test_cold_cache_handed_to_on_cold(self):
        def fill():
            self.publish()
            return True
        self.on_cold = mock.Mock(side_effect=fill)
        view = self.reader.view()
        self.assertEqual(1, self.on_cold.call_count)
        self.assertIsNotNone(self.raw(view, 'a'))

    def test_failed_on_cold(self):
        self.on_cold = mock.Mock(return_value=False)
        self.assertRaises(generations.NoData, self.reader.view)
        self.assertRaises(generations.NoData, self.reader.view, fill=False)
        self.assertEqual(1, self.on_cold.call_count)

    def test_status_read_once_per_interval_and_kept_on_failure(self):
        self.store.write_status({'consecutive_failures': 0})
        self.assertEqual({'consecutive_failures': 0}, self.reader.status.get())
        self.store.write_status({'consecutive_failures': 1})
        self.assertEqual(0, self.reader.status.get()['consecutive_failures'])
        self.clock.now = 1
        self.assertEqual(1, self.reader.status.get()['consecutive_failures'])
        self.backend.down = True
        self.clock.now = 2
        self.assertEqual(1, self.reader.status.get()['consecutive_failures'])

    def test_last_modified_from_timestamp(self):
        self.publish(age=0)
        self.assertEqual('Fri, 15 Jan 2027 08:00:00 GMT',
                         self.reader.view().generation.last_modified)

    def test_pointer_without_timestamp_is_stale(self):
        self.store.publish({'a': b'1'}, {}, datetime.datetime.now(
            datetime.timezone.utc))
        view = self.reader.view()
        self.assertIsNone(view.age)
        self.assertTrue(view.stale)
        self.assertIsNone(view.generation.last_modified)
