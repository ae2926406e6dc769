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

import fixtures

from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.publication import reader as reader_mod
from flavor_exporter.tests import base

T0 = datetime.datetime(2027, 1, 15, 8, 0, 0, tzinfo=datetime.timezone.utc)


def minutes(n):
    return T0 + datetime.timedelta(minutes=n)


class RecordingBackend(cache.MemoryBackend):
    """Remembers the keys of each write; fails writes once `allowed` ends."""

    def __init__(self, allowed=None):
        super().__init__()
        self.allowed = allowed
        self.writes = []
        self.deleted = []

    def set_many(self, values, ttl):
        if self.allowed is not None:
            if self.allowed <= 0:
                raise cache.CacheError('down')
            self.allowed -= 1
        self.writes.append(sorted(values))
        super().set_many(values, ttl)

    def cas_replica(self, replica, key, value, token, ttl):
        # The pointer: recorded as a write of its own.
        if self.allowed is not None:
            if self.allowed <= 0:
                raise cache.CacheError('down')
            self.allowed -= 1
        self.writes.append([key])
        return super().cas_replica(replica, key, value, token, ttl)

    def delete_many(self, keys):
        self.deleted.extend(keys)
        super().delete_many(keys)

    def ring(self):
        # The servers the keys hash to: a test changes them.
        return getattr(self, 'servers', super().ring())


DOC = b'{"timestamp":"%s","n":1}' % pub.encode(pub.COLLECTED_AT)[1:-1]


class TestDocumentStore(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.backend = RecordingBackend()
        self.now = 1_000_000.0
        self.store = self.make_store()

    def make_store(self, ttl=0):
        return publisher.Publisher(self.backend, 'fe', ttl,
                                   clock=lambda: self.now)

    def publish(self, documents, moment=T0, **kw):
        return self.store.publish(documents, {'timestamp': 'x'}, moment,
                                  **kw)

    def read(self, pointer, name):
        return self.store.reader.document(pointer, name)

    def test_cold(self):
        self.assertIsNone(self.store.reader.current())
        self.assertIsNone(self.store.reader.status())

    def test_publish_then_read(self):
        pointer = self.publish({'a': b'1', 'b/c d': b'2'})
        self.assertEqual(pointer, self.store.reader.current())
        self.assertEqual('x', pointer['timestamp'])
        self.assertEqual(1, pointer[pub.SEQUENCE])
        self.assertEqual(b'2', self.read(pointer, 'b/c d'))
        self.assertIsNone(self.read(pointer, 'missing'))
        self.assertEqual({'a', 'b/c d'},
                         set(self.store.reader.manifest(pointer)))

    def test_collected_at_is_when_the_content_changed(self):
        first = self.publish({'a': DOC})
        self.assertEqual(b'{"timestamp":"2027-01-15T08:00:00Z","n":1}',
                         self.read(first, 'a'))
        second = self.publish({'a': DOC}, minutes(5))
        self.assertEqual(self.read(first, 'a'), self.read(second, 'a'))
        self.assertEqual(self.store.reader.manifest(first),
                         self.store.reader.manifest(second))
        third = self.publish({'a': DOC.replace(b'1', b'2')}, minutes(10))
        self.assertIn(b'08:10:00Z', self.read(third, 'a'))
        self.assertNotEqual(self.store.reader.manifest(first)['a'].etag,
                            self.store.reader.manifest(third)['a'].etag)

    def test_nothing_changed_writes_only_the_pointer(self):
        self.publish({'a': DOC, 'b': b'2'})
        self.backend.writes = []
        pointer = self.publish({'a': DOC, 'b': b'2'}, minutes(5))
        self.assertEqual([[pub.key('fe', pub.POINTER_NAME)]],
                         self.backend.writes)
        self.assertEqual(2, pointer[pub.SEQUENCE])

    def test_the_same_documents_are_not_hashed_again(self):
        # A refresh whose inputs did not change hands the very same bytes
        # again (refresh.py keeps them): ~100 MB at 10,000 x 1,000.
        hashed = []
        real = pub.identity

        def identity(body):
            hashed.append(body)
            return real(body)
        self.useFixture(fixtures.MonkeyPatch(
            'flavor_exporter.publication.contract.identity', identity))
        a, b = DOC + b' ', b'2'
        first = self.publish({'a': a, 'b': b})
        self.assertEqual([a, b], hashed[:2])
        del hashed[:]
        second = self.publish({'a': a, 'b': b}, minutes(5))
        self.assertNotIn(a, hashed)
        self.assertNotIn(b, hashed)
        self.assertEqual(self.store.reader.manifest(first),
                         self.store.reader.manifest(second))
        # Equal bytes in a new object are hashed, and are the same entry;
        # other bytes are a new one.
        del hashed[:]
        same = bytes(bytearray(a))
        third = self.publish({'a': same, 'b': b'3'}, minutes(10))
        self.assertEqual([same, b'3'], hashed[:2])
        manifest = self.store.reader.manifest(third)
        self.assertEqual(self.store.reader.manifest(first)['a'],
                         manifest['a'])
        self.assertNotEqual(self.store.reader.manifest(first)['b'],
                            manifest['b'])
        self.assertEqual(b'3', self.read(third, 'b'))

    def test_one_change_writes_that_document_and_the_manifest(self):
        self.publish({'a': DOC, 'b': b'2'})
        self.backend.writes = []
        pointer = self.publish({'a': DOC, 'b': b'3'}, minutes(5))
        written = self.backend.writes[0]
        entries = self.store.reader.manifest(pointer)
        expected = (entries['b'].part_names()
                    + pub.Entry(*pointer[pub.MANIFEST]).part_names())
        self.assertEqual(sorted(pub.key('fe', n) for n in expected),
                         written)

    def test_large_documents_are_stored_in_parts(self):
        big = b'"%s"' % (b'x' * (2 * pub.PART_BYTES + 10))
        pointer = self.publish({'big': big})
        self.assertEqual(3, self.store.reader.manifest(pointer)['big'].parts)
        self.assertEqual(big, self.read(pointer, 'big'))
        self.assertLessEqual(max(len(v) for v, *_ in
                                 self.backend._items.values()),
                             pub.PART_BYTES)

    def test_about_two_generations_stay_in_the_cache(self):
        first = self.publish({'a': b'1', 'keep': b'k'})
        keep = self.store.reader.manifest(first)['keep']
        second = self.publish({'a': b'2', 'keep': b'k'}, minutes(1))
        self.assertEqual([], self.backend.deleted)
        # Readers of the previous generation still find its documents.
        self.assertEqual(b'1', self.read(first, 'a'))
        self.publish({'a': b'3', 'keep': b'k'}, minutes(2))
        self.assertRaises(reader_mod.MissingData, self.read, first, 'a')
        self.assertEqual(b'2', self.read(second, 'a'))
        self.assertEqual(b'k', self.store.reader.read(keep))
        # The first manifest and the first 'a' went; nothing else.
        self.assertEqual(2, len(self.backend.deleted))

    def test_a_new_publisher_carries_on(self):
        first = self.publish({'a': DOC})
        self.store = self.make_store()
        self.backend.writes = []
        second = self.publish({'a': DOC}, minutes(5))
        self.assertEqual([[pub.key('fe', pub.POINTER_NAME)]],
                         self.backend.writes)
        self.assertEqual(2, second[pub.SEQUENCE])
        self.assertEqual(self.read(first, 'a'), self.read(second, 'a'))

    def test_a_restarted_cache_gets_everything_again(self):
        self.publish({'a': DOC, 'b': b'2'})
        self.backend._items.clear()
        pointer = self.publish({'a': DOC, 'b': b'2'}, minutes(5))
        self.assertEqual(b'2', self.read(pointer, 'b'))

    def test_parts_move_when_the_ring_changes(self):
        # A server marked dead, or back after dead_retry: readers look
        # for some parts elsewhere than where they were written.
        pointer = self.publish({'a': DOC, 'b': b'2'})
        self.assertFalse(self.store.lost_parts(pointer))
        self.backend.servers = frozenset(['one', 'three'])
        self.assertTrue(self.store.lost_parts(pointer))
        self.backend.writes = []
        again = self.publish({'a': DOC, 'b': b'2'}, minutes(1))
        # a, b and the manifest, all written again.
        self.assertEqual(3, len(self.backend.writes[0]))
        self.assertFalse(self.store.lost_parts(again))

    def test_publishers_take_turns(self):
        other = self.make_store()
        self.publish({'a': DOC, 'b': b'2'})
        other.publish({'a': DOC, 'b': b'3'}, {}, minutes(5))
        self.backend.writes = []
        pointer = self.publish({'a': DOC, 'b': b'3'}, minutes(10))
        # What the other one wrote is not written again.
        self.assertEqual([[pub.key('fe', pub.POINTER_NAME)]],
                         self.backend.writes)
        self.assertEqual(3, pointer[pub.SEQUENCE])
        # b changed when the other one published it.
        self.assertEqual(pub.epoch('2027-01-15T08:05:00Z'),
                         self.store.reader.manifest(pointer)['b'].changed_at)

    def test_rewrite_writes_everything_again(self):
        self.publish({'a': DOC, 'b': b'2'})
        self.backend._items.clear()  # as a restarted memcached
        pointer = self.publish({'a': DOC, 'b': b'2'}, minutes(5),
                               rewrite=True)
        self.assertIn(b'08:00:00Z', self.read(pointer, 'a'))
        self.assertEqual(b'2', self.read(pointer, 'b'))

    def test_parts_in_use_are_written_again_before_they_expire(self):
        self.store = self.make_store(ttl=600)
        self.publish({'a': b'1'})
        self.now += 200
        self.backend.writes = []
        self.publish({'a': b'1'}, minutes(1))
        self.assertEqual([[pub.key('fe', pub.POINTER_NAME)]],
                         self.backend.writes)
        self.now += 200  # 400 s after the first write: over ttl / 2
        self.backend.writes = []
        self.publish({'a': b'1'}, minutes(2))
        # The document and the manifest, then the pointer.
        self.assertEqual([2, 1], [len(w) for w in self.backend.writes])

    def test_failed_publish_keeps_previous_pointer(self):
        self.backend.allowed = 2
        first = self.publish({'a': b'1'})
        # Documents written, pointer write fails: readers keep "first".
        self.assertRaises(cache.CacheError, self.publish, {'a': b'2'})
        self.assertEqual(first, self.store.reader.current())

    def test_status_round_trip(self):
        self.store.write_status({'consecutive_failures': 2})
        self.assertEqual({'consecutive_failures': 2},
                         self.store.reader.status())


class TestMemoryBackend(base.BaseTestCase):

    def test_expiry(self):
        backend = cache.MemoryBackend()
        backend.set_many({'k': b'v'}, ttl=-1)
        self.assertIsNone(backend.get('k'))
        backend.set_many({'k': b'v'}, ttl=0)
        self.assertEqual(b'v', backend.get('k'))

    def test_server_address(self):
        self.assertEqual(('::1', 11211), cache._server_address('[::1]:11211'))
        self.assertRaises(ValueError, cache._server_address, 'localhost')
