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

import json
from unittest import mock

from flavor_exporter.api import documents
from flavor_exporter.common import store
from flavor_exporter.tests import base as test_base
from flavor_exporter.tests.unit.api import base

T0 = 1_800_000_000  # wall clock of the tests, seconds


def pointer_at(wall):
    return {'timestamp': documents.time.strftime(
        '%Y-%m-%dT%H:%M:%SZ', documents.time.gmtime(wall))}


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

    def make_reader(self, **kw):
        return documents.DocumentReader(
            self.store, check_interval=1.0, stale_after=300,
            on_cold=lambda: self.on_cold(), clock=self.clock,
            wall_clock=lambda: self.wall, **kw)

    def publish(self, docs=None, age=0):
        docs = docs or {'a': b'{"stale":false,"x":1}', 'b': b'"bee"'}
        return self.store.publish(docs, pointer_at(self.wall - age))

    def test_cold(self):
        self.assertRaises(documents.NoData, self.reader.view, fill=False)

    def test_cold_and_cache_down(self):
        self.backend.down = True
        self.assertRaises(documents.Unavailable, self.reader.view,
                          fill=False)

    def test_view_of_published_generation(self):
        generation = self.publish(age=10)
        view = self.reader.view()
        self.assertEqual(generation, view.generation.id)
        self.assertFalse(view.stale)
        self.assertEqual(10, view.age)
        self.assertIsNone(view.trouble)
        self.assertEqual(b'"bee"', self.reader.raw(view, 'b'))
        self.assertIsNone(self.reader.raw(view, 'absent'))

    def test_pointer_read_once_per_interval(self):
        first = self.publish()
        self.assertEqual(first, self.reader.view().generation.id)
        second = self.publish()
        self.clock.now = 0.9
        self.assertEqual(first, self.reader.view().generation.id)
        self.clock.now = 1.0
        self.assertEqual(second, self.reader.view().generation.id)

    def test_steady_state_makes_no_cache_round_trip(self):
        self.publish()
        view = self.reader.view()
        self.reader.raw(view, 'a')
        gets = self.backend.gets
        for _ in range(100):
            view = self.reader.view()
            self.reader.raw(view, 'a')
            self.reader.render(view, 'a', 'v', lambda doc: doc)
            self.reader.derived(view, ('a', 'keys'), sorted)
        # The variant is decoded from the bytes held here too.
        self.assertEqual(gets, self.backend.gets)

    def test_new_generation_drops_old_entries(self):
        self.publish()
        self.reader.raw(self.reader.view(), 'a')
        self.assertEqual(1, len(self.reader._lru))
        self.publish({'a': b'2'})
        self.clock.now = 5
        view = self.reader.view()
        self.assertEqual(0, len(self.reader._lru))
        self.assertEqual(b'2', self.reader.raw(view, 'a'))

    def test_old_data_is_stale(self):
        self.publish(age=301)
        view = self.reader.view()
        self.assertTrue(view.stale)
        self.assertIsNone(view.trouble)

    def test_cache_down_serves_what_this_process_holds(self):
        generation = self.publish()
        self.reader.raw(self.reader.view(), 'a')
        self.backend.down = True
        self.clock.now = 5
        with mock.patch.object(documents.LOG, 'warning') as warning:
            view = self.reader.view()
            self.clock.now = 10
            view = self.reader.view()
        warning.assert_called_once()  # once per outage, not per check
        self.assertEqual(generation, view.generation.id)
        self.assertTrue(view.stale)
        self.assertIn('cache unreachable', view.trouble)
        self.assertEqual(b'{"stale":false,"x":1}',
                         self.reader.raw(view, 'a'))
        self.assertRaises(documents.Unavailable, self.reader.raw, view, 'b')
        self.backend.down = False
        self.clock.now = 20
        view = self.reader.view()
        self.assertFalse(view.stale)
        self.assertIsNone(view.trouble)

    def test_lost_pointer_serves_last_generation_stale(self):
        generation = self.publish()
        self.reader.raw(self.reader.view(), 'a')
        self.backend.flush()
        self.clock.now = 5
        view = self.reader.view()
        self.assertEqual(generation, view.generation.id)
        self.assertTrue(view.stale)
        self.assertEqual(documents._LOST, view.trouble)
        self.assertIsNotNone(self.reader.raw(view, 'a'))
        republished = self.publish()
        self.clock.now = 10
        view = self.reader.view()
        self.assertEqual(republished, view.generation.id)
        self.assertFalse(view.stale)

    def test_variant_built_once_per_generation(self):
        self.publish()
        build = mock.Mock(side_effect=lambda doc: dict(doc, stale=True))
        view = self.reader.view()
        first = self.reader.render(view, 'a', 'stale', build)
        again = self.reader.render(view, 'a', 'stale', build)
        self.assertEqual(1, build.call_count)
        self.assertIs(first, again)
        self.assertEqual({'stale': True, 'x': 1}, json.loads(first.body))
        plain = self.reader.render(view, 'a')
        self.assertEqual(b'{"stale":false,"x":1}', plain.body)
        self.assertNotEqual(plain.etag, first.etag)
        self.assertIsNone(self.reader.render(view, 'absent', 'v', build))

    def test_etag_changes_with_generation(self):
        self.publish()
        first = self.reader.render(self.reader.view(), 'b')
        self.publish()
        self.clock.now = 5
        second = self.reader.render(self.reader.view(), 'b')
        self.assertEqual(first.body, second.body)
        self.assertNotEqual(first.etag, second.etag)
        self.assertTrue(first.etag.startswith('"'))
        self.assertTrue(first.etag.endswith('"'))

    def test_decoded_is_memoised(self):
        self.publish()
        view = self.reader.view()
        self.assertIs(self.reader.decoded(view, 'a'),
                      self.reader.decoded(view, 'a'))
        self.assertIsNone(self.reader.decoded(view, 'absent'))

    def test_lru_bounded_by_bytes(self):
        self.reader = self.make_reader(max_bytes=1000)
        self.publish({'big%d' % i: b'x' * 300 for i in range(5)})
        view = self.reader.view()
        for i in range(5):
            self.reader.raw(view, 'big%d' % i)
        self.assertLessEqual(self.reader._lru._bytes, 1000)
        self.assertEqual(2, len(self.reader._lru))
        gets = self.backend.gets
        self.reader.raw(view, 'big4')
        self.assertEqual(gets, self.backend.gets)
        self.reader.raw(view, 'big0')
        self.assertEqual(gets + 1, self.backend.gets)

    def test_lru_bounded_by_entries(self):
        self.reader = self.make_reader(max_entries=3)
        self.publish()
        view = self.reader.view()
        for i in range(10):
            self.reader.render(view, 'a', i, lambda doc: doc)
        self.assertEqual(3, len(self.reader._lru))

    def test_absent_documents_not_remembered(self):
        # A miss may be a failing cache (see _lookup): ask again.
        self.publish()
        view = self.reader.view()
        gets = self.backend.gets
        self.assertIsNone(self.reader.raw(view, 'absent'))
        self.assertIsNone(self.reader.raw(view, 'absent'))
        self.assertEqual(gets + 2, self.backend.gets)

    def test_derived(self):
        self.publish()
        view = self.reader.view()
        compute = mock.Mock(return_value='keys')
        self.assertEqual('keys', self.reader.derived(view, ('a', 'k'),
                                                     compute))
        self.assertEqual('keys', self.reader.derived(view, ('a', 'k'),
                                                     compute))
        compute.assert_called_once_with({'stale': False, 'x': 1})
        self.assertRaises(documents.Unavailable, self.reader.derived,
                          view, ('absent', 'k'), compute)

    def test_cold_cache_handed_to_on_cold(self):
        def fill():
            self.publish()
            return True
        self.on_cold = mock.Mock(side_effect=fill)
        view = self.reader.view()
        self.assertEqual(1, self.on_cold.call_count)
        self.assertIsNotNone(self.reader.raw(view, 'a'))

    def test_failed_on_cold(self):
        self.on_cold = mock.Mock(return_value=False)
        self.assertRaises(documents.NoData, self.reader.view)
        self.assertRaises(documents.NoData, self.reader.view, fill=False)
        self.assertEqual(1, self.on_cold.call_count)

    def test_status_read_once_per_interval_and_kept_on_failure(self):
        self.store.write_status({'consecutive_failures': 0})
        self.assertEqual({'consecutive_failures': 0}, self.reader.status())
        self.store.write_status({'consecutive_failures': 1})
        self.assertEqual(0, self.reader.status()['consecutive_failures'])
        self.clock.now = 1
        self.assertEqual(1, self.reader.status()['consecutive_failures'])
        self.backend.down = True
        self.clock.now = 2
        self.assertEqual(1, self.reader.status()['consecutive_failures'])

    def test_last_modified_from_timestamp(self):
        self.publish(age=0)
        self.assertEqual('Fri, 15 Jan 2027 08:00:00 GMT',
                         self.reader.view().generation.last_modified)

    def test_pointer_without_timestamp_is_stale(self):
        self.store.publish({'a': b'1'}, {})
        view = self.reader.view()
        self.assertIsNone(view.age)
        self.assertTrue(view.stale)
        self.assertIsNone(view.generation.last_modified)
