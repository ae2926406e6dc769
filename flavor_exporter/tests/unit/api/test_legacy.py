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
"""/gpus/flavors: the predecessor's shapes, byte for byte."""

import dataclasses
import json
import re

from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.tests.unit.api import base

LEGACY_FIELDS = ['flavor_openstack_id', 'flavor_name', 'available', 'total']
LEGACY_TIME = re.compile(r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$')


class TestLegacy(base.ApiTestCase):

    def test_list_with_and_without_slash(self):
        docs = self.publish()
        for path in ('/gpus/flavors', '/gpus/flavors/'):
            response = self.app.get(path)
            self.assertEqual(200, response.status_int)
            self.assertEqual('application/json',
                             response.headers['Content-Type'])
            self.assertEqual(docs['legacy/flavors'], response.body)
            body = response.json
            self.assertEqual(['flavors', 'timestamp'], list(body))
            self.assertRegex(body['timestamp'], LEGACY_TIME)
            self.assertEqual(['g2', 'g1'], [f['flavor_openstack_id']
                                            for f in body['flavors']])
            for flavor in body['flavors']:
                self.assertEqual(LEGACY_FIELDS, list(flavor))

    def test_one(self):
        docs = self.publish()
        response = self.app.get('/gpus/flavors/g1')
        self.assertEqual(['flavor', 'timestamp'], list(response.json))
        listed = json.loads(docs['legacy/flavors'])
        self.assertEqual(listed['timestamp'], response.json['timestamp'])
        # Compact JSON, like the predecessor's and the list.
        self.assertEqual(json.dumps(response.json, separators=(',', ':'))
                         .encode(), response.body)
        self.assertEqual({'flavor_openstack_id': 'g1',
                          'flavor_name': 'gpu.a100', 'available': 2,
                          'total': 4}, response.json['flavor'])
        self.assertEqual(200, self.app.get('/gpus/flavors/g1/').status_int)

    def test_unknown_flavor(self):
        self.publish()
        for path in ('/gpus/flavors/nope', '/gpus/flavors/1'):
            response = self.app.get(path, status=404)
            # Exactly the predecessor's body: portals compare it.
            self.assertEqual(b'{"message":"Unknown flavor id!"}',
                             response.body)
            self.assertEqual('application/json', response.content_type)

    def test_unknown_ids_cost_no_cache_round_trip(self):
        # Only the pointer would be read, and not within a minute.
        self.flags(group='api', generation_check_interval=60)
        self.publish()
        self.app.get('/gpus/flavors/nope', status=404)
        gets = self.backend.gets
        for i in range(10):
            self.app.get('/gpus/flavors/nope%d' % i, status=404)
        self.assertEqual(gets, self.backend.gets)

    def test_known_id_missing_from_cache_is_503(self):
        self.publish()
        self.forget('legacy/flavor/g1')
        self.assertJsonError(self.app.get('/gpus/flavors/g1', status=503),
                             503, 'the cache lost', legacy=True)

    def test_query_string_ignored(self):
        docs = self.publish()
        response = self.app.get('/gpus/flavors/?_=1234&gpu=maybe')
        self.assertEqual(docs['legacy/flavors'], response.body)

    def test_other_errors_in_legacy_shape(self):
        self.publish()
        self.assertJsonError(self.app.get('/gpus/a/b/c', status=404), 404,
                             '/gpus/a/b/c', legacy=True)
        self.assertJsonError(self.app.get('/gpus/flavors/a/b', status=404),
                             404, legacy=True)
        response = self.app.delete('/gpus/flavors/g1', status=405)
        self.assertJsonError(response, 405, 'not allowed here', legacy=True)

    def test_cold_cache(self):
        self.flags(group='api', retry_after=42)
        response = self.app.get('/gpus/flavors', status=503)
        self.assertJsonError(response, 503, 'No capacity data',
                             legacy=True)
        self.assertEqual('42', response.headers['Retry-After'])

    def test_stale_keeps_the_legacy_body(self):
        docs = self.publish(age=10_000)
        response = self.app.get('/gpus/flavors')
        self.assertEqual(docs['legacy/flavors'], response.body)
        self.assertEqual('true', response.headers['X-Flavor-Exporter-Stale'])

    def test_pollers_get_304_until_a_number_changes(self):
        self.publish(age=300)
        first = {path: self.app.get(path) for path in (
            '/gpus/flavors/', '/gpus/flavors/g1')}
        # Two more refreshes that read the same numbers.
        self.publish(age=150)
        self.publish()
        for path, response in first.items():
            again = self.app.get(path, headers={
                'If-None-Match': response.headers['ETag']}, status=304)
            self.assertEqual(response.headers['ETag'],
                             again.headers['ETag'])
            self.assertEqual(response.headers['Last-Modified'],
                             again.headers['Last-Modified'])
            # Its timestamp says when these numbers were first seen.
            self.assertEqual(response.body, self.app.get(path).body)
        flavors = sample.flavors()
        flavors[2] = dataclasses.replace(flavors[2], name='GPU.renamed')
        self.publish(flavors)
        changed = self.app.get('/gpus/flavors/', headers={
            'If-None-Match': first['/gpus/flavors/'].headers['ETag']})
        self.assertEqual(200, changed.status_int)
        self.assertNotEqual(first['/gpus/flavors/'].json['timestamp'],
                            changed.json['timestamp'])
