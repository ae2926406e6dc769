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

"""POST /v3/checks: the API asks the worker through the cache, and waits."""

import json
from unittest import mock

import openapi_schema_validator

from flavor_exporter.api import auth
from flavor_exporter.api.controllers import docs
from flavor_exporter.policies import capacity as policies
from flavor_exporter.tests.unit.api import base
from flavor_exporter.worker import quotas

GPU_SET = {'servers': [{'flavor': 'gpu.a100', 'count': 3},
                       {'flavor': 'm1.large', 'count': 1}]}
MEMBER = {'X-Identity-Status': 'Confirmed', 'X-User-Id': 'u1',
          'X-Roles': 'member', 'X-Project-Id': 'p1'}


class TestChecks(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.flags(group='checks', wait=5)
        self.publish()

    def post(self, body, status=200, **kwargs):
        return self.app.post_json('/v3/checks', body, status=status,
                                  **kwargs)

    def test_the_worker_answers_and_the_answer_is_kept(self):
        worker = self.answer_checks()
        check = self.post(GPU_SET).json['check']
        self.assertFalse(check['fits'])
        first, second = check['requests']
        # cmp000 has two of its four A100s free; the third is refused,
        # and nothing after it is tried.
        self.assertEqual((2, 'GPU_AGGREGATE', False),
                         (first['started'],
                          first['stopped_by']['limit'], second['reached']))
        self.assertEqual(['cmp000', 'cmp000'],
                         [s['host'] for s in first['servers']])
        self.assertEqual({'az1': {'gpu.a100': 2}},
                         check['availability_zones'])
        self.assertIn('no project: quotas not checked', check['notes'])
        # Asked again for the same data: the kept answer, not a new one.
        again = self.post(GPU_SET)
        self.assertEqual(check, again.json['check'])
        self.assertEqual('no-store', again.headers['Cache-Control'])
        self.assertEqual(1, worker.status['answered'])

    def test_the_answer_is_the_documented_schema(self):
        self.answer_checks()
        document = json.loads(docs.openapi_document())
        schema = dict(document['components']['schemas']['Check'],
                      components=document['components'])
        validator = openapi_schema_validator.OAS30Validator(schema)
        for body in (GPU_SET, dict(GPU_SET, server_group={
                'policy': 'anti-affinity',
                'rules': {'max_server_per_host': 2}}),
                [{'flavor': 'nope'}]):
            validator.validate(self.post(body).json)

    def test_a_bare_list_and_a_multi_create(self):
        self.answer_checks()
        check = self.post([{'flavor': '1', 'count': 8, 'min_count': 8}],
                          ).json['check']
        # Three on cmp000 (24 vCPUs free) and four on cmp001: 7 of 8,
        # so the request fails whole.
        only = check['requests'][0]
        self.assertEqual(('multi-create', 0, 'resources'),
                         (only['request'], only['started'],
                          only['stopped_by']['kind']))
        self.assertIn('fails whole (7 placed before)',
                      only['stopped_by']['reason'])

    def test_bodies_refused(self):
        for body, message in (
                ({}, '"servers" must be a non-empty list'),
                ({'servers': [{'flavor': 'x'}], 'zone': 'a'},
                 'unknown key(s) zone'),
                ({'servers': [{'flavor': 'x', 'count': 0}]},
                 'servers[0].count must be an integer of at least 1'),
                ({'servers': [{'flavor': 'x', 'count': 2,
                               'min_count': 3}]}, 'min_count 3 is above'),
                ({'servers': [{'flavor': 'x', 'count': 51}]},
                 'a check takes at most 50'),
                ({'servers': [{'flavor': 'x'}], 'project_id': 'a b'},
                 'is not a project id'),
                ({'servers': [{'flavor': 'x'}], 'server_group': {
                    'policy': 'affinity',
                    'rules': {'max_server_per_host': 2}}},
                 'for the anti-affinity policy only')):
            self.assertJsonError(self.post(body, status=400), 400, message)
        response = self.app.post('/v3/checks', b'{', status=400,
                                 content_type='application/json')
        self.assertJsonError(response, 400, 'The body is not JSON')
        response = self.app.post('/v3/checks', b'x', status=415,
                                 content_type='text/plain')
        self.assertJsonError(response, 415, 'application/json')
        # HTML forms, which WebOb would parse while Pecan routes (a
        # multipart type without a boundary made it raise).
        for kind in ('multipart/form-data', 'multipart/form-data; b=1',
                     'application/x-www-form-urlencoded'):
            response = self.app.post('/v3/checks', b'a=b', status=415,
                                     content_type=kind)
            self.assertJsonError(response, 415, 'not %s.'
                                 % kind.split(';')[0])
        response = self.app.post('/v3/checks', b' ' * 70000, status=413,
                                 content_type='application/json')
        self.assertJsonError(response, 413, '65536 bytes')

    def test_the_project_s_quota(self):
        self.answer_checks({'gone': quotas.ProjectUnknown(
            'Nova and Keystone know no project gone'),
            'broken': RuntimeError('identity GET /limits: timed out')})
        check = self.post(dict(GPU_SET, project_id='p1')).json['check']
        self.assertEqual('p1', check['project_id'])
        self.assertNotIn('no project: quotas not checked', check['notes'])
        self.assertJsonError(
            self.post(dict(GPU_SET, project_id='gone'), status=404), 404,
            'know no project gone')
        self.assertJsonError(
            self.post(dict(GPU_SET, project_id='broken'), status=502), 502,
            'timed out')

    def test_a_crowd_waits_bounded(self):
        # No worker answers: a 503 once [checks] wait is over...
        self.flags(group='checks', wait=0.2, retry_after=7)
        response = self.post(GPU_SET, status=503)
        self.assertEqual('7', response.headers['Retry-After'])
        # ...and beyond a client's share of new checks a minute (that one
        # counted), a 429.
        self.flags(group='checks', wait=0, new_per_client=3)
        self._app = None
        self.post({'servers': [{'flavor': 'a'}]}, status=503)
        self.post({'servers': [{'flavor': 'b'}]}, status=503)
        response = self.post({'servers': [{'flavor': 'c'}]}, status=429)
        self.assertEqual('60', response.headers['Retry-After'])

    def test_disabled(self):
        self.flags(group='checks', enabled=False)
        self.assertJsonError(self.post(GPU_SET, status=404), 404,
                             '[checks] enabled is false')

    def members_app(self):
        """The API behind the default policy, any token accepted."""
        self.flags(auth_strategy='keystone')
        self._app = None
        with mock.patch.object(auth, 'authenticated', lambda app, _: app):
            return self.app

    def test_policy_a_member_checks_its_own_project(self):
        self.answer_checks()
        app = self.members_app()
        check = app.post_json('/v3/checks', GPU_SET,
                              headers=MEMBER).json['check']
        # The token's project, and no host names for a member.
        self.assertEqual('p1', check['project_id'])
        self.assertEqual([{'availability_zone': 'az1'}] * 2,
                         check['requests'][0]['servers'])
        response = app.post_json('/v3/checks',
                                 dict(GPU_SET, project_id='p2'),
                                 headers=MEMBER, status=403)
        self.assertJsonError(response, 403, policies.CHECK_CREATE)
        admin = dict(MEMBER, **{'X-Roles': 'admin'})
        check = app.post_json('/v3/checks', dict(GPU_SET, project_id='p2'),
                              headers=admin).json['check']
        self.assertEqual('cmp000', check['requests'][0]['servers'][0]['host'])

    def test_the_cloud_by_name(self):
        self.answer_checks()
        check = self.app.post_json('/v3/clouds/default/checks', GPU_SET)
        self.assertEqual(2, check.json['check']['started'])
        self.assertJsonError(self.app.post(
            '/v3/clouds/nope/checks', json.dumps(GPU_SET),
            content_type='application/json', status=404), 404)
