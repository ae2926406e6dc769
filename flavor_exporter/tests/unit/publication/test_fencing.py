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
"""Fencing and replicas of the pointer, on real memcached servers."""

import datetime

from testcloud import loopback

from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base

T0 = datetime.datetime(2027, 1, 15, 8, 0, 0, tzinfo=datetime.timezone.utc)


def later(seconds):
    return T0 + datetime.timedelta(seconds=seconds)


class FencingTests:
    """The same checks for every backend; make_backend() gives one."""

    def make_store(self):
        return publisher.Publisher(self.make_backend(), 'fe', 3600)

    def test_a_stale_publisher_is_fenced(self):
        leader, paused = self.make_store(), self.make_store()
        first = leader.publish({'a': b'1'}, {}, T0)
        # paused reads the pointer, then collects for a long time...
        base = paused.reader.current()
        newer = leader.publish({'a': b'2'}, {}, later(60), base=first)
        exc = self.assertRaises(publisher.Superseded, paused.publish,
                                {'a': b'old'}, {}, later(1), base=base)
        self.assertIn('another worker published generation 2 while this '
                      'one worked from generation 1', str(exc))
        self.assertEqual(newer, leader.reader.current())
        self.assertEqual(b'2', leader.reader.document(
            leader.reader.current(), 'a'))

    def test_two_publishers_from_one_base(self):
        one, two = self.make_store(), self.make_store()
        base = one.publish({'a': b'1'}, {}, T0)
        won = one.publish({'a': b'2'}, {}, later(1), base=base)
        self.assertRaises(publisher.Superseded, two.publish, {'a': b'3'}, {},
                          later(2), base=base)
        self.assertEqual(won, two.reader.current())

    def test_cold_cache_is_added_once(self):
        one, two = self.make_store(), self.make_store()
        one.publish({'a': b'1'}, {}, T0, base=None)
        self.assertRaises(publisher.Superseded, two.publish, {'a': b'2'}, {},
                          T0, base=None)
        self.assertEqual(1, two.reader.current()[pub.SEQUENCE])

    def test_taking_over_continues_the_sequence(self):
        one, two = self.make_store(), self.make_store()
        one.publish({'a': b'1'}, {}, T0)
        one.publish({'a': b'2'}, {}, later(1))
        took_over = two.publish({'a': b'3'}, {}, later(2))
        self.assertEqual(3, took_over[pub.SEQUENCE])
        # The first publisher, resuming, carries on from the second.
        self.assertEqual(4, one.publish({'a': b'4'}, {},
                                        later(3))[pub.SEQUENCE])
        self.assertEqual(b'4', two.reader.document(two.reader.current(),
                                                   'a'))


class TestFencingInMemory(FencingTests, base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.backend = cache.MemoryBackend()

    def make_backend(self):
        return self.backend


class TestFencingOnMemcached(FencingTests, base.BaseTestCase):
    """Three real memcached servers, as a deployment runs them."""

    def setUp(self):
        super().setUp()
        self.servers = [self.useFixture(loopback.MemcachedFixture())
                        for _ in range(3)]

    def make_backend(self, dead_retry=5):
        backend = cache.MemcachedBackend(
            [s.servers[0] for s in self.servers], socket_timeout=5,
            dead_retry=dead_retry)
        self.addCleanup(backend.close)
        return backend

    def pointer_copies(self):
        key = pub.key('fe', pub.POINTER_NAME)
        copies = []
        for server in self.servers:
            backend = cache.MemcachedBackend(server.servers)
            self.addCleanup(backend.close)
            copies.append(pub.decode(backend.get(key)))
        return copies

    def test_the_pointer_is_on_every_server(self):
        pointer = self.make_store().publish({'a': b'1'}, {}, T0)
        self.assertEqual([pointer] * 3, self.pointer_copies())

    def test_losing_a_server_loses_no_answer(self):
        publisher = self.make_store()
        documents = {'doc%d' % i: b'%d' % i for i in range(30)}
        pointer = publisher.publish(documents, {}, T0)
        self.servers[1].stop()
        reader = self.make_store().reader
        self.assertEqual(pointer, reader.current())
        # Its parts went with it: the publisher notices and writes
        # everything again on the two servers left.
        self.assertTrue(publisher.lost_parts(pointer))
        again = publisher.publish(documents, {}, T0, rewrite=True,
                                  base=pointer)
        self.assertFalse(publisher.lost_parts(again))
        manifest = reader.manifest(reader.current())
        self.assertEqual({name: body for name, body in documents.items()},
                         {name: reader.read(entry)
                          for name, entry in manifest.items()})

    def test_a_server_back_empty_gets_the_pointer_again(self):
        publisher = self.make_store()
        pointer = publisher.publish({'a': b'1'}, {}, T0)
        self.servers[2].restart()
        self.assertTrue(publisher.lost_parts(pointer))
        again = publisher.publish({'a': b'1'}, {}, T0, rewrite=True,
                                  base=pointer)
        self.assertEqual([again] * 3, self.pointer_copies())

    def test_a_dead_server_is_skipped_until_dead_retry(self):
        backend = self.make_backend(dead_retry=3600)
        self.servers[0].stop()
        replica = backend.replicas[0]
        self.assertRaises(cache.CacheError, backend.gets_replica, replica,
                          'k')
        self.servers[0].start()
        # Marked dead: not tried again, so a dead server costs one
        # timeout per dead_retry, not one per read.
        exc = self.assertRaises(cache.CacheError, backend.gets_replica,
                                replica, 'k')
        self.assertIn('marked dead', str(exc))
