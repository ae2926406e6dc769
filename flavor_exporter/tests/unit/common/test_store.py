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

from flavor_exporter.common import cache
from flavor_exporter.common import store
from flavor_exporter.tests import base


class FailingBackend(cache.MemoryBackend):
    """Fails every write after the first `allowed` set_many calls."""

    def __init__(self, allowed):
        super().__init__()
        self.allowed = allowed

    def set_many(self, values, ttl):
        if self.allowed <= 0:
            raise cache.CacheError('down')
        self.allowed -= 1
        super().set_many(values, ttl)


class TestDocumentStore(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.store = store.DocumentStore(cache.MemoryBackend(), 'fe', 60)

    def test_cold(self):
        self.assertIsNone(self.store.current())
        self.assertIsNone(self.store.status())

    def test_publish_then_read(self):
        generation = self.store.publish({'a': b'1', 'b/c d': b'2'},
                                        {'timestamp': 't'})
        pointer = self.store.current()
        self.assertEqual({'timestamp': 't', 'generation': generation},
                         pointer)
        self.assertEqual(b'2', self.store.document(generation, 'b/c d'))
        self.assertIsNone(self.store.document(generation, 'missing'))

    def test_generations_do_not_mix(self):
        first = self.store.publish({'a': b'old'}, {})
        second = self.store.publish({'a': b'new'}, {})
        self.assertNotEqual(first, second)
        # A reader still holding the first pointer keeps a coherent view.
        self.assertEqual(b'old', self.store.document(first, 'a'))
        self.assertEqual(second, self.store.current()['generation'])

    def test_failed_publish_keeps_previous_pointer(self):
        backend = FailingBackend(allowed=3)
        docs = store.DocumentStore(backend, 'fe', 60)
        first = docs.publish({'a': b'1'}, {})
        # Documents written, pointer write fails: readers keep "first".
        self.assertRaises(cache.CacheError, docs.publish, {'a': b'2'}, {})
        self.assertEqual(first, docs.current()['generation'])

    def test_long_and_odd_names_make_valid_keys(self):
        key = self.store.document_key('g', 'v2/flavor/' + 'x y' * 200)
        self.assertLessEqual(len(key), 250)
        self.assertNotIn(' ', key)
        self.assertNotIn(' ', self.store.document_key('g', 'a b\nc'))

    def test_status_round_trip(self):
        self.store.write_status({'consecutive_failures': 2})
        self.assertEqual({'consecutive_failures': 2}, self.store.status())

    def test_documents_are_json_free_bytes(self):
        generation = self.store.publish({'doc': b'\x00raw'}, {'x': 1})
        self.assertEqual(b'\x00raw', self.store.document(generation, 'doc'))
        self.assertEqual(1, json.loads(json.dumps(self.store.current()))['x'])


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
