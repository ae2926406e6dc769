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

import calendar
import datetime
import time

from flavor_exporter.publication import contract as pub
from flavor_exporter.tests import base


class TestNames(base.BaseTestCase):

    def test_lists(self):
        self.assertEqual(pub.V3_LIST, pub.v3_list())
        self.assertEqual('v3/flavors?gpu=true', pub.v3_list(True))
        self.assertEqual('v3/flavors?gpu=false', pub.v3_list(False))

    def test_one_flavor(self):
        self.assertEqual('v3/flavor/f1', pub.v3_flavor('f1'))


class TestKeys(base.BaseTestCase):

    def test_part_names(self):
        entry = pub.Entry('abc', 1800000000, 2)
        self.assertEqual(['blob/abc-1800000000-0', 'blob/abc-1800000000-1'],
                         entry.part_names())
        self.assertEqual('fe:blob/abc-1800000000-0',
                         pub.key('fe', entry.part_names()[0]))

    def test_long_names_hashed_within_memcached_limits(self):
        key = pub.key('fe', 'v3/flavor/' + 'x y' * 200)
        self.assertLessEqual(len(key), 250)
        self.assertNotEqual(key, pub.key('fe', 'v3/flavor/' + 'x z' * 200))

    def test_no_control_characters(self):
        key = pub.key('fe', 'a b\nc\x00')
        self.assertFalse(any(c.isspace() or ord(c) < 32 for c in key))


class TestContent(base.BaseTestCase):

    def test_identity_and_etag_follow_the_bytes(self):
        self.assertEqual(pub.identity(b'a'), pub.identity(b'a'))
        self.assertNotEqual(pub.identity(b'a'), pub.identity(b'b'))
        self.assertNotEqual(pub.Entry('i', 1, 1).etag,
                            pub.Entry('i', 2, 1).etag)

    def test_split(self):
        body = b'x' * (pub.PART_BYTES * 2 + 1)
        self.assertEqual(body, b''.join(pub.split(body)))
        self.assertEqual(3, len(pub.split(body)))
        self.assertEqual([b''], pub.split(b''))

    def test_stamps(self):
        template = pub.encode({'t': pub.COLLECTED_AT,
                               'name': 'a@collected-at@'})
        stamped = pub.stamp(template, pub.COLLECTED_AT,
                            '2027-01-15T08:00:00Z')
        self.assertEqual({'t': '2027-01-15T08:00:00Z',
                          'name': 'a@collected-at@'}, pub.decode(stamped))
        both = pub.encode({'t': pub.COLLECTED_AT,
                           'legacy': pub.LEGACY_COLLECTED_AT})
        first_seen = calendar.timegm((2027, 1, 15, 8, 0, 0))
        stamped = pub.decode(pub.stamped(both, first_seen))
        self.assertEqual('2027-01-15T08:00:00Z', stamped['t'])
        # The predecessor's format: local time, no zone.
        self.assertEqual(time.strftime('%Y-%m-%d %H:%M:%S',
                                       time.localtime(first_seen)),
                         stamped['legacy'])

    def test_marked_stale_flips_the_heads_flag_only(self):
        body = pub.encode({'timestamp': 't', 'stale': False, 'flavors': [
            {'name': '"stale":false', 'stale': False}]})
        marked = pub.decode(pub.marked_stale(body))
        self.assertIs(True, marked['stale'])
        self.assertEqual({'name': '"stale":false', 'stale': False},
                         marked['flavors'][0])

    def test_manifest_round_trip(self):
        entries = {'b': pub.Entry('x', 1, 1), 'a': pub.Entry('y', 2, 3)}
        self.assertEqual(entries, pub.manifest_entries(
            pub.decode(pub.encode_manifest(entries))))


class TestEncoding(base.BaseTestCase):

    def test_compact_utf8(self):
        self.assertEqual('{"a":[1,2],"n":"Grüße"}'.encode('utf-8'),
                         pub.encode({'a': [1, 2], 'n': 'Grüße'}))
        self.assertEqual({'n': 'Grüße'},
                         pub.decode(pub.encode({'n': 'Grüße'})))
        self.assertIsNone(pub.decode(None))


class TestPointer(base.BaseTestCase):

    def test_fields_and_timestamps(self):
        moment = datetime.datetime(2027, 1, 15, 8, 0, 0,
                                   tzinfo=datetime.timezone.utc)
        pointer = pub.pointer(moment, 'placement', 3, 12)
        self.assertEqual({pub.FORMAT, pub.TIMESTAMP, pub.SOURCE,
                          pub.FLAVOR_COUNT, pub.API_CALLS}, set(pointer))
        self.assertEqual(pub.FORMAT_VERSION, pointer[pub.FORMAT])
        self.assertEqual('2027-01-15T08:00:00Z', pointer[pub.TIMESTAMP])
        self.assertEqual(moment.timestamp(),
                         pub.epoch(pointer[pub.TIMESTAMP]))

    def test_unreadable_timestamp(self):
        self.assertIsNone(pub.epoch(None))
        self.assertIsNone(pub.epoch('yesterday'))

    def test_initial_status(self):
        status = pub.initial_status()
        self.assertEqual(0, status[pub.CONSECUTIVE_FAILURES])
        self.assertIsNone(status[pub.LAST_ERROR])


class TestHostRows(base.BaseTestCase):

    def test_rows_from_columns_and_index(self):
        numbers = {pub.POSITION: [1, pub.HOSTS_PER_PAGE],
                   pub.TOTAL: [4, 2], pub.AVAILABLE: [3, 0],
                   pub.LIMITED_BY: [0, -1], pub.LABELS: ['VCPU'],
                   pub.EXCLUDED: {'disabled': 1}}
        pages = {0: {pub.HOST: ['a', 'b'], pub.NODE: ['a.x', 'b.x'],
                     pub.ZONE: ['az1', 'az2']},
                 1: {pub.HOST: ['c'], pub.NODE: ['c.x'], pub.ZONE: [None]}}
        self.assertEqual(
            [{'host': 'b', 'node': 'b.x', 'availability_zone': 'az2',
              'total': 4, 'available': 3, 'limited_by': 'VCPU'},
             {'host': 'c', 'node': 'c.x', 'availability_zone': None,
              'total': 2, 'available': 0, 'limited_by': None}],
            pub.with_hosts({pub.FLAVOR: {pub.ID: 'f'}}, numbers,
                           pages.__getitem__)[pub.FLAVOR][pub.HOSTS])
        with_hosts = pub.with_hosts({pub.STALE: False,
                                     pub.FLAVOR: {pub.ID: 'f'}},
                                    numbers, pages.__getitem__)
        self.assertEqual([pub.ID, pub.HOSTS, pub.EXCLUDED],
                         list(with_hosts[pub.FLAVOR]))
        self.assertEqual({'disabled': 1}, with_hosts[pub.FLAVOR][pub.EXCLUDED])
        self.assertIs(False, with_hosts[pub.STALE])
        self.assertTrue(pub.is_hosts_page(pub.hosts_page(3)))
        self.assertFalse(pub.is_hosts_page(pub.v3_flavor('hosts')))
