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
"""Authorization: what each caller may read (oslo.policy defaults).

keystonemiddleware is not run here: the requests carry the headers it
sets once a token is valid (roles, project, system scope), straight to
the dispatcher. Real tokens are tested in
tests/functional/test_keystone_auth.py.
"""

import logging
import os
from unittest import mock

import fixtures
from oslo_policy import generator
from oslo_policy import opts as policy_opts
from oslo_policy import policy as oslo_policy
import webtest

from flavor_exporter.api import app
from flavor_exporter.api import policy
from flavor_exporter.capacity import model
from flavor_exporter.publication import contract as pub
from flavor_exporter.tests import base as test_base
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.tests.unit.api import base

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..')
GENERATOR_CONF = 'etc/flavor-exporter/flavor-exporter-policy-generator.conf'
SAMPLE = 'etc/flavor-exporter/policy.yaml.sample'

MEMBER = {'roles': 'member,reader', 'project': 'proj-a'}
OTHER_MEMBER = {'roles': 'member,reader', 'project': 'proj-b'}
ADMIN = {'roles': 'admin,member,reader', 'project': 'admin-project'}
SYSTEM_READER = {'roles': 'reader', 'system': 'all'}


def private(flavor_id, name, projects, **specs):
    return model.Flavor(flavor_id, name, vcpus=2, ram=4096, disk=10,
                        is_public=False, projects=projects,
                        extra_specs=specs)


def flavors():
    return sample.flavors() + [
        private('p1', 'private.shared', ('proj-a',)),
        private('p2', 'private.other', ('proj-b', 'proj-c')),
        private('p3', 'private.unknown', None),
        private('pg', 'gpu.private', ('proj-a',),
                **{'pci_passthrough:alias': 'a100:1'}),
    ]


def ids(response, key='flavors', field='id'):
    return sorted(f[field] for f in response.json[key])


class PolicyTestCase(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.flags(auth_strategy='keystone')
        self.publish(flavors())
        # What keystonemiddleware passes on: the headers below.
        self.api = webtest.TestApp(app.make_pecan_app(self.conf, self.backend))

    def get(self, path, caller, status=200):
        headers = {'X-Identity-Status': 'Confirmed', 'X-User-Id': 'u1',
                   'X-Roles': caller['roles']}
        if 'project' in caller:
            headers['X-Project-Id'] = caller['project']
        if 'system' in caller:
            headers['OpenStack-System-Scope'] = caller['system']
        return self.api.get(path, headers=headers, status=status)


class TestMembers(PolicyTestCase):

    PUBLIC = ['1', 'bad', 'g1', 'g2', 'index']

    def test_list_has_public_and_shared_flavors(self):
        self.assertEqual(sorted(self.PUBLIC + ['p1', 'pg']),
                         ids(self.get('/v3/flavors/', MEMBER)))
        self.assertEqual(sorted(self.PUBLIC + ['p2']),
                         ids(self.get('/v3/flavors/', OTHER_MEMBER)))

    def test_the_seed_list_follows_the_same_rules(self):
        def seed_ids(caller):
            return sorted(f['id'] for f in self.get('/v2/flavors/',
                                                    caller).json)
        self.assertEqual(sorted(self.PUBLIC + ['p1', 'pg']),
                         seed_ids(MEMBER))
        self.assertEqual(sorted(self.PUBLIC + ['p2']),
                         seed_ids(OTHER_MEMBER))
        self.assertEqual(TestReaders.EVERY, seed_ids(ADMIN))

    def test_filters_apply_to_what_they_see(self):
        self.assertEqual(['pg'], ids(self.get(
            '/v3/flavors/?gpu=true&name=private', MEMBER)))
        self.assertEqual([], ids(self.get(
            '/v3/flavors/?gpu=true&name=private', OTHER_MEMBER)))
        self.assertEqual(['p2'], ids(self.get(
            '/v3/flavors/?gpu=false&name=private&availability_zone=az1',
            OTHER_MEMBER)))

    def test_other_projects_flavors_do_not_exist_for_them(self):
        for key in ('p2', 'private.other', 'p3', 'private.unknown'):
            response = self.get('/v3/flavors/' + key, MEMBER, status=404)
            self.assertNotIn(b'private', response.body.replace(
                key.encode(), b''))
        self.assertEqual('p1', self.get('/v3/flavors/private.shared',
                                        MEMBER).json['flavor']['id'])

    def test_no_per_host_breakdown(self):
        flavor = self.get('/v3/flavors/1', MEMBER).json['flavor']
        self.assertNotIn('hosts', flavor)
        self.assertNotIn('excluded_hosts', flavor)
        self.assertEqual((8, 7), (flavor['total'], flavor['available']))

    def test_no_status_and_no_metrics(self):
        for path in ('/v3/status', '/metrics'):
            response = self.get(path, MEMBER, status=403)
            self.assertEqual(403, response.json['error']['code'])
            self.assertIn('system reader', response.json['error']['message'])

    def test_legacy_routes_follow_the_same_rules(self):
        self.assertEqual(['g1', 'g2', 'pg'], ids(
            self.get('/gpus/flavors', MEMBER),
            field='flavor_openstack_id'))
        self.assertEqual(['g1', 'g2'], ids(
            self.get('/gpus/flavors/', OTHER_MEMBER),
            field='flavor_openstack_id'))
        self.get('/gpus/flavors/pg', MEMBER)
        response = self.get('/gpus/flavors/pg', OTHER_MEMBER, status=404)
        self.assertEqual(b'{"message":"Unknown flavor id!"}', response.body)

    def test_a_project_without_private_flavors(self):
        nobody = {'roles': 'member,reader', 'project': 'proj-z'}
        self.assertEqual(self.PUBLIC, ids(self.get('/v3/flavors/', nobody)))


class TestReaders(PolicyTestCase):

    EVERY = ['1', 'bad', 'g1', 'g2', 'index', 'p1', 'p2', 'p3', 'pg']

    def test_admin_and_system_reader_see_everything(self):
        for caller in (ADMIN, SYSTEM_READER):
            self.assertEqual(self.EVERY,
                             ids(self.get('/v3/flavors/', caller)))
            flavor = self.get('/v3/flavors/p3', caller).json['flavor']
            self.assertIn('hosts', flavor)
            self.assertIn('excluded_hosts', flavor)
            self.get('/v3/status', caller)
            self.assertIn(b'flavor_exporter_flavor_available{'
                          b'cloud="default",flavor_id="p2"',
                          self.get('/metrics', caller).body)

    def test_project_reader_is_a_member_here(self):
        reader = {'roles': 'reader', 'project': 'proj-b'}
        self.assertEqual(ids(self.get('/v3/flavors/', OTHER_MEMBER)),
                         ids(self.get('/v3/flavors/', reader)))
        self.get('/v3/status', reader, status=403)

    def test_operator_policy_file_wins(self):
        policy_file = os.path.join(self.useFixture(fixtures.TempDir()).path,
                                   'policy.yaml')
        with open(policy_file, 'w') as f:
            f.write('"capacity:flavor:hosts": "role:member"\n')
        self.flags(group='oslo_policy', policy_file=policy_file)
        # What keystonemiddleware passes on: the headers below.
        self.api = webtest.TestApp(app.make_pecan_app(self.conf, self.backend))
        self.assertIn('hosts', self.get('/v3/flavors/1',
                                        MEMBER).json['flavor'])


class TestNoAuth(PolicyTestCase):

    def test_everything_readable_without_authentication(self):
        self.flags(auth_strategy='noauth')
        self.assertEqual(TestReaders.EVERY,
                         ids(self.app.get('/v3/flavors/')))
        self.assertIn('hosts', self.app.get('/v3/flavors/p1').json['flavor'])


class TestPolicySample(test_base.BaseTestCase):
    """The checked-in policy sample must be what the generator makes."""

    def test_sample_is_up_to_date(self):
        output = os.path.join(self.useFixture(fixtures.TempDir()).path,
                              'policy.yaml')
        generator.generate_sample(args=[
            '--config-file', os.path.join(ROOT, GENERATOR_CONF),
            '--output-file', output])
        with open(output) as fresh, open(os.path.join(ROOT, SAMPLE)) as old:
            self.assertEqual(fresh.read(), old.read(),
                             'Run "tox -e genpolicy" and commit %s' % SAMPLE)


class TestUnreadableHosts(PolicyTestCase):
    """Which hosts could not be read, and why: for those who see hosts."""

    def setUp(self):
        super().setUp()
        broken = model.Host('cmp009', 'cmp009.example.org',
                            availability_zone='az1',
                            unreadable='resource provider rp-9: '
                                       'answered 500 (upstream text)')
        sample.publish(self.store, flavors(),
                       host_list=sample.hosts() + [broken])
        self.names = {'cmp009': 'resource provider rp-9: answered 500 '
                                '(upstream text)'}

    def test_members_see_how_many(self):
        for path in ('/v3/flavors/', '/v3/flavors/g1', '/v3/gpus/',
                     '/v3/gpus/a100', '/v3/flavors/?gpu=true'):
            body = self.get(path, MEMBER).json
            self.assertEqual((True, 1), (body['partial'],
                                         body['unreadable_host_count']),
                             path)
            self.assertNotIn('unreadable_hosts', body, path)
            self.assertNotIn(b'cmp009', self.get(path, MEMBER).body, path)

    def test_readers_see_which_and_why(self):
        for path in ('/v3/flavors/', '/v3/flavors/g1', '/v3/gpus/',
                     '/v3/gpus/a100', '/v3/flavors/?gpu=true'):
            body = self.get(path, SYSTEM_READER).json
            self.assertEqual(1, body['unreadable_host_count'], path)
            self.assertEqual(self.names, body['unreadable_hosts'], path)

    def test_status_names_them_for_readers_only(self):
        self.store.write_status(dict(sample.status(), **{
            pub.UNREADABLE_HOSTS: self.names, pub.UNREADABLE_COUNT: 1}))
        policy_file = os.path.join(self.useFixture(fixtures.TempDir()).path,
                                   'policy.yaml')
        with open(policy_file, 'w') as f:
            f.write('"capacity:status:get": "@"\n')
        self.flags(group='oslo_policy', policy_file=policy_file)
        self.api = webtest.TestApp(app.make_pecan_app(self.conf, self.backend))
        self.store.write_demand({pub.TURNED_AWAY_LOST: 0,
                                 pub.DEMAND_FLAVORS: {'f1': {
                                     pub.NAME: 'g', pub.TURNED_AWAY: 2,
                                     pub.LAST_AT: None,
                                     pub.PROJECTS: {'p1': 2}}}})
        status = self.get('/v3/status', MEMBER).json
        refresh = status['refresh']
        self.assertNotIn('unreadable_hosts', refresh)
        self.assertEqual(1, refresh['unreadable_host_count'])
        # Which projects Nova turned away: the same readers only.
        self.assertNotIn('projects', status['demand']['flavors']['f1'])
        status = self.get('/v3/status', SYSTEM_READER).json
        self.assertEqual(self.names, status['refresh']['unreadable_hosts'])
        self.assertEqual({'p1': 2},
                         status['demand']['flavors']['f1']['projects'])


class TestRememberedDecisions(test_base.TestCase):

    def setUp(self):
        super().setUp()
        self.now = 0.0
        self.oslo = mock.Mock()
        self.oslo.enforce.side_effect = lambda rule, target, creds: (
            'admin' in creds['roles'])
        self.decisions = policy.RememberedDecisions(self.oslo,
                                                    clock=lambda: self.now)

    def test_a_caller_asking_again_costs_nothing(self):
        member = {'roles': ['member'], 'project_id': 'p1'}
        admin = {'roles': ['admin'], 'project_id': 'p1'}
        for _ in range(3):
            self.assertFalse(self.decisions.enforce('r', {}, member))
            self.assertTrue(self.decisions.enforce('r', {}, admin))
        self.assertEqual(2, self.oslo.enforce.call_count)
        # Another target is another decision.
        self.decisions.enforce('r', {'project_id': 'p2'}, member)
        self.assertEqual(3, self.oslo.enforce.call_count)

    def test_forgotten_after_a_second(self):
        member = {'roles': ['member']}
        self.decisions.enforce('r', {}, member)
        self.now = 0.9
        self.decisions.enforce('r', {}, member)
        self.assertEqual(1, self.oslo.enforce.call_count)
        # An edited policy file answers otherwise from now on.
        self.oslo.enforce.side_effect = lambda *_: True
        self.now = 1.0
        self.assertTrue(self.decisions.enforce('r', {}, member))

    def test_a_scope_refusal_is_a_no(self):
        self.oslo.enforce.side_effect = oslo_policy.InvalidScope(
            'r', ['system'], 'project')
        self.assertFalse(self.decisions.enforce('r', {}, {'roles': []}))


class TestPolicyFiles(test_base.TestCase):
    """A policy file that cannot be used: refused at start, kept running."""

    MEMBER = {'roles': ['member'], 'project_id': 'p1'}

    def setUp(self):
        super().setUp()
        self.path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                                 'policy.yaml')
        self.write('"capacity:status:get": "role:admin"\n')
        policy_opts.set_defaults(self.conf)
        self.flags(group='oslo_policy', policy_file=self.path)
        self.flags(auth_strategy='keystone')
        self.log = self.useFixture(fixtures.FakeLogger(
            name='flavor_exporter.api.policy', level=logging.INFO))

    def write(self, text):
        with open(self.path, 'w') as f:
            f.write(text)
        # Another mtime, whatever the file system's resolution.
        later = os.stat(self.path).st_mtime + 10 * (
            getattr(self, 'writes', 0) + 1)
        self.writes = getattr(self, 'writes', 0) + 1
        os.utime(self.path, (later, later))

    def refused(self):
        error = self.assertRaises(policy.PolicyFileError,
                                  policy.check_policy_file, self.conf)
        self.assertNotIn('\n', str(error))
        self.assertIn(self.path, str(error))
        return str(error)

    def test_a_file_that_does_not_parse_is_refused_at_start(self):
        self.write('"capacity:status:get": [role:admin\n')
        self.assertIn('cannot be read as rules: while parsing a flow '
                      'sequence', self.refused())

    def test_a_file_that_is_not_rules_is_refused_at_start(self):
        self.write('- role:admin\n- role:reader\n')
        self.assertIn('cannot be read as rules', self.refused())

    def test_a_rule_that_does_not_parse_is_refused_at_start(self):
        self.write('"capacity:status:get": "role:admin or ("\n')
        self.assertIn('the rule "role:admin or (" cannot be parsed',
                      self.refused())
        # Said once, by the refusal: not a traceback in the log too.
        self.assertNotIn('Traceback', self.log.output)

    def test_a_good_file_starts(self):
        policy.check_policy_file(self.conf)

    def enforcer(self):
        """make_enforcer's, on a clock of the test's."""
        self.now = 0.0
        enforcer = policy.make_enforcer(self.conf)._enforcer
        return policy.RememberedDecisions(
            enforcer, clock=lambda: self.now,
            reload=policy.LastGoodRules(enforcer).reload)

    def ask(self, decisions):
        self.now += policy.RememberedDecisions.KEEP
        return decisions.enforce('capacity:status:get', {}, self.MEMBER)

    def test_a_file_that_breaks_keeps_the_last_good_rules(self):
        decisions = self.enforcer()
        self.assertFalse(self.ask(decisions))
        self.write('"capacity:status:get": [@\n')
        for _ in range(3):
            self.assertFalse(self.ask(decisions))
        warnings = [line for line in self.log.output.splitlines()
                    if 'stay in force' in line]
        self.assertEqual(1, len(warnings), self.log.output)
        self.assertIn('Policy file %s cannot be read as rules' % self.path,
                      warnings[0])
        # Fixed: the new rules, and a line saying so.
        self.write('"capacity:status:get": "@"\n')
        self.assertTrue(self.ask(decisions))
        self.assertIn('read again', self.log.output)

    def test_a_rule_that_breaks_keeps_the_last_good_rules(self):
        decisions = self.enforcer()
        self.write('"capacity:status:get": "@"\n')
        self.assertTrue(self.ask(decisions))
        self.write('"capacity:status:get": "@ or ("\n')
        self.assertTrue(self.ask(decisions))
        self.assertTrue(self.ask(decisions))
        self.assertEqual(1, self.log.output.count('stay in force'))
        self.assertIn('the rule "@ or (" cannot be parsed', self.log.output)

    def test_a_file_removed_keeps_the_last_good_rules(self):
        decisions = self.enforcer()
        os.unlink(self.path)
        self.assertFalse(self.ask(decisions))
        self.assertFalse(self.ask(decisions))
        self.assertEqual(1, self.log.output.count('stay in force'))


class TestPolicyFileBreaksWhileServing(PolicyTestCase):
    """The served API keeps answering by the rules read last."""

    def setUp(self):
        self.path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                                 'policy.yaml')
        with open(self.path, 'w') as f:
            f.write('"capacity:status:get": "@"\n')
        # Every request reads the files again, as a second later would.
        self.useFixture(fixtures.MockPatchObject(
            policy.RememberedDecisions, 'KEEP', 0))
        self.log = self.useFixture(fixtures.FakeLogger(
            name='flavor_exporter.api.policy', level=logging.INFO))
        super().setUp()

    def make(self):
        policy_opts.set_defaults(self.conf)
        self.flags(group='oslo_policy', policy_file=self.path)
        self.api = webtest.TestApp(app.make_pecan_app(self.conf,
                                                      self.backend))

    def test_no_500_and_one_warning(self):
        self.make()
        self.get('/v3/status', MEMBER)
        with open(self.path, 'w') as f:
            f.write('"capacity:status:get": [@\n')
        later = os.stat(self.path).st_mtime + 10
        os.utime(self.path, (later, later))
        for _ in range(5):
            self.get('/v3/status', MEMBER)
        self.assertEqual(1, self.log.output.count('stay in force'),
                         self.log.output)
