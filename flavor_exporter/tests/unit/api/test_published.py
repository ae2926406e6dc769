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
import threading
import time
from unittest import mock

import fixtures
import webtest

from flavor_exporter.api import app
from flavor_exporter.api.controllers import flavors
from flavor_exporter.api import errors
from flavor_exporter.api import generations
from flavor_exporter.api import published
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base as test_base
from flavor_exporter.tests.unit.api import base

T0 = 1_800_000_000  # wall clock of the tests, seconds


def pointer_at(wall, format_version=pub.FORMAT_VERSION):
    return {pub.FORMAT: format_version,
            'timestamp': time.strftime('%Y-%m-%dT%H:%M:%SZ',
                                       time.gmtime(wall))}


class Clock:

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class TestPublished(test_base.BaseTestCase):
    """What every route shares: the generation, its freshness, the memo."""

    def setUp(self):
        super().setUp()
        self.backend = base.FlakyBackend()
        self.store = publisher.Publisher(self.backend, 'test', 0)
        self.clock = Clock()
        self.wall = T0
        self.on_cold = None
        self.reader = self.make_reader()

    def make_reader(self):
        return published.Published(
            {'default': self.store.reader}, 'default', check_interval=1.0,
            stale_after=300, retry_after=5,
            on_cold={'default': lambda: self.on_cold()},
            clock=self.clock, wall_clock=lambda: self.wall)

    def document(self, view, name):
        data = self.reader
        return data.document(data.cloud(None), view.generation, name)

    def raw(self, view, name):
        held = self.document(view, name)
        return None if held is None else held.body

    def publish(self, docs=None, age=0, rewrite=False):
        docs = docs or {'a': b'{"stale":false,"x":1}', 'b': b'"bee"'}
        moment = datetime.datetime.fromtimestamp(self.wall - age,
                                                 datetime.timezone.utc)
        return self.store.publish(docs, pointer_at(self.wall - age),
                                  moment, rewrite=rewrite)[pub.GENERATION]

    def test_cold(self):
        self.assertRaises(errors.NoData, self.reader.view, fill=False)

    def test_cold_and_cache_down(self):
        self.backend.down = True
        self.assertRaises(errors.Unavailable, self.reader.view,
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
        self.store = publisher.Publisher(self.backend, 'test', 0,
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
        self.store = publisher.Publisher(self.backend, 'test', 0,
                                         clock=lambda: self.wall)
        self.publish()
        self.reader.view()
        self.publish()
        self.clock.now, self.wall = 30.0, T0 + 30.0
        newest = self.publish()
        self.assertEqual(newest, self.reader.view().generation.id)

    def test_a_process_without_data_serves_the_newest_at_once(self):
        self.store = publisher.Publisher(self.backend, 'test', 0,
                                         clock=lambda: self.wall)
        generation = self.publish()
        self.assertEqual(generation, self.reader.view().generation.id)

    def test_a_late_clock_holds_new_data_back_one_interval_at_most(self):
        self.store = publisher.Publisher(self.backend, 'test', 0,
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
        self.assertEqual(gets, self.backend.gets)

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
        self.assertRaises(errors.Unavailable, self.raw, view, 'b')
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

    def test_etag_and_time_follow_the_content(self):
        self.publish(age=10)
        first = self.document(self.reader.view(), 'b')
        self.wall += 150
        self.publish()
        self.clock.now = 5
        same = self.document(self.reader.view(), 'b')
        self.assertEqual(first, same)
        self.assertTrue(first.etag.startswith('"'))
        self.assertTrue(first.etag.endswith('"'))
        self.assertEqual('Fri, 15 Jan 2027 07:59:50 GMT',
                         first.last_modified)
        self.publish({'a': b'1', 'b': b'"wasp"'})
        self.clock.now = 10
        changed = self.document(self.reader.view(), 'b')
        self.assertNotEqual(first.etag, changed.etag)
        self.assertEqual('Fri, 15 Jan 2027 08:02:30 GMT',
                         changed.last_modified)

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
            del self.backend._items[self.store.reader.key(part)]
        self.assertRaises(errors.Unavailable, self.raw, view, 'a')
        self.store.publish({'a': b'{"stale":false,"x":1}', 'b': b'"bee"'},
                           pointer_at(self.wall), datetime.datetime.now(
                               datetime.timezone.utc), rewrite=True)
        self.assertIsNotNone(self.raw(view, 'a'))

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
        self.assertRaises(errors.NoData, self.reader.view)
        self.assertRaises(errors.NoData, self.reader.view, fill=False)
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
        self.store.publish({'a': b'1'}, {pub.FORMAT: pub.FORMAT_VERSION},
                           datetime.datetime.now(datetime.timezone.utc))
        view = self.reader.view()
        self.assertIsNone(view.age)
        self.assertTrue(view.stale)
        self.assertIsNone(view.generation.last_modified)

    def test_a_lost_part_marks_the_data_and_asks_for_it_again(self):
        generation = self.publish()
        view = self.reader.view()
        for part in view.generation.documents['a'].part_names():
            del self.backend._items[self.store.reader.key(part)]
        self.assertRaises(errors.Unavailable, self.raw, view, 'a')
        self.assertEqual({pub.GENERATION: generation},
                         self.store.refresh_requests.pending())
        self.clock.now = 5
        view = self.reader.view()
        self.assertTrue(view.stale)
        self.assertEqual(generations.LOST_PARTS, view.trouble)
        self.assertEqual(b'"bee"', self.raw(view, 'b'))  # the rest serves
        # What the worker does when asked: the same data, a new generation.
        republished = self.publish(rewrite=True)
        self.clock.now = 10
        view = self.reader.view()
        self.assertEqual(republished, view.generation.id)
        self.assertFalse(view.stale)
        self.assertIsNotNone(self.raw(view, 'a'))

    def test_a_part_lost_to_one_process_makes_the_others_stale(self):
        # Two API processes over one cache: only the first misses a part.
        other = self.make_reader()
        generation = self.publish()
        view = self.reader.view()
        self.assertFalse(other.view().stale)
        for part in view.generation.documents['a'].part_names():
            del self.backend._items[self.store.reader.key(part)]
        self.assertRaises(errors.Unavailable, self.raw, view, 'a')
        self.clock.now = 5
        view = other.view()
        self.assertEqual(generation, view.generation.id)
        self.assertTrue(view.stale)
        self.assertEqual(generations.LOST_PARTS, view.trouble)
        # Republished: a new generation, fresh in both.
        self.publish(rewrite=True)
        self.clock.now = 10
        self.assertFalse(other.view().stale)
        self.assertFalse(self.reader.view().stale)

    def test_a_format_this_api_does_not_read_is_never_served(self):
        moment = datetime.datetime.fromtimestamp(T0, datetime.timezone.utc)
        self.store.publish({'a': b'1'}, pointer_at(T0, format_version=1),
                           moment)
        error = self.assertRaises(errors.Unavailable, self.reader.view)
        self.assertIn('format 1, this API reads format %d'
                      % pub.FORMAT_VERSION, str(error))

    def test_a_newer_format_keeps_what_this_process_serves(self):
        generation = self.publish()
        self.reader.view()
        moment = datetime.datetime.fromtimestamp(T0, datetime.timezone.utc)
        self.store.publish({'a': b'1'}, pointer_at(
            T0, format_version=pub.FORMAT_VERSION + 1), moment)
        self.clock.now = 5
        view = self.reader.view()
        self.assertEqual(generation, view.generation.id)
        self.assertTrue(view.stale)
        self.assertIn('run the workers and the API of the same release',
                      view.trouble)

    def test_concurrent_first_requests_wait_for_the_one_reading(self):
        self.publish()
        reading = threading.Event()
        release = threading.Event()
        current = self.store.reader.current

        def slow_current():
            reading.set()
            release.wait(5)
            return current()
        self.useFixture(fixtures.MockPatchObject(
            self.store.reader, 'current', side_effect=slow_current))
        first = threading.Thread(target=self.reader.view)
        first.start()
        reading.wait(5)
        # A second request while the first reads the pointer: it waits
        # for that read instead of answering that nothing is published.
        views = []
        second = threading.Thread(
            target=lambda: views.append(self.reader.view()))
        second.start()
        release.set()
        first.join(5)
        second.join(5)
        self.assertIsNotNone(views[0].generation)

    def test_unknown_cloud(self):
        error = self.assertRaises(errors.NotFound, self.reader.view,
                                  'north')
        self.assertIn('No cloud is named "north"', str(error))

    def test_peek_neither_fills_nor_raises(self):
        self.on_cold = mock.Mock(return_value=True)
        view = self.reader.peek()
        self.assertIsNone(view.generation)
        self.assertTrue(view.stale)
        self.on_cold.assert_not_called()


class TestBackgroundWatcher(test_base.BaseTestCase):
    """A thread of each process reads the pointer; requests read none."""

    def setUp(self):
        super().setUp()
        self.backend = base.FlakyBackend()
        self.clock = Clock()
        self.wall = T0
        # The publisher's clock is the processes' wall clock.
        self.store = publisher.Publisher(self.backend, 'test', 0,
                                         clock=lambda: self.wall)
        self.started = []

    def make_reader(self):
        return published.Published(
            {'default': self.store.reader}, 'default', check_interval=1.0,
            stale_after=300, retry_after=5, clock=self.clock,
            wall_clock=lambda: self.wall)

    def publish(self, rewrite=False):
        return TestPublished.publish(self, rewrite=rewrite)

    def watcher_of(self, data):
        watcher = data.cloud(None).watcher
        watcher.watch_in_background()
        # The thread's looks are made by hand (look()), at the fake
        # clock's moments; starting it is only recorded.
        self.useFixture(fixtures.MockPatchObject(
            watcher, '_start_thread',
            side_effect=lambda: self.started.append(watcher)))
        return watcher

    def look(self, watcher):
        watcher._check(True)  # what the thread does at each look

    def test_requests_read_no_pointer_and_serve_when_due(self):
        data = self.make_reader()
        watcher = self.watcher_of(data)
        first = self.publish()
        self.assertEqual(first, data.view().generation.id)  # nothing yet
        self.assertEqual([watcher], self.started)
        # Published at T0 + 0.6: every process serves it from T0 + 1.6.
        self.clock.now, self.wall = 0.6, T0 + 0.6
        second = self.publish()
        self.clock.now, self.wall = 1.0, T0 + 1.0
        self.look(watcher)
        gets = self.backend.gets
        self.clock.now, self.wall = 1.59, T0 + 1.59
        for _ in range(50):
            self.assertEqual(first, data.view().generation.id)
        # Due: served by every request from now on, before the thread
        # looks again, and without a read.
        self.clock.now, self.wall = 1.6, T0 + 1.6
        for _ in range(50):
            self.assertEqual(second, data.view().generation.id)
        self.assertEqual(gets, self.backend.gets)
        self.look(watcher)
        self.assertEqual(second, data.view().generation.id)
        self.assertEqual([watcher], self.started)

    def test_without_its_thread_requests_read_once_per_interval(self):
        # uWSGI without enable-threads starts no thread: when the thread
        # is a whole interval late, a request reads the pointer.
        data = self.make_reader()
        watcher = self.watcher_of(data)
        first = self.publish()
        self.assertEqual(first, data.view().generation.id)
        second = self.publish(rewrite=True)
        self.clock.now, self.wall = 1.9, T0 + 1.9
        gets = self.backend.gets
        self.assertEqual(first, data.view().generation.id)
        self.assertEqual(gets, self.backend.gets)
        self.clock.now, self.wall = 2.0, T0 + 2.0
        # Read; published at T0, so due at once.
        self.assertEqual(second, data.view().generation.id)
        self.assertLess(gets, self.backend.gets)
        gets = self.backend.gets
        self.assertEqual(second, data.view().generation.id)
        self.assertEqual(gets, self.backend.gets)
        self.assertEqual(1, watcher.checks - 1)

    def test_a_forked_process_starts_its_own_thread(self):
        data = self.make_reader()
        watcher = self.watcher_of(data)
        self.publish()
        data.view()
        data.view()
        self.assertEqual(1, len(self.started))
        with mock.patch('os.getpid', return_value=watcher._watching_pid + 1):
            data.view()
        self.assertEqual(2, len(self.started))

    def test_a_lost_part_of_a_generation_served_since_due(self):
        data = self.make_reader()
        watcher = self.watcher_of(data)
        self.publish()
        data.view()
        self.clock.now, self.wall = 0.5, T0 + 0.5
        self.publish()
        self.look(watcher)
        self.clock.now, self.wall = 1.5, T0 + 1.5
        view = data.view()
        watcher.lost(view.generation)
        self.assertEqual(generations.LOST_PARTS, data.view().trouble)

    def test_with_interval_0_every_request_reads(self):
        data = published.Published(
            {'default': self.store.reader}, 'default', check_interval=0,
            stale_after=300, retry_after=5, clock=self.clock,
            wall_clock=lambda: self.wall)
        watcher = self.watcher_of(data)
        self.publish()
        for _ in range(3):
            data.view()
        self.assertEqual([], self.started)
        self.assertEqual(3, watcher.checks)


class TestWatcherThread(test_base.BaseTestCase):
    """The real thread, real clocks: what it reads, requests serve."""

    def test_a_new_generation_served_without_a_read_by_requests(self):
        backend = base.FlakyBackend()
        store = publisher.Publisher(backend, 'test', 0)
        # A request reads itself once the thread is a whole interval late:
        # an interval long enough that a loaded machine's thread is not.
        data = published.Published({'default': store.reader}, 'default',
                                   check_interval=2.0, stale_after=300,
                                   retry_after=5)
        watcher = data.cloud(None).watcher
        watcher.watch_in_background()
        self.addCleanup(watcher.close)
        readers = []
        current = store.reader.current

        def recorded():
            readers.append(threading.current_thread().name)
            return current()
        self.useFixture(fixtures.MockPatchObject(
            store.reader, 'current', side_effect=recorded))
        now = datetime.datetime.now(datetime.timezone.utc)
        first = store.publish({'a': b'1'}, pointer_at(time.time()),
                              now)[pub.GENERATION]
        self.assertEqual(first, data.view().generation.id)
        del readers[:]  # the first request reads: nothing was held
        second = store.publish({'a': b'2'}, pointer_at(time.time()),
                               now)[pub.GENERATION]
        deadline = time.monotonic() + 30
        while data.view().generation.id != second:
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.01)
        self.assertEqual({'generation-watcher'}, set(readers))


class TestAnswers(base.ApiTestCase):
    """Answers made from published documents, once per version."""

    def setUp(self):
        super().setUp()
        self.publish()
        self.data = published.Published(
            {'default': self.store.reader}, 'default', check_interval=1.0,
            stale_after=300, retry_after=5)

    def get(self, path, status=200):
        """The answer of the Pecan app serving self.data."""
        served = webtest.TestApp(app.make_pecan_app(self.conf,
                                                    data=self.data))
        return served.get(path, status=status)

    def test_filtered_list_made_once(self):
        first = self.get('/v3/flavors/?name=gpu')
        gets = self.backend.gets
        again = self.get('/v3/flavors/?name=gpu')
        self.assertEqual(first.body, again.body)
        self.assertEqual(first.headers['ETag'], again.headers['ETag'])
        self.assertEqual(gets, self.backend.gets)

    def test_stale_copy_differs_by_its_flag_only(self):
        fresh = self.get('/v3/flavors/')
        self.wall_clock_ahead(10_000)
        stale = self.get('/v3/flavors/')
        self.assertEqual(dict(fresh.json, stale=True), stale.json)
        self.assertNotEqual(fresh.headers['ETag'], stale.headers['ETag'])
        self.assertEqual(fresh.headers['Last-Modified'],
                         stale.headers['Last-Modified'])

    def wall_clock_ahead(self, seconds):
        self.data = published.Published(
            {'default': self.store.reader}, 'default', check_interval=1.0,
            stale_after=300, retry_after=5,
            wall_clock=lambda: time.time() + seconds)

    def test_unknown_flavors(self):
        self.assertEqual('No flavor has the id or name "nope".',
                         self.get('/v3/flavors/nope',
                                  404).json['error']['message'])
        self.assertEqual({'message': flavors.UNKNOWN_LEGACY_FLAVOR},
                         self.get('/gpus/flavors/nope', 404).json)
