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
"""/v2/flavors/: the seed's list, as its live client reads it.

The OpenStackFlavorExporter's client (the de.NBI SimpleVM portal backend)
takes a JSON list and casts each item's fields; a missing field becomes
0 or "" and a null drops the flavor, both silently. So every item must
have every field, of the right type, with the numbers /v3 serves.
"""

import json

from flavor_exporter.publication import contract as pub
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.tests.unit.api import base


def as_the_portal_reads(body):
    """What the portal's connector makes of an answer: [dict], as it casts.

    Its rules: a list is the flavors; a dict with "results" holds them;
    any other dict is one flavor. Required fields default to 0 or "",
    and a cast that fails drops the flavor.
    """
    data = json.loads(body)
    if isinstance(data, dict):
        data = data['results'] if 'results' in data else [data]
    read = []
    for item in data:
        try:
            flavor = {'id': str(item.get('id', '')),
                      'name': str(item.get('name', '')),
                      'available': int(item.get('available', 0)),
                      'total': int(item.get('total', 0)),
                      'cores': int(item.get('cores', 0)),
                      'mem': int(item.get('mem', 0)),
                      'type': str(item.get('type', ''))}
            for name, cast in (('gpu_type', str), ('gpu_count', int),
                               ('root_disk', int),
                               ('ephemeral_disk', int)):
                value = item.get(name)
                flavor[name] = cast(value) if value is not None else None
        except (TypeError, ValueError):
            continue
        read.append(flavor)
    return read


class TestContract(base.ApiTestCase):
    """The rendered list against the contract and the v3 documents."""

    def setUp(self):
        super().setUp()
        self.docs = self.publish()
        self.items = json.loads(self.docs[pub.SEED_LIST])
        self.v3 = {f['id']: f for f in json.loads(
            self.docs[pub.V3_LIST])['flavors']}

    def test_a_list_of_every_flavor(self):
        self.assertIsInstance(self.items, list)
        self.assertEqual(sorted(self.v3), sorted(i['id'] for i in self.items))

    def test_every_field_there_and_of_its_type(self):
        for item in self.items:
            fields = pub.SEED_FIELDS
            if item['type'] == pub.SEED_GPU:
                fields += pub.SEED_GPU_FIELDS
            self.assertEqual(sorted(name for name, _ in fields),
                             sorted(item), item)
            for name, kind in fields:
                # bool is an int to Python, not to the portal's casts.
                self.assertIs(kind, type(item[name]), (item, name))

    def test_numbers_are_v3s(self):
        for item in self.items:
            flavor = self.v3[item['id']]
            self.assertEqual(flavor['name'], item['name'])
            self.assertEqual((flavor['available'] or 0,
                              flavor['total'] or 0),
                             (item['available'], item['total']))
            self.assertEqual((flavor['vcpus'], flavor['ram'],
                              flavor['disk'], flavor['ephemeral']),
                             (item['cores'], item['mem'],
                              item['root_disk'], item['ephemeral_disk']))
            gpu = flavor['gpu']
            self.assertEqual('gpu' if gpu else 'cpu', item['type'])
            if gpu:
                self.assertEqual((gpu['type'], gpu['count']),
                                 (item['gpu_type'], item['gpu_count']))

    def test_the_sample_cloud(self):
        by_id = {item['id']: item for item in self.items}
        self.assertEqual(
            {'id': 'g1', 'name': 'gpu.a100', 'available': 2, 'total': 4,
             'cores': 8, 'mem': 16384, 'type': 'gpu', 'gpu_type': 'a100',
             'gpu_count': 1, 'root_disk': 40, 'ephemeral_disk': 0},
            by_id['g1'])
        self.assertEqual(
            {'id': 'index', 'name': 'collection', 'available': 28,
             'total': 32, 'cores': 2, 'mem': 4096, 'type': 'cpu',
             'root_disk': 10, 'ephemeral_disk': 0}, by_id['index'])
        # Nova refuses its extra specs: it starts nowhere.
        self.assertEqual((0, 0), (by_id['bad']['available'],
                                  by_id['bad']['total']))


class TestServed(base.ApiTestCase):

    def test_served_as_published(self):
        docs = self.publish()
        for path in ('/v2/flavors/', '/v2/flavors', '/v2/flavors/?_=1'):
            response = self.app.get(path)
            self.assertEqual('application/json', response.content_type)
            self.assertEqual(docs[pub.SEED_LIST], response.body)
            self.assertEqual('false',
                             response.headers['X-Flavor-Exporter-Stale'])

    def test_the_portal_reads_every_flavor(self):
        self.publish()
        read = as_the_portal_reads(self.app.get('/v2/flavors/').body)
        self.assertEqual(len(sample.flavors()), len(read))
        self.assertEqual(
            {'id': 'g2', 'name': 'GPU.V100-small', 'available': 2,
             'total': 2, 'cores': 4, 'mem': 8192, 'type': 'gpu',
             'gpu_type': 'v100', 'gpu_count': 1, 'root_disk': 20,
             'ephemeral_disk': 0}, read[0])

    def test_what_v3_answered_is_one_bogus_flavor_to_the_portal(self):
        # Why the route had to move: the v3 document is a dict without
        # "results", which the portal takes for one flavor.
        self.publish()
        read = as_the_portal_reads(self.app.get('/v3/flavors/').body)
        self.assertEqual([''], [flavor['id'] for flavor in read])

    def test_stale_says_it_in_the_header_only(self):
        docs = self.publish(age=10_000)
        response = self.app.get('/v2/flavors/')
        self.assertEqual(docs[pub.SEED_LIST], response.body)
        self.assertEqual('true', response.headers['X-Flavor-Exporter-Stale'])

    def test_pollers_get_304(self):
        self.publish()
        etag = self.app.get('/v2/flavors/').headers['ETag']
        self.app.get('/v2/flavors/', headers={'If-None-Match': etag},
                     status=304)

    def test_cold_cache_retry_after_is_short(self):
        # The portal retries three times, honouring Retry-After, while its
        # user waits for the page.
        response = self.app.get('/v2/flavors/', status=503)
        self.assertJsonError(response, 503, 'No capacity data')
        self.assertEqual('5', response.headers['Retry-After'])
