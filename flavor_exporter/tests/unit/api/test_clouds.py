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
"""One API process serving several clouds ([DEFAULT] clouds)."""

import re

from flavor_exporter.publication import publisher
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.tests.unit.api import base


def ids(response):
    return sorted(f['id'] for f in response.json['flavors'])


class CloudsTestCase(base.ApiTestCase):
    """east (the default, self.store) and west, in one cache."""

    def setUp(self):
        super().setUp()
        self.east, self.west = self.use_clouds('east', 'west')
        self.store = publisher.Publisher.from_conf(
            self.conf, self.east, self.backend)
        self.west_store = publisher.Publisher.from_conf(
            self.conf, self.west, self.backend)

    def publish_west(self):
        """West has two of the sample's flavors."""
        self.publish_in(self.west_store, sample.flavors()[:2])

    def publish_in(self, cloud_store, flavors):
        sample.publish(cloud_store, flavors)


class TestRoutes(CloudsTestCase):

    def test_each_cloud_serves_its_own_documents(self):
        self.publish()
        self.publish_west()
        every = ['1', 'bad', 'g1', 'g2', 'index']
        self.assertEqual(every, ids(self.app.get('/v3/clouds/east/flavors/')))
        self.assertEqual(['1', 'g1'],
                         ids(self.app.get('/v3/clouds/west/flavors')))
        self.assertEqual(['g1'], ids(self.app.get(
            '/v3/clouds/west/flavors/?gpu=true')))
        flavor = self.app.get('/v3/clouds/west/flavors/gpu.a100').json
        self.assertEqual('g1', flavor['flavor']['id'])
        self.assertIn('hosts', flavor['flavor'])
        self.assertJsonError(
            self.app.get('/v3/clouds/west/flavors/g2', status=404), 404,
            'No flavor has the id or name "g2"')
        status = self.app.get('/v3/clouds/west/status').json
        self.assertEqual(self.west_store.reader.current()['generation'],
                         status['current']['generation'])

    def test_unprefixed_and_legacy_routes_serve_the_default_cloud(self):
        self.publish()
        self.publish_west()
        self.assertEqual(ids(self.app.get('/v3/clouds/east/flavors/')),
                         ids(self.app.get('/v3/flavors/')))
        self.assertEqual(self.store.reader.current()['generation'],
                         self.app.get('/v3/status').json['current'][
                             'generation'])
        self.assertEqual(['GPU.V100-small', 'gpu.a100'], sorted(
            f['flavor_name'] for f in self.app.get('/gpus/flavors').json[
                'flavors']))

    def test_default_cloud_named(self):
        self.flags(default_cloud='west')
        self.publish_west()
        self.publish_in(self.store, None)
        self.assertEqual(['1', 'g1'], ids(self.app.get('/v3/flavors/')))
        self.assertEqual(['gpu.a100'], [f['flavor_name'] for f in self.app.get(
            '/gpus/flavors').json['flavors']])
        self.assertEqual(5, len(ids(self.app.get(
            '/v3/clouds/east/flavors/'))))

    def test_clouds_listed_with_their_freshness(self):
        self.publish()
        listed = self.app.get('/v3/clouds/').json['clouds']
        self.assertEqual(['east', 'west'], [c['name'] for c in self.app.get(
            '/v3/clouds').json['clouds']])
        east, west = listed
        self.assertEqual(('east', True, False),
                         (east['name'], east['default'], east['stale']))
        self.assertLess(east['age_seconds'], 60)
        self.assertEqual({'name': 'west', 'default': False,
                          'age_seconds': None, 'stale': True,
                          'links': [
                              {'rel': 'flavors',
                               'href': 'http://localhost/v3/clouds/west/'
                                       'flavors/'},
                              {'rel': 'status',
                               'href': 'http://localhost/v3/clouds/west/'
                                       'status'}]}, west)

    def test_one_cold_cloud_leaves_the_other_served(self):
        self.publish()
        self.app.get('/v3/clouds/west/flavors/', status=503)
        self.assertEqual(200, self.app.get(
            '/v3/clouds/east/flavors/').status_int)
        status = self.app.get('/v3/clouds/west/status').json
        self.assertIsNone(status['current'])
        self.assertTrue(status['stale'])

    def test_unknown_cloud(self):
        for path in ('/v3/clouds/north/flavors/', '/v3/clouds/north/status',
                     '/v3/clouds/north/flavors/g1'):
            self.assertJsonError(
                self.app.get(path, status=404), 404,
                'No cloud is named "north"; GET /v3/clouds/ lists them.')
        for path in ('/v3/clouds/east', '/v3/clouds/north'):
            self.assertJsonError(self.app.get(path, status=404), 404)
        self.assertJsonError(
            self.app.get('/v3/clouds/?x=1', status=400), 400)

    def test_a_cold_cloud_asks_its_own_worker(self):
        self.flags(group='api', compute_on_miss=True)
        self.answer_refresh_requests(self.west_store)
        self.app.get('/v3/clouds/west/flavors/')
        self.assertIsNotNone(self.west_store.reader.current())
        self.assertIsNone(self.store.reader.current())
        self.assertEqual(1, self.source.collections)


class TestMetrics(CloudsTestCase):

    def test_every_sample_labelled_every_family_once(self):
        self.publish()
        self.publish_west()
        text = self.app.get('/metrics').text
        for metric in ('flavor_exporter_flavor_available',
                       'flavor_exporter_data_age_seconds'):
            self.assertEqual(1, text.count('# TYPE %s gauge\n' % metric))
        samples = [line for line in text.splitlines()
                   if not line.startswith('#')]
        self.assertEqual([], [s for s in samples if not re.match(
            r'^[a-z_]+\{cloud="(east|west)"[,}]', s)])
        self.assertIn('flavor_exporter_flavor_available{cloud="west",'
                      'flavor_id="g1",flavor_name="gpu.a100",gpu="true"} 2',
                      text)
        # A family's samples together: west's follow east's.
        available = [s for s in samples
                     if s.startswith('flavor_exporter_flavor_available{')]
        # east's four valid flavors and west's two.
        self.assertEqual(4 + 2, len(available))
        start = samples.index(available[0])
        self.assertEqual(available, samples[start:start + len(available)])

    def test_a_cloud_without_data(self):
        self.publish()
        text = self.app.get('/metrics').text
        self.assertIn('flavor_exporter_data_available{cloud="east"} 1\n'
                      'flavor_exporter_data_available{cloud="west"} 0\n',
                      text)


class TestHealthcheck(CloudsTestCase):

    def test_all_fresh(self):
        self.publish()
        self.publish_west()
        self.assertEqual(b'OK', self.app.get('/healthcheck').body)

    def test_one_cloud_without_data_is_degraded(self):
        self.publish()
        response = self.app.get('/healthcheck')
        self.assertEqual(200, response.status_int)
        self.assertEqual(b'DEGRADED: cloud west: No capacity data '
                         b'published yet', response.body)

    def test_stale_and_partial(self):
        sample.publish(self.store, collected_at=sample.snapshot().collected_at
                       .replace(year=2020))
        sample.publish(self.west_store, host_list=sample.hosts() + [
            sample.model.Host('broken', 'broken.example.org',
                              unreadable='answered 500')])
        response = self.app.get('/healthcheck')
        self.assertEqual(200, response.status_int)
        self.assertEqual(
            b'DEGRADED: cloud east: Capacity data is stale; cloud west: '
            b'capacity data is partial, 1 host(s) unreadable',
            response.body)

    def test_no_cloud_serves(self):
        response = self.app.get('/healthcheck', status=503)
        self.assertEqual(b'cloud east: No capacity data published yet; '
                         b'cloud west: No capacity data published yet',
                         response.body)
