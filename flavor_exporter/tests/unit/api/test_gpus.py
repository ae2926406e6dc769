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
"""GPU types: /v3/gpus, /v3/gpus/{gpu_type} and the predecessor's /gpus.

The sample cloud (tests/sample_cloud.py) has 4 a100 on cmp000 (az1, 2
used) and 2 v100 on each of cmp001 (az2) and cmp002 (az2, disabled: its
two are stranded), all from GPU host aggregates.
"""

import datetime

from flavor_exporter.publication import contract as pub
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.tests.unit.api import base
from flavor_exporter.tests.unit.api import test_policy

DISABLED = 'compute service disabled'


def figures(total, used, free, stranded=0, stranded_by=None):
    return {'total': total, 'used': used, 'free': free,
            'stranded': stranded, 'stranded_by': stranded_by or {},
            'fragmented': 0}


A100 = dict({'type': 'a100', 'resource_class': None, 'traits': [],
             'counted_from': ['aggregates']}, **figures(4, 2, 2),
            fragmented_by_flavor={'gpu.a100': 0},
            availability_zones={'az1': figures(4, 2, 2)})
V100 = dict({'type': 'v100', 'resource_class': None, 'traits': [],
             'counted_from': ['aggregates']},
            **figures(4, 0, 4, 2, {DISABLED: 2}),
            fragmented_by_flavor={'GPU.V100-small': 0},
            availability_zones={'az2': figures(4, 0, 4, 2, {DISABLED: 2})})


class TestV2(base.ApiTestCase):

    def test_list_served_as_published(self):
        docs = self.publish()
        for path in ('/v3/gpus/', '/v3/gpus', '/v3/clouds/default/gpus/'):
            response = self.app.get(path)
            self.assertEqual(docs[pub.V3_GPUS], response.body, path)
        body = response.json
        self.assertEqual(['timestamp', 'source', 'stale', 'partial',
                          'unreadable_host_count', 'gpus'], list(body))
        self.assertEqual([A100, V100], body['gpus'])

    def test_validators_and_staleness(self):
        self.publish()
        first = self.app.get('/v3/gpus/')
        self.assertEqual(304, self.app.get('/v3/gpus/', headers={
            'If-None-Match': first.headers['ETag']}).status_int)
        self.publish(age=3600)
        stale = self.app.get('/v3/gpus/')
        self.assertIs(True, stale.json['stale'])
        self.assertEqual('true', stale.headers['X-Flavor-Exporter-Stale'])
        self.assertNotEqual(first.headers['ETag'], stale.headers['ETag'])

    def test_availability_zone(self):
        self.publish()
        body = self.app.get('/v3/gpus/?availability_zone=az2').json
        self.assertEqual(
            [dict(A100, **figures(0, 0, 0), availability_zones={}), V100],
            body['gpus'])
        self.assertIs(False, body['stale'])

    def test_bad_queries(self):
        self.publish()
        for query, message in (
                ('availability_zone=nowhere', 'Unknown availability zone'),
                ('availability_zone=', 'must not be empty'),
                ('availability_zone=az1&availability_zone=az2', 'once'),
                ('gpu=true', 'Unknown query parameter(s): gpu')):
            self.assertJsonError(self.app.get('/v3/gpus/?' + query,
                                              status=400), 400, message)

    def test_one_type_with_its_hosts(self):
        docs = self.publish()
        body = self.app.get('/v3/gpus/v100').json
        self.assertEqual(['timestamp', 'source', 'stale', 'partial',
                          'unreadable_host_count', 'gpu'], list(body))
        hosts = body['gpu'].pop('hosts')
        self.assertEqual(V100, body['gpu'])
        row = {'availability_zone': 'az2', 'total': 2, 'used': 0,
               'free': 2}
        self.assertEqual([
            dict(row, host='cmp001', node='cmp001.example.org', stranded=0,
                 blocked_by=None),
            dict(row, host='cmp002', node='cmp002.example.org', stranded=2,
                 blocked_by=DISABLED)], hosts)
        self.assertEqual(self.app.get('/v3/clouds/default/gpus/v100/').body,
                         self.app.get('/v3/gpus/v100').body)
        self.assertNotEqual(docs[pub.v3_gpu('v100')],
                            self.app.get('/v3/gpus/v100').body)

    def test_unknown_type_and_cloud(self):
        self.publish()
        self.assertJsonError(self.app.get('/v3/gpus/A100', status=404), 404,
                             'No GPU type is named "A100"')
        self.assertJsonError(self.app.get('/v3/clouds/west/gpus/',
                                          status=404), 404, 'No cloud')
        self.assertJsonError(self.app.get('/v3/gpus/v100?x=1', status=400),
                             400, 'takes none')

    def test_data_of_a_worker_without_gpu_types(self):
        # Published by a release before GPU types: the same format, the
        # documents absent. Nothing is known of any type.
        collected_at = datetime.datetime.now(datetime.timezone.utc)
        docs, pointer = sample.documents(collected_at=collected_at)
        docs = {name: body for name, body in docs.items()
                if 'gpu/' not in name and not name.endswith('gpus')}
        self.store.publish(docs, pointer, collected_at)
        for path in ('/v3/gpus/', '/v3/gpus/v100', '/v3/gpus/unknown'):
            self.assertJsonError(self.app.get(path, status=503), 503,
                                 'no v3/gpus document')
        for path in ('/gpus', '/gpus/v100', '/gpus/unknown'):
            self.assertJsonError(self.app.get(path, status=503), 503,
                                 'no legacy/gpus document', legacy=True)
        self.assertEqual(200, self.app.get('/v3/flavors/').status_int)


class TestLegacy(base.ApiTestCase):
    """The predecessor's first openapi.yaml: a bare list, no timestamp."""

    def test_list(self):
        docs = self.publish()
        for path in ('/gpus', '/gpus/', '/gpus/?_=1234'):
            response = self.app.get(path)
            self.assertEqual(docs[pub.LEGACY_GPUS], response.body)
        self.assertEqual(
            b'[{"type":"a100","used_slots":2,"free_slots":2,'
            b'"total_slots":4},{"type":"v100","used_slots":0,'
            b'"free_slots":4,"total_slots":4}]', response.body)

    def test_one(self):
        self.publish()
        self.assertEqual(b'{"type":"a100","used_slots":2,"free_slots":2,'
                         b'"total_slots":4}',
                         self.app.get('/gpus/a100').body)
        self.assertEqual(200, self.app.get('/gpus/a100/').status_int)

    def test_unknown_type(self):
        self.publish()
        response = self.app.get('/gpus/A100', status=404)
        self.assertEqual(b'{"message":"Unknown GPU type!"}', response.body)
        self.assertEqual('application/json', response.content_type)


class TestPolicy(test_policy.PolicyTestCase):

    def setUp(self):
        super().setUp()
        reader = self.store.reader
        self.served = {name: reader.read(entry) for name, entry in
                       reader.manifest(reader.current()).items()}

    def test_members_see_the_types_not_the_hosts(self):
        member = test_policy.MEMBER
        self.assertEqual(['a100', 'v100'], [
            t['type'] for t in self.get('/v3/gpus/', member).json['gpus']])
        # The published document as it is: no per-host rows.
        self.assertEqual(self.served[pub.v3_gpu('v100')],
                         self.get('/v3/gpus/v100', member).body)
        self.assertEqual(2, len(self.get('/gpus', member).json))
        self.get('/gpus/v100', member)

    def test_readers_see_the_hosts(self):
        for caller in (test_policy.ADMIN, test_policy.SYSTEM_READER):
            self.assertEqual(['cmp001', 'cmp002'], [
                row['host'] for row in self.get(
                    '/v3/gpus/v100', caller).json['gpu']['hosts']])
