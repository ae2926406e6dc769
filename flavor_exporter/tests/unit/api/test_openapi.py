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
"""openapi.json and the policies describe exactly the route table.

And the statuses: every status an operation answers is documented for it,
and every documented status is answered, in the documented shape, with
the documented headers (TestEveryStatus drives each operation through
every way it can answer).
"""

import functools
import json
import os
import time
from unittest import mock

import fixtures
from keystoneauth1 import loading as ks_loading
from keystonemiddleware import opts as ks_opts
import openapi_spec_validator
import webtest

from flavor_exporter.api import app
from flavor_exporter.api import auth
from flavor_exporter.api.controllers import docs
from flavor_exporter.api import hooks
from flavor_exporter.api import routes
from flavor_exporter.policies import capacity as policies
from flavor_exporter.publication import contract as pub
from flavor_exporter.tests.unit.api import base
from flavor_exporter.worker import quotas

#: The identity keystonemiddleware gives a member of project p1.
MEMBER = {'X-Identity-Status': 'Confirmed', 'X-User-Id': 'u1',
          'X-Roles': 'member', 'X-Project-Id': 'p1'}
#: A set check of the sample cloud's flavors.
CHECK = {'servers': [{'flavor': 'gpu.a100', 'count': 1}]}
#: A what-if of the sample cloud.
WHATIF = {'drain': [{'hosts': ['cmp001']}]}
#: A defrag request of a flavor nothing of is fragmented: no servers read.
DEFRAG = {'flavor': 'gpu.a100'}


def body_for(url):
    """The body a POST to url sends: a what-if, defrag or set check."""
    if url.endswith('/defrag'):
        return DEFRAG
    return WHATIF if url.endswith('/whatif') else CHECK


# Sample values for path parameters, all of published flavors and GPUs.
SAMPLES = {'flavor_id': 'g1', 'flavor': 'gpu.a100', 'cloud': 'default',
           'gpu_type': 'a100', 'project_id': 'p1'}


def documented_routes():
    """{path: Route} of the table as OpenAPI lists paths."""
    paths = {}
    for route in routes.TABLE:
        if route.operation in routes.UNDOCUMENTED:
            continue
        paths[route.path] = route
        if route.collection:
            paths[route.path.rstrip('/')] = route
    return paths


class TestOpenApi(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.document = json.loads(docs.openapi_document())

    def test_valid_openapi_3(self):
        openapi_spec_validator.validate(self.document)

    def test_every_route_documented_and_no_other(self):
        self.assertEqual(sorted(documented_routes()),
                         sorted(self.document['paths']))

    def test_operations_are_the_tables(self):
        for path, route in documented_routes().items():
            item = self.document['paths'][path]
            self.assertEqual({route.methods[0].lower()}, set(item) - {'head'},
                             path)
            operation = item[route.methods[0].lower()]['operationId']
            self.assertIn(operation, (route.operation,
                                      route.operation + 'Slash',
                                      route.operation.replace(
                                          'OfCloud', 'SlashOfCloud')))

    def test_policies_document_the_tables_operations(self):
        guarded = {}
        for route in routes.TABLE:
            if route.policy and route.operation:
                guarded.setdefault(route.policy, set()).add(
                    route.path.rstrip('/') if route.collection
                    else route.path)
        documented = {
            rule.name: {op['path'] for op in rule.operations}
            for rule in policies.list_rules()}
        for rule, paths in guarded.items():
            self.assertEqual(paths, documented[rule], rule)
        # The rules that shape answers name only routes of the table.
        tabled = {route.path.rstrip('/') if route.collection else route.path
                  for route in routes.TABLE}
        for rule in (policies.ALL_FLAVORS, policies.HOSTS):
            self.assertLessEqual(documented[rule], tabled, rule)

    def test_documented_answers(self):
        self.publish()
        self.answer_checks()
        self.answer_whatifs()
        self.answer_defrags()
        for path, item in self.document['paths'].items():
            url = path.format(**SAMPLES)
            if 'post' in item:
                operation = item['post']
                response = self.app.post_json(url, body_for(url),
                                              expect_errors=True)
                self.assertEqual(200, response.status_int, url)
            else:
                operation = item['get']
                response = self.app.get(url, expect_errors=True)
            self.assertIn(str(response.status_int), operation['responses'],
                          url)
            content = operation['responses'][str(response.status_int)].get(
                'content', {})
            if response.body:
                media = [c.split(';')[0] for c in content]
                self.assertIn(response.content_type, media, url)

    def test_public_routes_documented_public(self):
        public = {p for p, item in self.document['paths'].items()
                  if next(iter(item.values())).get('security') == []}
        self.assertEqual({path for path, route in documented_routes().items()
                          if route.public}, public)


class TestEveryStatus(base.ApiTestCase):
    """Each operation answers exactly the statuses openapi.json lists."""

    def setUp(self):
        super().setUp()
        self.document = json.loads(docs.openapi_document())
        self.published = self.app
        self.publish()
        self.cold = webtest.TestApp(app.setup_app(self.conf,
                                                  base.FlakyBackend()))

    def resolve(self, response):
        while '$ref' in response:
            name = response['$ref'].rsplit('/', 1)[1]
            response = self.document['components']['responses'][name]
        return response

    def keystone(self, policy_file=None):
        """The API behind keystonemiddleware, whose Keystone is away."""
        self.flags(auth_strategy='keystone')
        group = 'keystone_authtoken'
        for name, options in ks_opts.list_auth_token_opts():
            self.conf.register_opts(options, group=name)
        plugin = ks_loading.get_auth_plugin_conf_options('password')
        self.conf.register_opts(plugin, group=group)
        # Its required auth_url would fail every later test's parsing.
        self.addCleanup(self.conf.unregister_opts, plugin, group=group)
        self.addCleanup(self.conf.clear)
        # Nothing listens on port 1: tokens cannot be validated.
        self.flags(group=group, auth_type='password',
                   www_authenticate_uri='http://127.0.0.1:1/identity',
                   auth_url='http://127.0.0.1:1/v3', username='u',
                   password='p', project_name='p', user_domain_id='default',
                   project_domain_id='default')
        return webtest.TestApp(app.setup_app(self.conf, self.backend))

    def refused_by_policy(self):
        """The API, a token accepted, every policy refusing."""
        rules = os.path.join(self.useFixture(
            fixtures.TempDir()).path, 'policy.yaml')
        with open(rules, 'w') as f:
            for rule in policies.list_rules():
                f.write('"%s": "!"\n' % rule.name)
        self.flags(auth_strategy='keystone')
        self.flags(group='oslo_policy', policy_file=rules)
        # As if keystonemiddleware had accepted the token: the identity
        # headers below are those it sets.
        with mock.patch.object(auth, 'authenticated', lambda app, _: app):
            return webtest.TestApp(app.setup_app(self.conf, self.backend))

    @staticmethod
    def caller(test_app, method):
        """A call of test_app by method; a POST sends body_for(url)."""
        if method == 'post':
            def post(url, **kwargs):
                return test_app.post_json(url, params=body_for(url),
                                          expect_errors=True, **kwargs)
            return post
        return functools.partial(getattr(test_app, method),
                                 expect_errors=True)

    def answers(self, method, path, route):
        """{status: [webtest responses]} of every way path can answer."""
        url = path.format(**SAMPLES)
        answers = []
        if method == 'post':
            if url.endswith('/defrag'):
                answers = self.defrag_answers(url)
            elif url.endswith('/whatif'):
                answers = self.whatif_answers(url)
            else:
                answers = self.check_answers(url)
        call = self.caller(self.published, method)
        answers += [
            call(url), call(url + '?x=%ff'),
            call(url + '?q=' + 'a' * 17000),
            call(url, headers={'X-Big': 'a' * 40000}),
        ]
        if 'ETag' in answers[0].headers:
            etag = answers[0].headers['ETag']
            answers.append(call(url, headers={'If-None-Match': etag}))
        if route.query != routes.IGNORED:
            answers.append(call(url + '?bogus=1'))
        for parameter in ('{flavor}', '{flavor_id}', '{cloud}', '{gpu_type}'):
            if parameter in path:
                answers.append(call(path.replace(parameter, 'nope').format(
                    **SAMPLES)))
        if '{project_id}' in path:
            answers += self.project_answers(call, path)
        answers.append(self.caller(self.cold, method)(url))
        with mock.patch.object(hooks.ContextHook, 'on_route',
                               side_effect=RuntimeError('boom')):
            answers.append(call(url))
        if not route.public:
            keystone = self.caller(self.keystone(), method)
            answers += [keystone(url),
                        keystone(url, headers={'X-Auth-Token': 'a-token'})]
        if route.policy or method == 'post':
            refusing = self.refused_by_policy()
            answers.append(self.caller(refusing, method)(url,
                                                         headers=MEMBER))
            self.flags(auth_strategy='noauth')
        found = {}
        for answer in answers:
            found.setdefault(str(answer.status_int), []).append(answer)
        return found

    def check_answers(self, url):
        """What only a check answers: its body, the worker's problems."""
        # The worker answers while the API waits; then a client over its
        # share of new checks, with nobody answering.
        self.flags(group='checks', wait=5)
        self.published = webtest.TestApp(app.setup_app(self.conf,
                                                       self.backend))
        post = functools.partial(self.published.post_json, url,
                                 expect_errors=True)
        raw = functools.partial(self.published.post, url,
                                expect_errors=True)
        self.answer_checks({'gone': quotas.ProjectUnknown('gone'),
                            'broken': RuntimeError('timed out')})
        answers = [post({}), post(dict(CHECK, project_id='gone')),
                   post(dict(CHECK, project_id='broken')),
                   raw(b' ' * 70000, content_type='application/json'),
                   raw(b'{}', content_type='text/plain')]
        answers.append(self.over_the_share(url, lambda count: {
            'servers': [{'flavor': 'm1.large', 'count': count}]}))
        self.flags(group='checks', wait=5, new_per_client=30)
        return answers

    def defrag_answers(self, url):
        """What only a defrag request answers: its body, the worker's."""
        self.flags(group='checks', wait=5)
        self.published = webtest.TestApp(app.setup_app(self.conf,
                                                       self.backend))
        post = functools.partial(self.published.post_json, url,
                                 expect_errors=True)
        raw = functools.partial(self.published.post, url,
                                expect_errors=True)
        self.answer_defrags()
        answers = [post({}), post({'flavor': 'nope'}),
                   # The worker's listing of the servers fails: 502.
                   post({'flavor': 'frag20'}),
                   raw(b' ' * 70000, content_type='application/json'),
                   raw(b'{}', content_type='text/plain')]
        answers.append(self.over_the_share(url, lambda count: {
            'flavor': 'gpu.a100', 'count': count + 1}))
        self.flags(group='checks', enabled=False)
        answers.append(webtest.TestApp(app.setup_app(
            self.conf, self.backend)).post_json(url, DEFRAG,
                                                expect_errors=True))
        self.flags(group='checks', wait=5, new_per_client=30, enabled=True)
        return answers

    def whatif_answers(self, url):
        """What only a what-if answers: its body, the worker's problems."""
        self.flags(group='checks', wait=5)
        self.published = webtest.TestApp(app.setup_app(self.conf,
                                                       self.backend))
        post = functools.partial(self.published.post_json, url,
                                 expect_errors=True)
        raw = functools.partial(self.published.post, url,
                                expect_errors=True)
        self.answer_whatifs()
        answers = [post({}), post({'drain': [{'hosts': ['nohost']}]}),
                   # The worker's listing of the servers fails: 502.
                   post({'drain': [{'hosts': ['cmp000'],
                                    'servers': 'evacuate'}]}),
                   raw(b' ' * 70000, content_type='application/json'),
                   raw(b'{}', content_type='text/plain')]
        answers.append(self.over_the_share(url, lambda count: {
            'add': [{'like': 'cmp001', 'count': count + 2}]}))
        self.flags(group='checks', enabled=False)
        answers.append(webtest.TestApp(app.setup_app(
            self.conf, self.backend)).post_json(url, WHATIF,
                                                expect_errors=True))
        self.flags(group='checks', wait=5, new_per_client=30, enabled=True)
        return answers

    def over_the_share(self, url, body):
        """The answer to a client over its share of new requests (429).

        body(n): the n-th new request's body (n from 1). A share of one a
        minute; twice that and one in case a minute, and with it the
        share, began in between (the requests before counted in the last).
        """
        self.flags(group='checks', wait=0, new_per_client=1)
        refused = webtest.TestApp(app.setup_app(self.conf, self.backend))
        for count in range(1, 4):
            answer = refused.post_json(url, body(count), expect_errors=True)
            if answer.status_int == 429:
                break
        return answer

    def project_answers(self, call, path):
        """A project unknown, one unreadable, and a client over its share."""
        def url(project_id):
            return path.format(**dict(SAMPLES, project_id=project_id))
        answers = []
        for project_id, kind in (('unknown', pub.UNKNOWN_PROJECT),
                                 ('broken', pub.QUOTA_UNREADABLE)):
            self.store.publish_project(project_id, {pub.PROBLEM: {
                pub.PROBLEM_KIND: kind, pub.REASON: 'why',
                pub.RETRY_AT: time.time() + 60}}, 60)
            answers.append(call(url(project_id)))
        # Over its share at the limit's next one; twice the share in case
        # a minute, and with it the share, began in between.
        for i in range(2 * (self.conf.projects.new_per_client + 1)):
            answers.append(call(url('new%d' % i)))
            if answers[-1].status_int == 429:
                break
        return answers

    def check_answer(self, url, code, documented, answer):
        headers = documented.get('headers', {})
        self.assertIn('X-OpenStack-Request-ID', headers, (url, code))
        for name in headers:
            if name in ('ETag', 'Last-Modified', 'Retry-After',
                        'X-Flavor-Exporter-Stale', 'WWW-Authenticate'):
                continue  # some answers of the status only
            self.assertIn(name, answer.headers, (url, code))
        content = documented.get('content', {})
        if answer.body:
            self.assertIn(answer.content_type,
                          [media.split(';')[0] for media in content],
                          (url, code))
        schema = content.get('application/json', {}).get('schema', {})
        if answer.body and answer.content_type == 'application/json' and \
                '$ref' in schema:
            name = schema['$ref'].rsplit('/', 1)[1]
            if name in ('Error', 'LegacyError'):
                self.assertEqual(name == 'LegacyError',
                                 list(answer.json) == ['message'],
                                 (url, code, answer.json))

    def test_documented_statuses_are_the_answered_ones(self):
        table = documented_routes()
        for path, item in self.document['paths'].items():
            for method, operation in item.items():
                found = self.answers(method, path, table[path])
                self.assertEqual(sorted(operation['responses']),
                                 sorted(found), '%s %s' % (method, path))
                for code, answers in found.items():
                    documented = self.resolve(operation['responses'][code])
                    for answer in answers:
                        self.check_answer(path, code, documented, answer)

    def test_other_methods(self):
        table = documented_routes()
        for path in self.document['paths']:
            documented = self.resolve({
                '$ref': '#/components/responses/%sMethodNotAllowed'
                % ('Legacy' if path.startswith('/gpus') else '')})
            url = path.format(**SAMPLES)
            methods = table[path].methods
            for method in ('get', 'post', 'put', 'delete', 'patch',
                           'options'):
                if method.upper() in methods:
                    continue
                answer = getattr(self.published, method)(url, status=405)
                self.assertEqual(', '.join(methods), answer.headers['Allow'])
                self.check_answer(url, '405', documented, answer)

    def test_head_is_answered_as_get(self):
        # OpenAPI lists HEAD only where it differs (/healthcheck: 204).
        for path, item in self.document['paths'].items():
            if 'head' in item or 'get' not in item:
                continue
            url = path.format(**SAMPLES)
            got = self.published.get(url)
            head = self.published.head(url)
            self.assertEqual(got.status_int, head.status_int, url)
            self.assertEqual(b'', head.body)
