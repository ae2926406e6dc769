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
"""POST /v3/whatif: asked of the worker through the cache, as checks are."""

import json
import os
from unittest import mock

import fixtures
import openapi_schema_validator

from flavor_exporter.api import auth
from flavor_exporter.api.controllers import docs
from flavor_exporter.policies import capacity as policies
from flavor_exporter.tests.unit.api import base

DRAIN = {'drain': [{'hosts': ['cmp001']}]}
MEMBER = {'X-Identity-Status': 'Confirmed', 'X-User-Id': 'u1',
          'X-Roles': 'member', 'X-Project-Id': 'p1'}


class TestWhatif(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.flags(group='checks', wait=5)
        self.publish()

    def post(self, body, status=200, **kwargs):
        return self.app.post_json('/v3/whatif', body, status=status,
                                  **kwargs)

    def test_the_worker_answers_and_the_answer_is_kept(self):
        worker = self.answer_whatifs()
        answer = self.post(DRAIN).json['whatif']
        flavors = {item['name']: item for item in answer['results'][
            'flavors']}
        # m1.large: 3 free in az1; cmp001 (az2, 4 of 4 free) drained.
        self.assertEqual({'total': 8, 'available': 7},
                         flavors['m1.large']['before'])
        self.assertEqual({'total': 4, 'available': 3},
                         flavors['m1.large']['after'])
        self.assertEqual({'total': -4, 'available': -4},
                         flavors['m1.large']['availability_zones']['az2'][
                             'difference'])
        # cmp001's two v100s still exist, free where nothing starts.
        v100 = {g['type']: g for g in answer['results']['gpus']}['v100']
        self.assertEqual({'total': 0, 'used': 0, 'free': 0, 'stranded': 2,
                          'usable': -2}, v100['difference'])
        self.assertEqual(['cmp001'], answer['hosts']['drained'])
        again = self.post(DRAIN)
        self.assertEqual(answer, again.json['whatif'])
        self.assertEqual('no-store', again.headers['Cache-Control'])
        self.assertEqual(1, worker.status['answered'])

    def test_the_answer_is_the_documented_schema(self):
        self.answer_whatifs()
        document = json.loads(docs.openapi_document())
        schema = dict(document['components']['schemas']['Whatif'],
                      components=document['components'])
        openapi_schema_validator.validate(
            self.post({'add': [{'like': 'cmp000', 'count': 2}],
                       'flavors': [{'name': 'x', 'vcpus': 1, 'ram': 512,
                                    'disk': 1}]}).json, schema,
            cls=openapi_schema_validator.OAS30Validator)

    def test_refused_by_the_contract_and_by_the_worker(self):
        self.answer_whatifs()
        self.assertJsonError(self.post({'drain': [{'host': ['a']}]},
                                       status=400), 400, 'unknown key')
        # Only the worker knows the cloud's hosts.
        self.assertJsonError(self.post({'drain': [{'hosts': ['nope']}]},
                                       status=400), 400,
                             'no compute host nope')
        # The server listing of an evacuated host fails: a 502.
        self.assertJsonError(self.post(
            {'drain': [{'hosts': ['cmp000'], 'servers': 'evacuate'}]},
            status=502), 502, 'could not be computed')

    def members_app(self):
        """The API behind the default policy, any token accepted."""
        self.flags(auth_strategy='keystone')
        self._app = None
        with mock.patch.object(auth, 'authenticated', lambda app, _: app):
            return self.app

    def test_policy_admins_and_system_readers(self):
        self.answer_whatifs()
        app = self.members_app()
        response = app.post_json('/v3/whatif', DRAIN, headers=MEMBER,
                                 status=403)
        self.assertJsonError(response, 403, policies.WHATIF_CREATE)
        reader = dict(MEMBER, **{'X-Roles': 'reader',
                                 'OpenStack-System-Scope': 'all'})
        reader.pop('X-Project-Id')
        answer = app.post_json('/v3/whatif', DRAIN,
                               headers=reader).json['whatif']
        self.assertEqual(['cmp001'], answer['hosts']['drained'])
        admin = dict(MEMBER, **{'X-Roles': 'admin'})
        self.assertEqual(['cmp001'], app.post_json(
            '/v3/whatif', DRAIN, headers=admin).json['whatif']['hosts'][
                'drained'])

    def test_hosts_the_caller_did_not_name_are_counts(self):
        # A deployment lets members ask, not see hosts.
        rules = os.path.join(self.useFixture(fixtures.TempDir()).path,
                             'policy.yaml')
        with open(rules, 'w') as f:
            f.write('"%s": "role:member"\n' % policies.WHATIF_CREATE)
        self.members_app()  # registers [oslo_policy]
        self.flags(group='oslo_policy', policy_file=rules)
        self.answer_whatifs()
        answer = self.members_app().post_json(
            '/v3/whatif', DRAIN, headers=MEMBER).json['whatif']
        self.assertEqual({'drained': 1, 'evacuated': 0, 'added': 0,
                          'removed': 0, 'changed': 0}, answer['hosts'])

    def test_disabled_and_the_cloud_by_name(self):
        self.answer_whatifs()
        answer = self.app.post_json('/v3/clouds/default/whatif', DRAIN)
        self.assertEqual(['cmp001'], answer.json['whatif']['hosts'][
            'drained'])
        self.flags(group='checks', enabled=False)
        self._app = None
        self.assertJsonError(self.post(DRAIN, status=404), 404,
                             '[checks] enabled is false')
