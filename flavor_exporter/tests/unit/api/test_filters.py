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

import copy
import json

import webob.multidict

from flavor_exporter.api import errors
from flavor_exporter.api import filters
from flavor_exporter.tests import base
from flavor_exporter.tests import sample_cloud as sample


def params(*pairs):
    return webob.multidict.MultiDict(pairs)


def v3_list():
    docs, _ = sample.documents()
    return json.loads(docs['v3/flavors'])


class TestListQuery(base.BaseTestCase):

    def parse(self, *pairs):
        return filters.ListQuery.from_params(params(*pairs))

    def assertRefused(self, message, *pairs):
        exc = self.assertRaises(errors.BadRequest, self.parse, *pairs)
        self.assertIn(message, str(exc))

    def test_nothing(self):
        query = self.parse()
        self.assertEqual((None, None, None), query)
        self.assertEqual('v3/flavors', query.document())
        self.assertFalse(query.rewrites)

    def test_gpu(self):
        for value, wanted in (('true', True), ('True', True), ('1', True),
                              ('false', False), ('FALSE', False),
                              ('no', False)):
            query = self.parse(('gpu', value))
            self.assertIs(wanted, query.gpu)
            self.assertFalse(query.rewrites)
        self.assertEqual('v3/flavors?gpu=true',
                         self.parse(('gpu', 'yes')).document())
        self.assertEqual('v3/flavors?gpu=false',
                         self.parse(('gpu', '0')).document())

    def test_name_and_zone_rewrite(self):
        query = self.parse(('name', 'GPU'), ('availability_zone', 'az1'))
        self.assertEqual('gpu', query.name)
        self.assertEqual('az1', query.availability_zone)
        self.assertTrue(query.rewrites)

    def test_refused(self):
        self.assertRefused('"gpu" must be true or false, not "maybe"',
                           ('gpu', 'maybe'))
        self.assertRefused('Unknown query parameter(s): limit, zone',
                           ('zone', 'a'), ('limit', '1'))
        self.assertRefused('"name" was given 2 times',
                           ('name', 'a'), ('name', 'b'))
        self.assertRefused('"availability_zone" must not be empty',
                           ('availability_zone', ' '))
        self.assertRefused('longer than 255', ('name', 'x' * 256))

    def test_refuse_any(self):
        filters.refuse_any(params())
        exc = self.assertRaises(errors.BadRequest, filters.refuse_any,
                                params(('gpu', 'true')))
        self.assertIn('gpu', str(exc))


class TestApply(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.document = v3_list()
        self.zones = filters.known_zones(self.document)

    def apply(self, **kw):
        query = filters.ListQuery(**dict(
            {'gpu': None, 'availability_zone': None, 'name': None}, **kw))
        return filters.apply(query, self.document, self.zones)

    def test_known_zones(self):
        self.assertEqual({'az1', 'az2'}, self.zones)

    def test_name_substring_case_insensitive(self):
        result = self.apply(name='gpu.')
        self.assertEqual(['GPU.V100-small', 'gpu.a100'],
                         [f['name'] for f in result['flavors']])
        self.assertEqual(self.document['timestamp'], result['timestamp'])
        self.assertEqual([], self.apply(name='nothing')['flavors'])

    def test_zone_restricts_numbers(self):
        result = {f['id']: f for f in
                  self.apply(availability_zone='az2')['flavors']}
        self.assertEqual(5, len(result))
        self.assertEqual((4, 4), (result['1']['total'],
                                  result['1']['available']))
        self.assertEqual({'az2': {'total': 4, 'available': 4,
                                  'fragmented': 0}},
                         result['1']['availability_zones'])
        self.assertEqual(0, result['1']['fragmented'])
        # g1 has no host in az2.
        self.assertEqual(
            (0, 0, {'az2': {'total': 0, 'available': 0, 'fragmented': 0}}),
            (result['g1']['total'], result['g1']['available'],
             result['g1']['availability_zones']))
        # A flavor that could not be evaluated stays "unknown".
        self.assertIsNone(result['bad']['total'])
        self.assertIsNotNone(result['bad']['error'])

    def test_unknown_zone(self):
        exc = self.assertRaises(errors.BadRequest, self.apply,
                                availability_zone='nova')
        self.assertEqual('Unknown availability zone "nova". Known: az1, '
                         'az2.', str(exc))

    def test_input_not_modified(self):
        before = copy.deepcopy(self.document)
        self.apply(availability_zone='az1', name='m1')
        self.assertEqual(before, self.document)
