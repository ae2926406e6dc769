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

import testtools

from flavor_exporter.common import published as pub


class TestNames(testtools.TestCase):

    def test_lists(self):
        self.assertEqual(pub.V2_LIST, pub.v2_list())
        self.assertEqual('v2/flavors?gpu=true', pub.v2_list(True))
        self.assertEqual('v2/flavors?gpu=false', pub.v2_list(False))

    def test_one_flavor(self):
        self.assertEqual('legacy/flavor/f1', pub.legacy_flavor('f1'))
        self.assertEqual('v2/flavor/f1', pub.v2_flavor('f1'))
        self.assertNotEqual(pub.legacy_flavor('x'), pub.v2_flavor('x'))


class TestKeys(testtools.TestCase):

    def test_document_key(self):
        self.assertEqual('fe:g1/v2/flavor/a%20b',
                         pub.document_key('fe', 'g1', 'v2/flavor/a b'))

    def test_long_names_hashed_within_memcached_limits(self):
        key = pub.document_key('fe', 'g', 'v2/flavor/' + 'x y' * 200)
        self.assertLessEqual(len(key), 250)
        self.assertNotEqual(
            key, pub.document_key('fe', 'g', 'v2/flavor/' + 'x z' * 200))

    def test_no_control_characters(self):
        key = pub.key('fe', 'a b\nc\x00')
        self.assertFalse(any(c.isspace() or ord(c) < 32 for c in key))


class TestEncoding(testtools.TestCase):

    def test_compact_utf8(self):
        self.assertEqual('{"a":[1,2],"n":"Grüße"}'.encode('utf-8'),
                         pub.encode({'a': [1, 2], 'n': 'Grüße'}))
        self.assertEqual({'n': 'Grüße'},
                         pub.decode(pub.encode({'n': 'Grüße'})))
        self.assertIsNone(pub.decode(None))


class TestPointer(testtools.TestCase):

    def test_fields_and_timestamps(self):
        moment = datetime.datetime(2027, 1, 15, 8, 0, 0,
                                   tzinfo=datetime.timezone.utc)
        pointer = pub.pointer(moment, 'placement', 3, 12)
        self.assertEqual({pub.TIMESTAMP, pub.LEGACY_TIMESTAMP, pub.SOURCE,
                          pub.FLAVOR_COUNT, pub.API_CALLS}, set(pointer))
        self.assertEqual('2027-01-15T08:00:00Z', pointer[pub.TIMESTAMP])
        self.assertEqual(moment.timestamp(),
                         pub.epoch(pointer[pub.TIMESTAMP]))
        self.assertRegex(pointer[pub.LEGACY_TIMESTAMP],
                         r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$')

    def test_unreadable_timestamp(self):
        self.assertIsNone(pub.epoch(None))
        self.assertIsNone(pub.epoch('yesterday'))

    def test_initial_status(self):
        status = pub.initial_status()
        self.assertEqual(0, status[pub.CONSECUTIVE_FAILURES])
        self.assertIsNone(status[pub.LAST_ERROR])
