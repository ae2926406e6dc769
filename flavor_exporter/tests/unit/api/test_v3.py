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
"""/v3: lists, filters, one flavor, staleness, validators, status."""

import dataclasses
import datetime
import json

from flavor_exporter.publication import contract as pub
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.tests.unit.api import base


def ids(response):
    return [f['id'] for f in response.json['flavors']]


class TestList(base.ApiTestCase):

    def test_served_as_published(self):
        docs = self.publish()
        for path in ('/v3/flavors', '/v3/flavors/'):
            response = self.app.get(path)
            self.assertEqual('application/json', response.content_type)
            self.assertEqual(docs['v3/flavors'], response.body)
            self.assertEqual('false',
                             response.headers['X-Flavor-Exporter-Stale'])
        # Sorted by name, as the worker renders them.
        self.assertEqual(['g2', 'bad', 'index', 'g1', '1'],
                         ids(self.app.get('/v3/flavors/')))

    def test_gpu_picks_the_published_list(self):
        docs = self.publish()
        response = self.app.get('/v3/flavors/?gpu=true')
        self.assertEqual(docs['v3/flavors?gpu=true'], response.body)
        self.assertEqual(['g2', 'g1'], ids(response))
        self.assertEqual(['bad', 'index', '1'],
                         ids(self.app.get('/v3/flavors?gpu=False')))

    def test_name(self):
        self.publish()
        self.assertEqual(['g2', 'g1'],
                         ids(self.app.get('/v3/flavors/?name=gPu')))
        self.assertEqual(['g2'], ids(self.app.get(
            '/v3/flavors/?name=small&gpu=true')))
        self.assertEqual([], ids(self.app.get(
            '/v3/flavors/?name=small&gpu=false')))

    def test_availability_zone(self):
        self.publish()
        response = self.app.get('/v3/flavors/?availability_zone=az1'
                                '&gpu=true')
        g2, g1 = response.json['flavors']
        self.assertEqual((4, 2), (g1['total'], g1['available']))
        self.assertEqual((0, 0), (g2['total'], g2['available']))
        self.assertEqual({'az1': {'total': 0, 'available': 0,
                                  'fragmented': 0}},
                         g2['availability_zones'])
        large = self.app.get('/v3/flavors/?availability_zone=az2'
                             '&name=m1').json['flavors']
        self.assertEqual([(4, 4)], [(f['total'], f['available'])
                                    for f in large])

    def test_filtered_lists_are_cached_variants(self):
        self.publish()
        first = self.app.get('/v3/flavors/?name=gpu')
        again = self.app.get('/v3/flavors/?name=GPU')
        self.assertEqual(first.body, again.body)
        self.assertEqual(first.headers['ETag'], again.headers['ETag'])
        other = self.app.get('/v3/flavors/?name=m1')
        self.assertNotEqual(first.headers['ETag'], other.headers['ETag'])

    def test_bad_queries(self):
        self.publish()
        cases = [('gpu=maybe', '"gpu" must be true or false'),
                 ('colour=red', 'Unknown query parameter(s): colour'),
                 ('availability_zone=nova', 'Unknown availability zone'),
                 ('name=a&name=b', 'given 2 times'),
                 ('name=', 'must not be empty')]
        for query, message in cases:
            response = self.app.get('/v3/flavors/?' + query, status=400)
            self.assertJsonError(response, 400, message)

    def test_cold_cache(self):
        self.flags(group='api', retry_after=7)
        response = self.app.get('/v3/flavors/', status=503)
        self.assertJsonError(response, 503, 'Retry in 7 seconds')
        self.assertEqual('7', response.headers['Retry-After'])

    def test_bad_query_checked_before_data(self):
        self.assertJsonError(self.app.get('/v3/flavors/?x=1', status=400),
                             400)


class TestStale(base.ApiTestCase):

    def test_old_data_marked_stale(self):
        docs = self.publish(age=10_000)
        response = self.app.get('/v3/flavors/')
        self.assertEqual('true', response.headers['X-Flavor-Exporter-Stale'])
        body = response.json
        self.assertIs(True, body['stale'])
        # Only the flag differs from what the worker published.
        published = json.loads(docs['v3/flavors'])
        self.assertEqual(dict(published, stale=True), body)
        one = self.app.get('/v3/flavors/g1').json
        self.assertIs(True, one['stale'])
        filtered = self.app.get('/v3/flavors/?name=m1').json
        self.assertIs(True, filtered['stale'])
        self.assertEqual(['1'], [f['id'] for f in filtered['flavors']])

    def test_stale_after_option(self):
        self.flags(group='api', stale_after=5)
        self.publish(age=10)
        self.assertIs(True, self.app.get('/v3/flavors/').json['stale'])

    def test_stale_etag_differs(self):
        self.flags(group='api', stale_after=5)
        self.publish(age=10)
        stale = self.app.get('/v3/flavors/')
        self.flags(group='api', stale_after=500)
        self._app = None
        fresh = self.app.get('/v3/flavors/')
        self.assertIs(False, fresh.json['stale'])
        self.assertNotEqual(stale.headers['ETag'], fresh.headers['ETag'])

    def test_cache_outage_serves_last_data_marked_stale(self):
        self.publish()
        self.assertIs(False, self.app.get('/v3/flavors/').json['stale'])
        self.app.get('/gpus/flavors')
        self.backend.down = True
        response = self.app.get('/v3/flavors/')
        self.assertIs(True, response.json['stale'])
        self.assertEqual('true',
                         self.app.get('/gpus/flavors').headers[
                             'X-Flavor-Exporter-Stale'])
        # Never read before the outage: nothing to serve.
        self.assertJsonError(self.app.get('/v3/flavors/g2', status=503),
                             503, 'cache unreachable')
        self.backend.down = False
        self.assertIs(False, self.app.get('/v3/flavors/').json['stale'])


class TestOne(base.ApiTestCase):

    def test_by_id_and_by_name(self):
        docs = self.publish()
        by_id = self.app.get('/v3/flavors/g1')
        # The published flavor, with its per-host rows and the hosts
        # excluded from it put back in.
        published = json.loads(docs['v3/flavor/g1'])
        served = by_id.json
        self.assertEqual([{'host': 'cmp000', 'node': 'cmp000.example.org',
                           'availability_zone': 'az1', 'total': 4,
                           'available': 2, 'limited_by': 'GPU_AGGREGATE'}],
                         served['flavor'].pop('hosts'))
        self.assertEqual(json.loads(docs['v3/flavor/g1/hosts'])[
            'excluded_hosts'], served['flavor'].pop('excluded_hosts'))
        # The hosts whose leftovers make up what is fragmented: none.
        self.assertEqual([], served['flavor']['fragmentation'].pop(
            'fragments'))
        self.assertEqual(published, served)
        by_name = self.app.get('/v3/flavors/gpu.a100')
        self.assertEqual(by_id.body, by_name.body)
        self.assertEqual(by_id.headers['ETag'], by_name.headers['ETag'])
        self.assertEqual(by_id.body, self.app.get('/v3/flavors/g1/').body)

    def test_per_host_rows_follow_their_numbers(self):
        self.publish()
        before = self.app.get('/v3/flavors/index')
        # A VCPU moves from one host to another: the totals of the flavor
        # stay, its per-host numbers do not.
        hosts = sample.hosts()
        hosts[0].root.usages['VCPU'] = 6
        hosts[1].root.usages['VCPU'] = 2
        docs, pointer = sample.documents(host_list=hosts)
        self.store.publish(docs, pointer, datetime.datetime.now(
            datetime.timezone.utc))
        after = self.app.get('/v3/flavors/index')
        self.assertEqual(before.json['flavor']['available'],
                         after.json['flavor']['available'])
        self.assertNotEqual(before.headers['ETag'], after.headers['ETag'])
        self.assertEqual([13, 15], [h['available'] for h in
                                    after.json['flavor']['hosts']])

    def test_detail_shape(self):
        self.publish()
        body = self.app.get('/v3/flavors/1').json
        self.assertEqual({'flavor', 'timestamp', 'source', 'stale',
                          'partial', 'unreadable_host_count'}, set(body))
        self.assertEqual((False, 0), (body['partial'],
                                      body['unreadable_host_count']))
        self.assertEqual('m1.large', body['flavor']['name'])
        self.assertEqual([('cmp000', 4, 3), ('cmp001', 4, 4)],
                         [(h['host'], h['total'], h['available'])
                          for h in body['flavor']['hosts']])
        self.assertEqual({'compute service disabled': 1},
                         body['flavor']['excluded_hosts'])

    def test_ids_and_names_are_data_not_routes(self):
        self.publish()
        # "index" is a flavor id, "collection" a flavor name.
        self.assertEqual('index',
                         self.app.get('/v3/flavors/index').json[
                             'flavor']['id'])
        self.assertEqual('index',
                         self.app.get('/v3/flavors/collection').json[
                             'flavor']['id'])
        self.assertEqual('1', self.app.get(
            '/v3/flavors/m1.large').json['flavor']['id'])

    def test_unknown(self):
        self.publish()
        response = self.app.get('/v3/flavors/nope', status=404)
        self.assertJsonError(response, 404, 'nope')
        self.assertJsonError(self.app.get('/v3/flavors/a/b', status=404),
                             404)

    def test_id_before_name(self):
        flavors = sample.flavors()
        # flavor 1 is named like flavor g1's id
        flavors[0] = dataclasses.replace(flavors[0], name='g1')
        self.publish(flavors)
        self.assertEqual('g1', self.app.get(
            '/v3/flavors/g1').json['flavor']['id'])

    def test_unknown_costs_no_cache_round_trip(self):
        # Only the pointer would be read, and not within a minute.
        self.flags(group='api', generation_check_interval=60)
        self.publish()
        self.app.get('/v3/flavors/nope', status=404)
        gets = self.backend.gets
        for i in range(10):
            self.app.get('/v3/flavors/nope%d' % i, status=404)
        self.assertEqual(gets, self.backend.gets)

    def test_known_flavor_missing_from_cache_is_503(self):
        self.publish()
        self.forget('v3/flavor/g1')
        response = self.app.get('/v3/flavors/gpu.a100', status=503)
        self.assertJsonError(response, 503, 'the cache lost')
        self.assertIn('Retry-After', response.headers)

    def test_no_query_parameters(self):
        self.publish()
        self.assertJsonError(
            self.app.get('/v3/flavors/g1?gpu=true', status=400), 400,
            'gpu')


class TestHttp(base.ApiTestCase):

    def test_validators(self):
        self.publish()
        response = self.app.get('/v3/flavors/')
        etag = response.headers['ETag']
        last_modified = response.headers['Last-Modified']
        self.assertTrue(last_modified.endswith('GMT'))
        not_modified = self.app.get('/v3/flavors/',
                                    headers={'If-None-Match': etag},
                                    status=304)
        self.assertEqual(b'', not_modified.body)
        self.assertEqual(etag, not_modified.headers['ETag'])
        self.app.get('/v3/flavors/',
                     headers={'If-None-Match': '"other", ' + etag},
                     status=304)
        self.app.get('/v3/flavors/', headers={'If-None-Match': '*'},
                     status=304)
        # A refresh that changed nothing changes no representation.
        self.publish(age=-150)
        again = self.app.get('/v3/flavors/',
                             headers={'If-None-Match': etag}, status=304)
        self.assertEqual(last_modified, again.headers['Last-Modified'])
        g2_etag = self.app.get('/v3/flavors/g2').headers['ETag']
        flavors = sample.flavors()
        flavors[0] = dataclasses.replace(flavors[0], vcpus=4)
        self.publish(flavors, age=-300)
        changed = self.app.get('/v3/flavors/',
                               headers={'If-None-Match': etag})
        self.assertEqual(200, changed.status_int)
        self.assertNotEqual(etag, changed.headers['ETag'])
        self.assertNotEqual(last_modified, changed.headers['Last-Modified'])
        # The flavor that did not change keeps its validators.
        self.app.get('/v3/flavors/g2', headers={'If-None-Match': g2_etag},
                     status=304)

    def test_head(self):
        docs = self.publish()
        for path in ('/v3/flavors/', '/gpus/flavors', '/v3/flavors/g1'):
            get = self.app.get(path)
            head = self.app.head(path)
            self.assertEqual(200, head.status_int)
            self.assertEqual(b'', head.body)
            self.assertEqual(get.headers['ETag'], head.headers['ETag'])
            self.assertEqual(get.headers['Content-Length'],
                             head.headers['Content-Length'])
        self.assertEqual(str(len(docs['v3/flavors'])),
                         self.app.head('/v3/flavors/').headers[
                             'Content-Length'])

    def test_accept_is_not_negotiated(self):
        docs = self.publish()
        for accept in ('text/html', 'text/plain', 'application/xml'):
            response = self.app.get('/v3/flavors/',
                                    headers={'Accept': accept})
            self.assertEqual(docs['v3/flavors'], response.body)
            self.assertEqual('application/json', response.content_type)

    def test_write_methods_refused(self):
        for method in ('post', 'put', 'patch', 'delete'):
            response = getattr(self.app, method)('/v3/flavors/',
                                                 status=405)
            self.assertJsonError(response, 405, 'not allowed here')
            self.assertEqual('GET, HEAD', response.headers['Allow'])


class TestStatus(base.ApiTestCase):

    def test_status(self):
        self.publish(age=3)
        body = self.app.get('/v3/status').json
        self.assertEqual(self.generation, body['current']['generation'])
        self.assertEqual('placement', body['current']['source'])
        self.assertGreaterEqual(body['age_seconds'], 3)
        self.assertIs(False, body['stale'])
        self.assertEqual(300, body['stale_after_seconds'])
        self.assertIsNone(body['problem'])
        self.assertEqual(sample.status(), body['refresh'])

    def test_demand_turned_away(self):
        self.publish()
        self.store.write_demand({
            pub.TURNED_AWAY_SEEN: 3, pub.TURNED_AWAY_LOST: 1,
            pub.DEMAND_FLAVORS: {'f1': {
                pub.NAME: 'g."large"', pub.TURNED_AWAY: 3,
                pub.LAST_AT: '2026-12-03T10:00:00Z',
                pub.PROJECTS: {'p1': 2, 'p2': 1}, pub.OTHER_PROJECTS: 4}},
            pub.DEMAND_UNKNOWN: {pub.TURNED_AWAY: 7,
                                 pub.LAST_AT: '2026-12-03T11:00:00Z'}})
        demand = self.app.get('/v3/status').json['demand']
        # Without authentication every caller may see hosts, so projects.
        self.assertEqual({'flavors': {'f1': {
            'name': 'g."large"', 'turned_away': 3,
            'last_at': '2026-12-03T10:00:00Z',
            'projects': {'p1': 2, 'p2': 1}, 'other_projects': 4}},
            'unknown': {'turned_away': 7,
                        'last_at': '2026-12-03T11:00:00Z'},
            'lost': 1}, demand)
        metrics = self.app.get('/metrics').text
        self.assertIn('flavor_exporter_scheduling_failures_total{'
                      'cloud="default",flavor_id="f1",flavor_name="g.\\"large'
                      '\\""} 3', metrics)
        self.assertIn('flavor_exporter_scheduling_failures_by_project_total'
                      '{cloud="default",flavor_id="f1",flavor_name="g.\\"large'
                      '\\"",project_id="p2"} 1', metrics)
        self.assertIn('# TYPE flavor_exporter_scheduling_failures_total '
                      'counter', metrics)
        # Every id the flavor list lacks: one series.
        self.assertIn('flavor_exporter_scheduling_failures_unknown_flavor_'
                      'total{cloud="default"} 7', metrics)

    def test_status_while_cold(self):
        self.store.write_status(sample.status(
            failures=3, error={'at': 'x', 'message': 'Nova said no'}))
        body = self.app.get('/v3/status').json
        self.assertIsNone(body['current'])
        self.assertIs(True, body['stale'])
        self.assertIn('no data', body['problem'])
        self.assertEqual('Nova said no',
                         body['refresh']['last_error']['message'])

    def test_status_does_not_compute(self):
        self.flags(group='api', compute_on_miss=True)
        self.answer_refresh_requests()
        self.app.get('/v3/status')
        self.app.get('/metrics')
        self.app.get('/healthcheck', status=503)
        self.assertEqual(0, self.source.collections)


class TestComputeOnMiss(base.ApiTestCase):

    def test_cold_cache_computed_once(self):
        self.flags(group='api', compute_on_miss=True)
        self.answer_refresh_requests()
        self.assertEqual(['g2', 'g1'],
                         ids(self.app.get('/v3/flavors/?gpu=true')))
        self.app.get('/gpus/flavors')
        self.assertEqual(1, self.source.collections)
        # What the worker's refresh published is what is served.
        self.assertEqual(self.store.reader.current()['generation'],
                         self.app.get('/v3/status').json['current'][
                             'generation'])

    def test_failed_computation_is_503(self):
        self.flags(group='api', compute_on_miss=True, retry_after=9,
                   compute_on_miss_timeout=1)
        self.answer_refresh_requests()
        self.source.failing = True
        response = self.app.get('/v3/flavors/', status=503)
        self.app.get('/v3/flavors/', status=503)
        self.assertEqual('9', response.headers['Retry-After'])
        # The second request fell in the back-off: no second computation.
        self.assertEqual(1, self.source.collections)

    def test_off_by_default(self):
        self.answer_refresh_requests()
        self.app.get('/v3/flavors/', status=503)
        self.assertEqual(0, self.source.collections)
