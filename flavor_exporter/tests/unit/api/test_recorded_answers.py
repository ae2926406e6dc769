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
"""What a client sees, byte for byte: today's answers, recorded once.

recorded_answers.json holds the API's answers (status line, headers,
body) to a fixed list of raw WSGI requests: every route of the table
(api/routes.py) with GET and HEAD, with and without the trailing slash,
under /v3/clouds/{cloud}/ for the default and an unknown cloud; the
filters, valid, invalid and unknown; ETag and 304; 404 in each family's
shape; 405 with Allow for each route family; POST /v3/checks answered by
a worker thread and refused in every way; the project routes; 414, 431,
400 (not UTF-8), 503 with Retry-After (cold, unreadable), 502, 429, 401
and 403 (HTTP Basic, Keystone without a token), stale and partial data,
CORS and proxy headers; /, /v2/, /v3/, /docs, /openapi.json, /metrics and
/healthcheck. There is no 406: no layer of the API answers one.

The answers were recorded ONCE from commit e46020e, the hand-made
dispatcher, before the API was rewritten onto Pecan (issue 37, item 2);
the rewrite must answer the same. Do not re-record the file to make a
change pass: a difference is a change every client sees. Recorded with
this module copied into a worktree of that commit::

    git worktree add /work/e46020e e46020e
    cp flavor_exporter/tests/unit/api/test_recorded_answers.py \
        /work/e46020e/flavor_exporter/tests/unit/api/
    cd /work/e46020e && PYTHONPATH=. python -m \
        flavor_exporter.tests.unit.api.test_recorded_answers --record

and the recording copied back. Replayed as any unit test: stestr run
test_recorded_answers (about a second).

Fields added since, on purpose (ADDED_FIELDS: fragmentation, issue 39)
are the other kind of difference: every scenario publishes the documents
without them, as e46020e rendered them (as_recorded), so that the rest is
still replayed byte for byte, and test_added_fields_fragmentation serves
the documents as rendered today and asserts that the answers are the
recorded ones plus exactly those fields.

Two of today's answers are bugs, not contract, and change on purpose
(EXPECTED_DIFFERENCES): they are recorded as today's code gives them,
left out of the byte-for-byte replay, and the tests named
test_expected_difference_* assert the intended answers instead. Those
two tests FAIL on e46020e; the Pecan API must make them pass.

The data is fixed so that the answers are the same on every run: the
sample cloud collected at COLLECTED_AT, published by a publisher whose
clock says PUBLISHED_AT and whose generation ids are counted, the
project's quota read at QUOTA_READ_AT, local time UTC (the predecessor's
timestamps are local). [api] stale_after and [projects] max_age are long
enough for that data to be fresh. What still varies is rewritten by
normalise(), the same function when recording and replaying.
"""

import base64
import collections
import datetime
import difflib
import hashlib
import io
import json
import os
import re
import sys
import threading
import time
import types
from unittest import mock
from urllib import parse
import uuid

import bcrypt
import fixtures
from keystonemiddleware import opts as ks_opts
from oslo_policy import opts as policy_opts

from flavor_exporter.api import app as api_app
from flavor_exporter.capacity import engine
from flavor_exporter.capacity import model
from flavor_exporter.common import clouds
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher as publisher_mod
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.tests.unit.api import base
from flavor_exporter.worker import checks as worker_checks
from flavor_exporter.worker import quotas

RECORDING = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         'recorded_answers.json')
RECORDED_FROM = 'e46020e'

COLLECTED_AT = datetime.datetime(2026, 11, 29, 17, 0, 0,
                                 tzinfo=datetime.timezone.utc)
PUBLISHED_AT = COLLECTED_AT.timestamp() + 1.5
QUOTA_READ_AT = COLLECTED_AT.timestamp() + 30
#: Long enough for COLLECTED_AT's data and quota to be fresh for years.
FRESH_FOR = 10 ** 9
PORTAL = 'https://portal.example.org'
CLIENT = '192.0.2.10'
PASSWORDS = {'portal': 'secret', 'prometheus': 'scrape',
             'operator': 'admin'}
POLICY = (
    '"admin_or_system_reader": "role:admin or (role:reader and '
    'system_scope:all) or user_id:operator"\n'
    '"capacity:metrics:get": "rule:admin_or_system_reader or '
    'user_id:prometheus"\n')

GPU_SET = {'servers': [{'flavor': 'gpu.a100', 'count': 3},
                       {'flavor': 'm1.large', 'count': 1}]}
#: Bodies bigger than this are recorded as length, SHA-256 and head.
BIG_BODY = 16384
HEAD_BYTES = 200

# Expected differences: today's answers that are bugs, not contract. They
# are recorded, not replayed byte for byte; the intended answers are
# asserted by the test_expected_difference_* tests.
UTF8_NAME = 'GET /v3/flavors/%C3%A9'
UTF8_UNKNOWN = 'GET /v3/flavors/%C3%BC'
CHUNKED = 'POST /v3/checks chunked'
EXPECTED_DIFFERENCES = {
    UTF8_NAME: 'A flavor name in the path is percent-decoded UTF-8. Today '
               'PATH_INFO (the bytes as latin-1, PEP 3333) is used as it '
               'is: 404 naming "\u00c3\u00a9". Intended: the flavor named '
               '"\u00e9" (id acc), as GET /v3/flavors/acc answers it.',
    UTF8_UNKNOWN: 'The same for a name no flavor has: today 404 naming '
                  '"\u00c3\u00bc"; intended: 404 naming "\u00fc".',
    CHUNKED: 'A chunked body (Transfer-Encoding: chunked, no '
             'Content-Length, wsgi.input_terminated) is read. Today it '
             'is read as empty: 400 "The body is not JSON". Intended: the '
             'check answered, as for the same body with a Content-Length.',
}

# Added fields: published since e46020e on purpose, left out of the
# documents every scenario publishes (as_recorded) and asserted by
# test_added_fields_fragmentation. Keys of the v3 documents' JSON
# objects, and metric families of /metrics.
ADDED_FIELDS = ('fragmented', 'fragmentation', 'fragmented_by_flavor',
                'fragments')
ADDED_METRICS = ('flavor_exporter_flavor_fragmented',
                 'flavor_exporter_gpu_devices_fragmented')


def _without_added(value):
    if isinstance(value, dict):
        return {k: _without_added(v) for k, v in value.items()
                if k not in ADDED_FIELDS}
    if isinstance(value, list):
        return [_without_added(v) for v in value]
    return value


def _without_added_metrics(text):
    return ''.join(line for line in text.splitlines(keepends=True)
                   if not any(line.startswith(prefix) for prefix in (
                       ADDED_METRICS + tuple('# %s %s ' % (kind, name)
                                             for name in ADDED_METRICS
                                             for kind in ('HELP', 'TYPE')))))


def as_recorded(documents):
    """sample.documents, without ADDED_FIELDS: as e46020e rendered them."""
    def made(*args, **kwargs):
        docs, pointer = documents(*args, **kwargs)
        for name, body in docs.items():
            if name == pub.METRICS:
                docs[name] = _without_added_metrics(
                    body.decode('utf-8')).encode('utf-8')
                continue
            try:
                value = json.loads(body)
            except ValueError:
                continue
            docs[name] = pub.encode(_without_added(value))
        return docs, pointer
    return made


def accented():
    """A flavor named with an accent, beside the sample's."""
    return model.Flavor('acc', '\u00e9', vcpus=2, ram=4096, disk=10)


def _private(flavor_id, name, projects, **specs):
    return model.Flavor(flavor_id, name, vcpus=2, ram=4096, disk=10,
                        is_public=False, projects=projects,
                        extra_specs=specs)


def flavors():
    """The sample's flavors, private ones, and one named with an accent."""
    return sample.flavors() + [
        _private('p1', 'private.shared', ('p1',)),
        _private('p2', 'private.other', ('p2', 'p3')),
        _private('pg', 'gpu.private', ('p1',),
                 **{'pci_passthrough:alias': 'a100:1'}),
        accented(),
    ]


def unreadable_hosts():
    return sample.hosts() + [model.Host(
        'broken', 'broken.example.org',
        unreadable='resource provider: answered 500')]


# Requests

class EtagOf(collections.namedtuple('EtagOf', 'name')):
    """The ETag of the answer to an earlier exchange of the same run."""


class Exchange(collections.namedtuple('Exchange', (
        'name method path query headers body chunked path_info client '
        'environ'))):
    """One raw request.

    path: as on the request line (percent-encoded); PATH_INFO is its
    bytes decoded as latin-1, as servers hand it over (PEP 3333), unless
    path_info says otherwise. headers: (name, value or EtagOf) pairs.
    body: bytes, sent with a Content-Length unless chunked. environ:
    extra environ keys, as a server might set them.
    """

    def summary(self):
        """What the recording says of the request (JSON)."""
        summary = {'method': self.method, 'path': _short(self.path)}
        if self.query:
            summary['query'] = _short(self.query)
        if self.path_info is not None:
            summary['path_info'] = _short(self.path_info)
        if len(self.headers) > 20:
            summary['headers'] = _short(json.dumps(self.headers))
        elif self.headers:
            summary['headers'] = [
                [name, 'etag-of:' + value.name
                 if isinstance(value, EtagOf) else _short(value)]
                for name, value in self.headers]
        if self.body:
            summary['body'] = _short(self.body.decode('utf-8', 'replace'))
        if self.chunked:
            summary['chunked'] = True
        if self.client != CLIENT:
            summary['client'] = self.client
        if self.environ:
            summary['environ'] = {k: _short(v)
                                  for k, v in sorted(self.environ.items())}
        return summary


def _short(text):
    if len(text) <= 300:
        return text
    return '%s...(%d characters, sha256 %s)' % (
        text[:100], len(text), hashlib.sha256(text.encode(
            'utf-8', 'surrogateescape')).hexdigest())


def ask(method, path, query='', headers=(), body=b'', name=None,
        chunked=False, path_info=None, client=CLIENT, environ=None):
    if isinstance(headers, dict):
        headers = tuple(headers.items())
    if name is None:
        name = '%s %s%s' % (method, path, '?' + _short(query)
                            if query else '')
    return Exchange(name, method, path, query, tuple(headers), body,
                    chunked, path_info, client, environ or {})


def get(path, query='', **kwargs):
    return ask('GET', path, query, **kwargs)


def head(path, query='', **kwargs):
    return ask('HEAD', path, query, **kwargs)


def post_json(path, value, name=None, **kwargs):
    return ask('POST', path, body=json.dumps(value).encode('utf-8'),
               headers=kwargs.pop('headers', ()) + (
                   ('Content-Type', 'application/json'),),
               name=name, **kwargs)


def get_and_head(*paths):
    return [made for path in paths for made in (get(path), head(path))]


def basic(user, password):
    return ('Authorization', 'Basic ' + base64.b64encode(
        ('%s:%s' % (user, password)).encode()).decode())


def environ_of(exchange, etags):
    """The WSGI environ of an Exchange, as a server would make it."""
    path_info = exchange.path_info
    if path_info is None:
        path_info = parse.unquote_to_bytes(exchange.path).decode('latin-1')
    environ = {
        'REQUEST_METHOD': exchange.method, 'SCRIPT_NAME': '',
        'PATH_INFO': path_info, 'QUERY_STRING': exchange.query,
        'SERVER_NAME': 'localhost', 'SERVER_PORT': '80',
        'SERVER_PROTOCOL': 'HTTP/1.1', 'REMOTE_ADDR': exchange.client,
        'HTTP_HOST': 'localhost',
        'wsgi.version': (1, 0), 'wsgi.url_scheme': 'http',
        'wsgi.input': io.BytesIO(exchange.body), 'wsgi.errors': io.StringIO(),
        'wsgi.multithread': True, 'wsgi.multiprocess': False,
        'wsgi.run_once': False,
    }
    if exchange.chunked:
        environ['HTTP_TRANSFER_ENCODING'] = 'chunked'
        environ['wsgi.input_terminated'] = True
    elif exchange.body or exchange.method in ('POST', 'PUT', 'PATCH'):
        environ['CONTENT_LENGTH'] = str(len(exchange.body))
    for name, value in exchange.headers:
        if isinstance(value, EtagOf):
            value = etags[value.name]
        key = name.upper().replace('-', '_')
        if key not in ('CONTENT_TYPE', 'CONTENT_LENGTH'):
            key = 'HTTP_' + key
        environ[key] = value
    environ.update(exchange.environ)
    return environ


def call(application, environ):
    """(status line, [(name, value)], body bytes) of a WSGI call."""
    started = []

    def start_response(status, headers, exc_info=None):
        started[:] = [status, list(headers)]
        return lambda data: None
    result = application(environ, start_response)
    try:
        body = b''.join(result)
    finally:
        if hasattr(result, 'close'):
            result.close()
    return started[0], started[1], body


# Normalisation

REQUEST_ID = re.compile(r'req-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-'
                        r'[89ab][0-9a-f]{3}-[0-9a-f]{12}\Z')
#: Bodies with the wall clock in them: (pattern, replacement).
_TIME_DERIVED = [
    # /v3/status and /v3/clouds/: now - the data's collection time.
    (re.compile(rb'"age_seconds": [0-9][0-9.e+]*'), b'"age_seconds": "<age>"'),
    # /metrics: the same.
    (re.compile(rb'(flavor_exporter_data_age_seconds\{[^}]*\}) [0-9.e+]+'),
     rb'\1 <age>'),
    # /healthcheck (oslo.middleware's text, JSON and HTML).
    (re.compile(rb'age [0-9]+ s'), b'age <age> s'),
]
_RETRY_IN = re.compile(rb'Retry in [0-9]+ seconds')
#: The package's version in the document of /.
_VERSION = re.compile(rb'^  "version": "[^"]*",$', re.MULTILINE)


def _time_derived_route(path):
    """Whether the answer to path says how old the data is now."""
    path = re.sub(r'^/v3/clouds/[^/]+/', '/v3/', path.rstrip('/') + '/')
    return path in ('/v3/status/', '/v3/clouds/', '/metrics/',
                    '/healthcheck/')


def normalise(exchange, status, headers, body):
    """An answer as recorded: what varies between runs rewritten.

    The same function records and replays, so that everything else is
    compared byte for byte. Rewritten, and nothing else:

    - X-OpenStack-Request-ID: a new id per request; it must be an id of
      oslo.context's format, req-<UUID 4>, else it is kept as it is (and
      differs);
    - Date, if a layer adds one: the time of the answer;
    - in the answers of /v3/status, /v3/clouds/, /metrics and
      /healthcheck (a cloud's too): the data's age (age_seconds,
      flavor_exporter_data_age_seconds, "age N s"), which is the wall
      clock minus the fixed collection time, and so their Content-Length
      (exchange() checks every Content-Length against the body first);
    - a 502 of a project route: the seconds until the worker reads the
      quota again (Retry-After, "Retry in N seconds"), counted from the
      wall clock, and so its Content-Length;
    - the package's version in the document of / (pbr's, which moves
      with every release tag), and so its Content-Length.

    Headers are a multiset: sorted (lower-cased name, value) pairs.
    Returns the recorded form: {"status", "headers", "body"}.
    """
    path = exchange.path
    volatile = _time_derived_route(path)
    retry_counted = (status.startswith('502') and
                     path.startswith(('/v3/projects/', '/v3/clouds/')) and
                     '/projects/' in path)
    if retry_counted:
        body = _RETRY_IN.sub(b'Retry in <seconds> seconds', body)
    if volatile:
        for pattern, replacement in _TIME_DERIVED:
            body = pattern.sub(replacement, body)
    versioned = path == '/'
    if versioned:
        body = _VERSION.sub(b'  "version": "<version>",', body)
    normalised = []
    for name, value in headers:
        lower = name.lower()
        if lower == 'x-openstack-request-id' and REQUEST_ID.match(value):
            value = 'req-<normalised>'
        elif lower == 'date':
            value = '<date>'
        elif lower == 'retry-after' and retry_counted and value.isdigit():
            value = '<seconds>'
        elif lower == 'content-length' and (volatile or retry_counted or
                                            versioned):
            value = '<length>'
        normalised.append([lower, value])
    return {'status': status, 'headers': sorted(normalised),
            'body': recorded_body(body)}


def _described(answer):
    """An /openapi.json answer with its body and length left aside."""
    return dict(answer, body=None, headers=[
        header for header in answer['headers']
        if header[0] != 'content-length'])


def recorded_body(body):
    """Bytes as the recording holds them: text, base64, or a digest."""
    if len(body) > BIG_BODY:
        head_ = body[:HEAD_BYTES]
        return {'length': len(body),
                'sha256': hashlib.sha256(body).hexdigest(),
                'head_base64': base64.b64encode(head_).decode('ascii')}
    try:
        return {'text': body.decode('utf-8')}
    except UnicodeDecodeError:
        return {'base64': base64.b64encode(body).decode('ascii')}


# The recording

_RECORD = {'on': False, 'scenarios': {}}


def load_recording():
    with open(RECORDING, encoding='utf-8') as f:
        return json.load(f)


def write_recording(scenarios):
    document = {
        'recorded_from': RECORDED_FROM,
        'note': 'Recorded once from e46020e by test_recorded_answers.py '
                '--record; never re-record it to make a change pass.',
        'expected_differences': EXPECTED_DIFFERENCES,
        'scenarios': scenarios,
    }
    with open(RECORDING, 'w', encoding='utf-8') as f:
        json.dump(document, f, indent=1, ensure_ascii=False, sort_keys=True)
        f.write('\n')


def _describe(name, expected, got):
    lines = ['%s:' % name]
    if expected['status'] != got['status']:
        lines.append('  status %r, recorded %r' % (got['status'],
                                                   expected['status']))
    want = collections.Counter(map(tuple, expected['headers']))
    have = collections.Counter(map(tuple, got['headers']))
    for header in sorted((want - have).elements()):
        lines.append('  header missing: %s: %s' % header)
    for header in sorted((have - want).elements()):
        lines.append('  header added:   %s: %s' % header)
    if expected['body'] != got['body']:
        old, new = expected['body'], got['body']
        if 'text' in old and 'text' in new:
            diff = list(difflib.unified_diff(
                old['text'].splitlines(), new['text'].splitlines(),
                'recorded', 'answered', lineterm='', n=1))
            if len(diff) > 3 or not diff:
                lines += ['  body: ' + line for line in diff[:40]]
            else:
                lines.append('  body %r, recorded %r' % (
                    new['text'][:600], old['text'][:600]))
        else:
            lines.append('  body %s, recorded %s' % (
                json.dumps(new)[:600], json.dumps(old)[:600]))
    return '\n'.join(lines)


# The tests

class RecordedAnswersTestCase(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        # The predecessor's timestamps are in local time.
        self.useFixture(fixtures.EnvironmentVariable('TZ', 'UTC'))
        time.tzset()
        self.addCleanup(time.tzset)
        self.flags(group='api', stale_after=FRESH_FOR)
        self.flags(group='projects', max_age=FRESH_FOR)
        self.flags(group='checks', wait=5)
        self.generations = iter(range(1, 1000))
        self.store = self.fixed_store(self.backend)

    def fixed_store(self, backend):
        """A Publisher with a fixed clock and counted generation ids."""
        return publisher_mod.Publisher(
            backend, clouds.default(self.conf).key_prefix,
            self.conf.document_cache.expiration_time,
            clock=lambda: PUBLISHED_AT)

    #: Publish the documents as recorded (without ADDED_FIELDS).
    recorded_fields_only = True

    def publish_fixed(self, flavor_list=None, host_list=None,
                      collected_at=COLLECTED_AT):
        documents = sample.documents
        if self.recorded_fields_only:
            documents = as_recorded(documents)
        with mock.patch.object(publisher_mod.uuid, 'uuid4', lambda: uuid.UUID(
                int=next(self.generations))), \
                mock.patch.object(sample, 'documents', documents):
            sample.publish(self.store, flavor_list, collected_at,
                           host_list=host_list)
        sample.publish_project(self.store, sample.PROJECT,
                               read_at=QUOTA_READ_AT,
                               flavor_list=flavor_list)

    def publish_problem(self, project_id, kind, reason, in_seconds):
        self.store.publish_project(project_id, {pub.PROBLEM: {
            pub.PROBLEM_KIND: kind, pub.REASON: reason,
            pub.RETRY_AT: time.time() + in_seconds}}, 900)

    def check_worker(self, flavor_list, readings=None):
        """A leading worker's answers to set checks, in a thread.

        base.ApiTestCase.answer_checks, on the report of flavor_list.
        """
        refresher = types.SimpleNamespace(
            last_report=sample.report(flavor_list, collected_at=COLLECTED_AT),
            client=None)
        answers = worker_checks.CheckAnswers(
            self.conf, self.store, refresher, clouds.default(self.conf),
            engine.Options(), base.SampleQuotas(readings))
        stop = threading.Event()

        def answer():
            while not stop.wait(0.01):
                answers.answer()
        thread = threading.Thread(target=answer, daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(stop.set)

    def user_file(self):
        """An htpasswd file of PASSWORDS (bcrypt) and a policy file."""
        folder = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(folder, 'htpasswd')
        with open(path, 'w') as f:
            for user, password in sorted(PASSWORDS.items()):
                f.write('%s:%s\n' % (user, bcrypt.hashpw(
                    password.encode(), bcrypt.gensalt(4)).decode()))
        policy_file = os.path.join(folder, 'policy.yaml')
        with open(policy_file, 'w') as f:
            f.write(POLICY)
        policy_opts.set_defaults(self.conf)
        self.flags(group='oslo_policy', policy_file=policy_file)
        return path

    def keystone(self):
        self.flags(auth_strategy='keystone')
        for group, options in ks_opts.list_auth_token_opts():
            self.conf.register_opts(options, group=group)
        # Only put in the WWW-Authenticate header: nothing connects to it.
        self.flags(group='keystone_authtoken',
                   www_authenticate_uri='http://127.0.0.1:5000/identity')

    def setup(self, scenario):
        """The app of scenario, after publishing what it serves."""
        getattr(self, 'setup_' + scenario)()
        return api_app.setup_app(self.conf, self.backend)

    def exchange(self, application, exchanges):
        """{name: normalised answer} of each exchange, in order."""
        answers = collections.OrderedDict()
        etags = {}
        for exchange in exchanges:
            if exchange.name in answers:
                self.fail('Two exchanges are named %s' % exchange.name)
            environ = environ_of(exchange, etags)
            status, headers, body = call(application, environ)
            for name, value in headers:
                if name.lower() == 'content-length' and \
                        exchange.method != 'HEAD' and value != str(len(body)):
                    self.fail('%s: Content-Length %s for %d bytes'
                              % (exchange.name, value, len(body)))
                if name.lower() == 'etag':
                    etags[exchange.name] = value
            answers[exchange.name] = dict(
                normalise(exchange, status, headers, body),
                request=exchange.summary())
        return answers

    def replay(self, scenario):
        exchanges = SCENARIOS[scenario]()
        answers = self.exchange(self.setup(scenario), exchanges)
        if _RECORD['on']:
            _RECORD['scenarios'][scenario] = [
                dict(answer, name=name) for name, answer in answers.items()]
            return
        recorded = collections.OrderedDict(
            (entry['name'], entry)
            for entry in load_recording()['scenarios'][scenario])
        self.assertEqual(list(recorded), list(answers),
                         'The exchanges of scenario %s are not those '
                         'recorded; the list is fixed.' % scenario)
        failures = []
        for name, answer in answers.items():
            expected = recorded[name]
            self.assertEqual(expected['request'], answer['request'], name)
            if name in EXPECTED_DIFFERENCES:
                continue
            got = {k: answer[k] for k in ('status', 'headers', 'body')}
            want = {k: expected[k] for k in ('status', 'headers', 'body')}
            if answer['request']['path'].rstrip('/') == '/openapi.json':
                # The API's description grows with the API (a status a
                # new limit answers, say): its body is the package's
                # openapi.json (test_openapi checks that document), the
                # rest of the answer is compared as recorded.
                got, want = _described(got), _described(want)
            if got != want:
                failures.append(_describe(name, want, got))
        if failures:
            self.fail('%d of %d answers of scenario %s differ from those '
                      'recorded from %s:\n%s' % (
                          len(failures), len(answers), scenario,
                          RECORDED_FROM, '\n'.join(failures)))

    # Scenarios: the app, and what it serves.

    def setup_main(self):
        """noauth, the sample cloud and more, a check worker."""
        self.publish_fixed(flavors())
        self.publish_problem('gone', pub.UNKNOWN_PROJECT,
                             'Nova and Keystone know no project gone', 3600)
        self.publish_problem('broken', pub.QUOTA_UNREADABLE,
                             'compute GET /os-quota-sets/broken/detail '
                             'answered 500', 25)
        self.check_worker(flavors(), {
            'gone': quotas.ProjectUnknown(
                'Nova and Keystone know no project gone'),
            'broken': RuntimeError('identity GET /limits: timed out')})

    def setup_cold(self):
        """Nothing published: a cold cache."""
        self.flags(group='api', retry_after=7)

    def setup_unreadable(self):
        """The cache does not answer, and this process holds nothing."""
        self.backend.down = True

    def setup_stale(self):
        """Data older than [api] stale_after."""
        self.flags(group='api', stale_after=60)
        self.publish_fixed(flavors())

    def setup_partial(self):
        """One host unreadable: partial data, degraded health."""
        self.publish_fixed(host_list=unreadable_hosts())

    def setup_limits(self):
        """No worker answers; each client's share of new questions is 2."""
        self.flags(group='checks', wait=0, new_per_client=2, retry_after=3)
        self.flags(group='projects', new_per_client=2)
        self.publish_fixed()

    def setup_basic(self):
        """auth_strategy = http_basic, a policy naming Basic users."""
        self.flags(auth_strategy='http_basic',
                   http_basic_auth_user_file=self.user_file())
        self.publish_fixed(flavors())
        self.check_worker(flavors())

    def setup_keystone(self):
        """auth_strategy = keystone: requests without a token."""
        self.keystone()
        self.publish_fixed()

    def setup_cors_proxy(self):
        """[cors] allowed_origin and proxy headers parsing set."""
        self.flags(group='cors', allowed_origin=[PORTAL])
        self.flags(group='oslo_middleware', enable_proxy_headers_parsing=True)
        self.publish_fixed()

    def test_scenario_main(self):
        self.replay('main')

    def test_scenario_cold(self):
        self.replay('cold')

    def test_scenario_unreadable(self):
        self.replay('unreadable')

    def test_scenario_stale(self):
        self.replay('stale')

    def test_scenario_partial(self):
        self.replay('partial')

    def test_scenario_limits(self):
        self.replay('limits')

    def test_scenario_basic(self):
        self.replay('basic')

    def test_scenario_keystone(self):
        self.replay('keystone')

    def test_scenario_cors_proxy(self):
        self.replay('cors_proxy')

    def test_recording_is_complete(self):
        recorded = load_recording()
        self.assertEqual(RECORDED_FROM, recorded['recorded_from'])
        self.assertEqual(sorted(SCENARIOS), sorted(recorded['scenarios']))
        names = {entry['name'] for entries in recorded['scenarios'].values()
                 for entry in entries}
        self.assertLessEqual(set(EXPECTED_DIFFERENCES), names)

    # Expected differences. These two tests FAIL on e46020e, whose answers
    # are bugs (EXPECTED_DIFFERENCES); they pass once the API decodes the
    # path as UTF-8 and reads chunked bodies. Plain asserts, on purpose:
    # no skip, no expectedFailure.

    def main_answers(self, *names):
        application = self.setup('main')
        wanted = [e for e in SCENARIOS['main']() if e.name in names]
        return self.exchange(application, wanted)

    def test_expected_difference_utf8_flavor_name(self):
        # EXPECTED TO FAIL ON e46020e (today: 404 naming "Ã©").
        answers = self.main_answers('GET /v3/flavors/acc', UTF8_NAME,
                                    UTF8_UNKNOWN, 'GET /v3/flavors/nope')
        by_id = answers['GET /v3/flavors/acc']
        self.assertEqual('200 OK', by_id['status'])
        self.assertIn('"name":"\u00e9"', by_id['body']['text'])
        # Found by its name, as by its id.
        self.assertEqual(
            {k: by_id[k] for k in ('status', 'headers', 'body')},
            {k: answers[UTF8_NAME][k]
             for k in ('status', 'headers', 'body')})
        # A name nobody has: the 404 of an ASCII name, naming "ü".
        ascii_404 = answers['GET /v3/flavors/nope']
        message = json.loads(ascii_404['body']['text'])
        message['error']['message'] = message['error']['message'].replace(
            '"nope"', '"\u00fc"')
        body = pub.encode(message)
        intended = dict(ascii_404, body=recorded_body(body), headers=sorted(
            [name, str(len(body)) if name == 'content-length' else value]
            for name, value in ascii_404['headers']))
        self.assertEqual(
            {k: intended[k] for k in ('status', 'headers', 'body')},
            {k: answers[UTF8_UNKNOWN][k]
             for k in ('status', 'headers', 'body')})

    def test_expected_difference_chunked_body(self):
        # EXPECTED TO FAIL ON e46020e (today: 400 "The body is not JSON").
        answers = self.main_answers('POST /v3/checks', CHUNKED)
        with_length = answers['POST /v3/checks']
        self.assertEqual('200 OK', with_length['status'])
        self.assertEqual(
            {k: with_length[k] for k in ('status', 'headers', 'body')},
            {k: answers[CHUNKED][k] for k in ('status', 'headers', 'body')})

    def test_added_fields_fragmentation(self):
        # The documents as rendered today: the recorded answers plus
        # fragmentation (ADDED_FIELDS), nothing else. Their ETags and
        # lengths are new: the bodies are.
        self.recorded_fields_only = False
        names = ('GET /v3/flavors/g1', 'GET /v3/flavors/', 'GET /v3/gpus/',
                 'GET /v3/gpus/a100', 'GET /metrics')
        answers = self.main_answers(*names)
        recorded = {entry['name']: entry
                    for entry in load_recording()['scenarios']['main']}
        for name in names:
            got, want = answers[name], recorded[name]
            self.assertEqual(want['status'], got['status'], name)
            self.assertEqual(
                [h for h in want['headers']
                 if h[0] not in ('etag', 'content-length')],
                [h for h in got['headers']
                 if h[0] not in ('etag', 'content-length')], name)
            text = got['body']['text']
            if name == 'GET /metrics':
                self.assertEqual(want['body']['text'],
                                 _without_added_metrics(text))
                self.assertIn('\nflavor_exporter_flavor_fragmented{', text)
                self.assertIn('\nflavor_exporter_gpu_devices_fragmented{',
                              text)
                continue
            value = json.loads(text)
            self.assertEqual(want['body']['text'],
                             pub.encode(_without_added(value)).decode(),
                             name)
            self.assertNotEqual(want['body']['text'], text, name)
        flavor = json.loads(answers['GET /v3/flavors/g1']['body']['text'])
        # The sample cloud is not fragmented: gpu.a100 takes the two free
        # a100s of cmp000 now.
        self.assertEqual(0, flavor['flavor']['fragmented'])
        self.assertEqual({'pooled': 2, 'fragments': []},
                         flavor['flavor']['fragmentation'])
        self.assertEqual({'total': 4, 'available': 2, 'fragmented': 0},
                         flavor['flavor']['availability_zones']['az1'])
        gpu = json.loads(answers['GET /v3/gpus/a100']['body']['text'])
        self.assertEqual(0, gpu['gpu']['fragmented'])
        self.assertEqual({'gpu.a100': 0, 'gpu.private': 0},
                         gpu['gpu']['fragmented_by_flavor'])


# The requests of each scenario

def _v3_paths(prefix):
    """The v3 data routes under prefix ('/v3' or a cloud's)."""
    return [prefix + '/flavors/', prefix + '/flavors/g1',
            prefix + '/gpus/', prefix + '/gpus/a100', prefix + '/status',
            prefix + '/projects/p1/flavors/',
            prefix + '/projects/p1/flavors/g1']


def _slash_variants(path):
    return [path, path[:-1] if path.endswith('/') else path + '/']


def main_exchanges():
    made = []
    # Every route, GET and HEAD, with and without the trailing slash.
    reads = ['/', '/v2/', '/v3/', '/v2/flavors/', '/gpus/flavors/',
             '/gpus/flavors/g1', '/gpus/', '/gpus/a100', '/gpus/v100']
    reads += _v3_paths('/v3') + ['/v3/clouds/', '/metrics', '/openapi.json',
                                 '/healthcheck']
    for path in reads:
        made += get_and_head(*(_slash_variants(path) if path != '/'
                               else [path]))
    # /docs and /docs/ differ: the table lists both.
    made += get_and_head('/docs', '/docs/')
    made += get_and_head(*_v3_paths('/v3/clouds/default'))
    made += get_and_head('/v3/clouds/default/flavors', '/v3/clouds/default/'
                         'status/', '/v3/clouds/default/gpus/v100')
    made += get_and_head(*_v3_paths('/v3/clouds/nope'))
    made.append(post_json('/v3/clouds/default/checks', GPU_SET))
    made.append(post_json('/v3/clouds/nope/checks', GPU_SET))
    made += get_and_head('/v3/clouds/default', '/v3/clouds/default/',
                         '/v3/clouds/nope/')
    # Flavors by id and by name, and what is not a route.
    made += [get('/v3/flavors/' + key) for key in (
        '1', 'm1.large', 'gpu.a100', 'GPU.V100-small', 'index',
        'collection', 'bad', 'broken', 'acc', 'p1', 'private.shared',
        'nope', 'M1.LARGE')]
    made += [get('/gpus/flavors/' + key) for key in (
        'g2', 'index', 'nope', '1', 'gpu.a100')]
    made += [get('/v3/gpus/' + key) for key in ('v100', 'nope', 'A100')]
    made += [get('/gpus/nope'), get('/gpus/flavors/g1/x'),
             get('/gpus/a100/x')]
    # The expected differences, recorded as today's code answers them.
    made.append(get('/v3/flavors/%C3%A9'))
    made.append(get('/v3/flavors/%C3%BC'))
    # Filters of /v3/flavors/ and /v3/gpus/.
    for query in ('gpu=true', 'gpu=false', 'gpu=TRUE', 'gpu=1', 'gpu=no',
                  'gpu=maybe', 'gpu=', 'gpu=true&gpu=false', 'name=gpu',
                  'name=GPU', 'name=%C3%A9', 'name=zzz', 'name=',
                  'name=' + 'n' * 256, 'availability_zone=az1',
                  'availability_zone=az2', 'availability_zone=nope',
                  'gpu=true&availability_zone=az2',
                  'gpu=false&name=m1&availability_zone=az1',
                  'limit=10', 'gpu=true&sort=name', 'name=a+b',
                  'name=private'):
        made.append(get('/v3/flavors/', query))
    made.append(get('/v3/clouds/default/flavors/', 'gpu=true'))
    made.append(get('/v3/clouds/default/flavors/', 'bogus=1'))
    made.append(head('/v3/flavors/', 'gpu=true'))
    for query in ('availability_zone=az1', 'availability_zone=az2',
                  'availability_zone=nope', 'gpu=true',
                  'availability_zone=az1&availability_zone=az2'):
        made.append(get('/v3/gpus/', query))
    # Routes that take no query refuse one; the predecessors' ignore it.
    for path in ('/v3/flavors/g1', '/v3/gpus/a100', '/v3/status',
                 '/v3/clouds/', '/v3/projects/p1/flavors/',
                 '/v3/projects/p1/flavors/g1'):
        made.append(get(path, 'x=1'))
    made.append(ask('POST', '/v3/checks', 'x=1',
                    body=json.dumps(GPU_SET).encode(),
                    headers=(('Content-Type', 'application/json'),)))
    for path in ('/', '/v2/', '/v3/', '/v2/flavors/', '/gpus/flavors/',
                 '/gpus/flavors/g1', '/gpus/', '/gpus/a100', '/metrics',
                 '/openapi.json', '/docs/', '/healthcheck'):
        made.append(get(path, 'gpu=true&foo=bar'))
    # Validators.
    for path in ('/v3/flavors/', '/v2/flavors/', '/gpus/flavors/',
                 '/v3/flavors/g1', '/v3/gpus/', '/gpus/a100',
                 '/v3/projects/p1/flavors/', '/v3/projects/p1/flavors/g1'):
        etag = EtagOf('GET ' + path)
        made.append(get(path, headers=(('If-None-Match', etag),),
                        name='GET %s If-None-Match its ETag' % path))
    made.append(head('/v3/flavors/', headers=(
        ('If-None-Match', EtagOf('GET /v3/flavors/')),),
        name='HEAD /v3/flavors/ If-None-Match its ETag'))
    made.append(get('/v3/flavors/', 'gpu=true', headers=(
        ('If-None-Match', EtagOf('GET /v3/flavors/?gpu=true')),),
        name='GET /v3/flavors/?gpu=true If-None-Match its ETag'))
    made.append(get('/v3/flavors/', 'gpu=true', headers=(
        ('If-None-Match', EtagOf('GET /v3/flavors/')),),
        name='GET /v3/flavors/?gpu=true If-None-Match the list ETag'))
    made.append(get('/v3/flavors/', headers=(('If-None-Match', '*'),),
                    name='GET /v3/flavors/ If-None-Match *'))
    made.append(get('/v3/flavors/', headers=(
        ('If-None-Match', '"other", "another"'),),
        name='GET /v3/flavors/ If-None-Match others'))
    made.append(get('/v3/status', headers=(('If-None-Match', '*'),),
                    name='GET /v3/status If-None-Match *'))
    # No content negotiation.
    for accept in ('text/html', 'application/xml'):
        made.append(get('/v3/flavors/', headers=(('Accept', accept),),
                        name='GET /v3/flavors/ Accept ' + accept))
    made.append(get('/nothing', headers=(('Accept', 'text/html'),),
                    name='GET /nothing Accept text/html'))
    for accept in ('application/json', 'text/html', 'text/plain'):
        made.append(get('/healthcheck', headers=(('Accept', accept),),
                        name='GET /healthcheck Accept ' + accept))
    # Unknown paths: each family's shape, the /v2 "moved" message.
    made += [get(path) for path in (
        '/nothing', '/v4', '/v4/', '/v3/other', '/v3/flavors//',
        '/v3/flavors//x', '/gpus/flavors//', '/gpus/flavors//x',
        '/metrics/x', '/openapi.json/x', '/v3/status/x', '/healthcheck/x',
        '/v2/status', '/v2/flavors/g1', '/v2/gpus/', '/v2/nothing/x',
        '/v3/projects/', '/v3/projects/p1', '/v3/projects/p1/x',
        '/docs/index.j2', '/docs/..%2Fopenapi.json', '/docs/a/b',
        '/docs/../v3/flavors/', '//v3/flavors/', '/gpus/flavors/%2F',
        '/v3/clouds/default/clouds/', '/V3/flavors/')]
    made.append(head('/nothing'))
    made.append(head('/gpus/nope'))
    # Swagger UI: the page, its initializer and its assets.
    made += get_and_head('/docs/initializer.js', '/docs/swagger-ui.css',
                         '/docs/swagger-ui-bundle.js',
                         '/docs/swagger-ui-standalone-preset.js',
                         '/docs/favicon-32x32.png', '/docs/favicon-16x16.png')
    # Projects.
    made += [get('/v3/projects/p1/flavors/' + key)
             for key in ('gpu.a100', 'nope', 'acc', 'pg', 'p2')]
    made += [get(path) for path in (
        '/v3/projects/a.b/flavors/', '/v3/projects/p1%0A/flavors/',
        '/v3/projects/' + 'x' * 65 + '/flavors/',
        '/v3/projects/gone/flavors/', '/v3/projects/gone/flavors/g1',
        '/v3/projects/broken/flavors/', '/v3/projects/p9/flavors/',
        '/v3/projects/p9/flavors/g1', '/v3/clouds/default/projects/gone/'
        'flavors/')]
    made.append(head('/v3/projects/broken/flavors/'))
    # Set checks.
    made.append(post_json('/v3/checks', GPU_SET))
    made.append(post_json('/v3/checks', GPU_SET, name='POST /v3/checks '
                          'again'))
    made.append(ask('POST', '/v3/checks', body=json.dumps(GPU_SET).encode(),
                    chunked=True, name=CHUNKED,
                    headers=(('Content-Type', 'application/json'),)))
    for label, body in (
            ('anti-affinity', dict(GPU_SET, server_group={
                'policy': 'anti-affinity',
                'rules': {'max_server_per_host': 2}})),
            ('bare list', [{'flavor': '1', 'count': 8, 'min_count': 8}]),
            ('unknown flavor', [{'flavor': 'nope'}]),
            ('accented flavor', [{'flavor': '\u00e9', 'count': 2}]),
            ('project p1', dict(GPU_SET, project_id='p1')),
            ('project gone', dict(GPU_SET, project_id='gone')),
            ('project broken', dict(GPU_SET, project_id='broken')),
            ('empty', {}),
            ('unknown key', {'servers': [{'flavor': 'x'}], 'zone': 'a'}),
            ('count 0', {'servers': [{'flavor': 'x', 'count': 0}]}),
            ('min_count above', {'servers': [{'flavor': 'x', 'count': 2,
                                              'min_count': 3}]}),
            ('too many', {'servers': [{'flavor': 'x', 'count': 51}]}),
            ('bad project', {'servers': [{'flavor': 'x'}],
                             'project_id': 'a b'}),
            ('affinity rules', {'servers': [{'flavor': 'x'}],
                                'server_group': {
                                    'policy': 'affinity',
                                    'rules': {'max_server_per_host': 2}}}),
            ('a string', 'servers'), ('null', None), ('a number', 3)):
        made.append(post_json('/v3/checks', body,
                              name='POST /v3/checks ' + label))
    made += [
        ask('POST', '/v3/checks', body=b'{', name='POST /v3/checks bad JSON',
            headers=(('Content-Type', 'application/json'),)),
        ask('POST', '/v3/checks', body=b'', name='POST /v3/checks no body',
            headers=(('Content-Type', 'application/json'),)),
        ask('POST', '/v3/checks', body=b'\xff\xfe{}',
            name='POST /v3/checks not UTF-8',
            headers=(('Content-Type', 'application/json'),)),
        ask('POST', '/v3/checks', body=b'x',
            name='POST /v3/checks text/plain',
            headers=(('Content-Type', 'text/plain'),)),
        ask('POST', '/v3/checks', body=json.dumps(GPU_SET).encode(),
            name='POST /v3/checks charset',
            headers=(('Content-Type', 'application/json; charset=utf-8'),)),
        ask('POST', '/v3/checks', body=json.dumps(GPU_SET).encode(),
            name='POST /v3/checks no content type'),
        ask('POST', '/v3/checks', body=b' ' * 70000,
            name='POST /v3/checks too large',
            headers=(('Content-Type', 'application/json'),)),
        ask('POST', '/v3/checks', body=b'{}', name='POST /v3/checks bad '
            'Content-Length', environ={'CONTENT_LENGTH': 'abc'},
            headers=(('Content-Type', 'application/json'),)),
        ask('POST', '/v3/checks/', body=json.dumps(GPU_SET).encode(),
            headers=(('Content-Type', 'application/json'),)),
    ]
    # 405 with Allow: each route family, each method.
    for path in ('/', '/v2/', '/v3/', '/v2/flavors/', '/gpus/flavors/',
                 '/gpus/flavors/g1', '/gpus/', '/gpus/a100', '/v3/flavors/',
                 '/v3/flavors/g1', '/v3/gpus/', '/v3/gpus/a100',
                 '/v3/status', '/v3/projects/p1/flavors/',
                 '/v3/projects/p1/flavors/g1', '/v3/clouds/',
                 '/v3/clouds/default/flavors/', '/v3/clouds/nope/flavors/',
                 '/metrics', '/openapi.json', '/docs', '/docs/',
                 '/docs/swagger-ui.css', '/healthcheck', '/nothing',
                 '/gpus/nothing/x'):
        for method in ('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'):
            made.append(ask(method, path))
    for method in ('GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS',
                   'TRACE'):
        made.append(ask(method, '/v3/checks'))
    made += [ask('GET', '/v3/clouds/default/checks'),
             ask('TRACE', '/v3/flavors/'), ask('BREW', '/'),
             ask('get', '/v3/flavors/')]
    # Requests no route can answer well.
    made += [
        get('/v3/' + 'a' * 5000, name='GET /v3/ long path'),
        get('/gpus/flavors/' + 'a' * 5000, name='GET /gpus/flavors/ long '
            'path'),
        get('/v3/flavors/', 'name=zzz&pad=' + 'a' * 40000,
            name='GET /v3/flavors/ long query'),
        get('/gpus/flavors/', name='GET /gpus/flavors/ query cut', environ={
            'REQUEST_URI': '/gpus/flavors/?name=' + 'z' * 40}),
        get('/v3/flavors/', 'name=gpu', name='GET /v3/flavors/ REQUEST_URI '
            'as received', environ={'REQUEST_URI': '/v3/flavors/?name=gpu'}),
        get('/v3/flavors/', headers=(('X-Big', 'a' * 40000),),
            name='GET /v3/flavors/ huge headers'),
        get('/gpus/flavors/', headers=tuple(
            ('X-Many-%d' % i, 'b' * 100) for i in range(400)),
            name='GET /gpus/flavors/ many headers'),
        get('/v3/flavors/%FF'), get('/docs/%FF'), get('/gpus/flavors/%FF'),
        get('/v3/flavors/', 'name=%ff'), get('/gpus/flavors/', 'x=%ff'),
        get('/v3/flavors/', 'name=\xe9', name='GET /v3/flavors/ raw '
            'latin-1 query'),
        get('/v3/flavors/', '&'.join('p%d=1' % i for i in range(2000)),
            name='GET /v3/flavors/ 2000 unknown parameters'),
        ask('POST', '/v3/' + 'a' * 5000, name='POST /v3/ long path'),
    ]
    # A client's own request id is not the answer's.
    made.append(get('/v3/flavors/g1', headers=(
        ('X-OpenStack-Request-ID',
         'req-a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d'),),
        name='GET /v3/flavors/g1 client request id'))
    # Without CORS configured, Origin changes nothing.
    made.append(get('/v3/flavors/', headers=(('Origin', PORTAL),),
                    name='GET /v3/flavors/ Origin'))
    made.append(ask('OPTIONS', '/v3/flavors/', headers=(
        ('Origin', PORTAL), ('Access-Control-Request-Method', 'GET')),
        name='OPTIONS /v3/flavors/ preflight'))
    # Proxy headers are not parsed by default.
    made.append(get('/', headers=(('X-Forwarded-Proto', 'https'),
                                  ('X-Forwarded-Host', 'x.example.org')),
                    name='GET / forwarded'))
    made.append(get('/v3/', headers=(('Host', 'capacity.example.org:8080'),),
                    name='GET /v3/ Host'))
    return made


def cold_exchanges():
    made = get_and_head(
        '/v3/flavors/', '/v2/flavors/', '/gpus/flavors/', '/gpus/flavors/g1',
        '/gpus/', '/gpus/a100', '/v3/flavors/g1', '/v3/gpus/',
        '/v3/gpus/a100', '/v3/projects/p1/flavors/',
        '/v3/projects/p1/flavors/g1', '/v3/clouds/default/flavors/',
        '/v3/status', '/v3/clouds/', '/metrics', '/healthcheck', '/',
        '/v3/clouds/default/status', '/v3/clouds/nope/flavors/')
    made += [post_json('/v3/checks', GPU_SET),
             get('/v3/flavors/', 'gpu=maybe'), get('/v3/flavors/', 'x=1'),
             get('/v3/gpus/', 'availability_zone=az1'),
             get('/v3/flavors/nope'), get('/nothing'), get('/gpus/nope'),
             get('/healthcheck', headers=(('Accept', 'application/json'),),
                 name='GET /healthcheck Accept application/json'),
             ask('DELETE', '/v3/flavors/')]
    return made


def unreadable_exchanges():
    made = get_and_head('/v3/flavors/', '/v2/flavors/', '/gpus/flavors/',
                        '/gpus/flavors/g1', '/v3/flavors/g1', '/v3/status',
                        '/metrics', '/healthcheck',
                        '/v3/projects/p1/flavors/')
    made += [post_json('/v3/checks', GPU_SET), get('/v3/clouds/'),
             get('/')]
    return made


def stale_exchanges():
    made = get_and_head('/v3/flavors/', '/v2/flavors/', '/gpus/flavors/',
                        '/gpus/flavors/g1', '/gpus/', '/v3/flavors/g1',
                        '/v3/gpus/', '/v3/gpus/a100', '/v3/status',
                        '/metrics', '/healthcheck', '/v3/clouds/',
                        '/v3/projects/p1/flavors/')
    made += [get('/v3/flavors/', 'gpu=true'),
             get('/v3/flavors/', 'availability_zone=az1'),
             get('/v3/flavors/', headers=(
                 ('If-None-Match', EtagOf('GET /v3/flavors/')),),
                 name='GET /v3/flavors/ If-None-Match its ETag'),
             get('/healthcheck', headers=(('Accept', 'application/json'),),
                 name='GET /healthcheck Accept application/json')]
    return made


def partial_exchanges():
    made = get_and_head('/v3/flavors/', '/v3/flavors/g1', '/v3/gpus/',
                        '/v3/gpus/a100', '/v3/status', '/healthcheck',
                        '/metrics', '/v2/flavors/', '/gpus/flavors/')
    made += [get('/v3/flavors/', 'availability_zone=az2'),
             get('/v3/gpus/', 'availability_zone=az1'),
             get('/healthcheck', headers=(('Accept', 'application/json'),),
                 name='GET /healthcheck Accept application/json')]
    return made


def limits_exchanges():
    made = []
    for label, flavor in (('a', 'a'), ('b', 'b'), ('c', 'c'),
                          ('a again', 'a')):
        made.append(post_json('/v3/checks', {'servers': [{'flavor': flavor}]},
                              name='POST /v3/checks new ' + label))
    made.append(post_json('/v3/checks', {'servers': [{'flavor': 'c'}]},
                          client='192.0.2.77',
                          name='POST /v3/checks new c, another client'))
    for project, again in (('n0', ''), ('n1', ''), ('n2', ''),
                           ('n0', ' again')):
        made.append(get('/v3/projects/%s/flavors/' % project,
                        name='GET /v3/projects/%s/flavors/%s' % (
                            project, again)))
    made.append(get('/v3/projects/n2/flavors/', client='192.0.2.77',
                    name='GET /v3/projects/n2/flavors/ another client'))
    made.append(get('/v3/projects/p1/flavors/'))
    return made


def basic_exchanges():
    portal = basic('portal', 'secret')
    made = []
    for path in ('/v2/flavors/', '/v3/flavors/', '/gpus/flavors/',
                 '/gpus/flavors/g1', '/v3/status', '/metrics', '/nothing',
                 '/gpus/nothing/x', '/v3/projects/p1/flavors/'):
        made.append(get(path, name='GET %s no credentials' % path))
    made.append(head('/v2/flavors/', name='HEAD /v2/flavors/ no '
                     'credentials'))
    made.append(post_json('/v3/checks', GPU_SET,
                          name='POST /v3/checks no credentials'))
    made.append(ask('DELETE', '/v2/flavors/',
                    name='DELETE /v2/flavors/ no credentials'))
    for label, header in (
            ('wrong password', basic('portal', 'nope')),
            ('unknown user', basic('nobody', 'secret')),
            ('malformed', ('Authorization', 'Basic !!!')),
            ('no token', ('Authorization', 'Basic')),
            ('bearer', ('Authorization', 'Bearer abc')),
            ('no colon', ('Authorization', 'Basic ' + base64.b64encode(
                b'nocolon').decode()))):
        made.append(get('/v2/flavors/', headers=(header,),
                        name='GET /v2/flavors/ ' + label))
    made.append(get('/gpus/flavors/', headers=(basic('portal', 'nope'),),
                    name='GET /gpus/flavors/ wrong password'))
    for path in ('/v2/flavors/', '/v3/flavors/', '/v3/flavors/g1',
                 '/v3/flavors/p1', '/v3/flavors/private.shared',
                 '/gpus/flavors/', '/gpus/flavors/pg', '/gpus/', '/v3/gpus/',
                 '/v3/gpus/a100', '/v3/status', '/metrics',
                 '/v3/projects/p1/flavors/', '/v3/projects/p1/flavors/g1',
                 '/v3/clouds/', '/nothing', '/gpus/nothing/x'):
        made.append(get(path, headers=(portal,),
                        name='GET %s portal' % path))
    made.append(head('/v2/flavors/', headers=(portal,),
                     name='HEAD /v2/flavors/ portal'))
    made.append(get('/v3/flavors/', 'gpu=true', headers=(portal,),
                    name='GET /v3/flavors/?gpu=true portal'))
    made.append(get('/v2/flavors/', headers=(portal, (
        'X-Roles', 'admin'), ('X-Project-Id', 'p1'), (
        'OpenStack-System-Scope', 'all')),
        name='GET /v2/flavors/ portal forged roles'))
    made.append(get('/v3/status', headers=(portal, ('X-Roles', 'admin')),
                    name='GET /v3/status portal forged roles'))
    made.append(post_json('/v3/checks', GPU_SET, headers=(portal,),
                          name='POST /v3/checks portal'))
    made.append(post_json('/v3/checks', dict(GPU_SET, project_id='p1'),
                          headers=(portal,),
                          name='POST /v3/checks portal for p1'))
    made.append(ask('PUT', '/v2/flavors/', headers=(portal,),
                    name='PUT /v2/flavors/ portal'))
    prometheus = basic('prometheus', 'scrape')
    made.append(get('/metrics', headers=(prometheus,),
                    name='GET /metrics prometheus'))
    made.append(get('/v3/status', headers=(prometheus,),
                    name='GET /v3/status prometheus'))
    operator = basic('operator', 'admin')
    for path in ('/v2/flavors/', '/v3/flavors/', '/v3/flavors/g1',
                 '/v3/flavors/p2', '/v3/status', '/metrics',
                 '/v3/projects/p1/flavors/', '/v3/gpus/a100'):
        made.append(get(path, headers=(operator,),
                        name='GET %s operator' % path))
    made.append(post_json('/v3/checks', dict(GPU_SET, project_id='p1'),
                          headers=(operator,),
                          name='POST /v3/checks operator for p1'))
    for path in ('/', '/v2/', '/v3/', '/healthcheck', '/openapi.json',
                 '/docs', '/docs/', '/docs/swagger-ui.css'):
        made.append(get(path))
    made.append(get('/docs/../v3/flavors/'))
    made.append(get('/healthcheck/../v3/flavors/'))
    made.append(get('/', headers=(basic('portal', 'nope'),),
                    name='GET / wrong password'))
    return made


def keystone_exchanges():
    made = [get(path) for path in (
        '/v2/flavors/', '/v3/flavors/', '/v3/flavors/g1', '/gpus/flavors/',
        '/gpus/flavors/g1', '/gpus/', '/v3/status', '/metrics', '/unknown',
        '/gpus/unknown/x', '/v3/projects/p1/flavors/')]
    made += [head('/v3/flavors/'), post_json('/v3/checks', GPU_SET),
             ask('DELETE', '/v3/flavors/')]
    made += [get(path) for path in ('/', '/v2/', '/v3/', '/healthcheck',
                                    '/docs', '/docs/',
                                    '/docs/../v3/flavors/')]
    made.append(get('/v3/flavors/', headers=(basic('portal', 'secret'),),
                    name='GET /v3/flavors/ Basic credentials'))
    return made


def cors_proxy_exchanges():
    preflight = (('Origin', PORTAL), ('Access-Control-Request-Method', 'GET'),
                 ('Access-Control-Request-Headers', 'X-Auth-Token'))
    proxied = (('X-Forwarded-Proto', 'https'),
               ('X-Forwarded-Host', 'capacity.example.org'))
    made = [
        ask('OPTIONS', '/v3/flavors/', headers=preflight,
            name='OPTIONS /v3/flavors/ preflight'),
        ask('OPTIONS', '/v3/checks', headers=(
            ('Origin', PORTAL), ('Access-Control-Request-Method', 'POST'),
            ('Access-Control-Request-Headers', 'Content-Type')),
            name='OPTIONS /v3/checks preflight'),
        ask('OPTIONS', '/v3/flavors/', headers=(
            ('Origin', 'https://evil.example'),) + preflight[1:],
            name='OPTIONS /v3/flavors/ preflight, other origin'),
        ask('OPTIONS', '/v3/flavors/', headers=preflight[:1] + (
            ('Access-Control-Request-Method', 'DELETE'),),
            name='OPTIONS /v3/flavors/ preflight, DELETE'),
        ask('OPTIONS', '/v3/flavors/', headers=preflight[:2] + (
            ('Access-Control-Request-Headers', 'X-Other'),),
            name='OPTIONS /v3/flavors/ preflight, other header'),
        ask('OPTIONS', '/v3/flavors/', name='OPTIONS /v3/flavors/'),
        get('/v3/flavors/', headers=(('Origin', PORTAL),),
            name='GET /v3/flavors/ Origin'),
        get('/v3/flavors/nope', headers=(('Origin', PORTAL),),
            name='GET /v3/flavors/nope Origin'),
        get('/v3/' + 'a' * 5000, headers=(('Origin', PORTAL),),
            name='GET /v3/ long path Origin'),
        get('/v3/flavors/', headers=(('Origin', 'https://evil.example'),),
            name='GET /v3/flavors/ other Origin'),
        get('/v3/flavors/'),
        get('/', headers=proxied, name='GET / forwarded'),
        get('/v3/', headers=proxied, name='GET /v3/ forwarded'),
        get('/v2/', headers=proxied, name='GET /v2/ forwarded'),
        get('/v3/clouds/', headers=proxied, name='GET /v3/clouds/ forwarded'),
        get('/openapi.json', headers=proxied,
            name='GET /openapi.json forwarded'),
        get('/docs', headers=proxied, name='GET /docs forwarded'),
        get('/', headers=(('X-Forwarded-Proto', 'https'),
                          ('Host', 'capacity.example.org')),
            name='GET / forwarded scheme, Host'),
        get('/', headers=(('Forwarded', 'for=192.0.2.60;proto=https;'
                           'host=capacity.example.org:8443'),),
            name='GET / Forwarded'),
        get('/', headers=proxied + (('X-Forwarded-Prefix', '/capacity'),),
            name='GET / forwarded prefix'),
        get('/v3/flavors/', headers=proxied + (
            ('X-Forwarded-Prefix', '/capacity'),),
            name='GET /v3/flavors/ forwarded prefix'),
        get('/docs', headers=proxied + (('X-Forwarded-Prefix', '/capacity'),),
            name='GET /docs forwarded prefix'),
    ]
    return made


SCENARIOS = collections.OrderedDict([
    ('main', main_exchanges), ('cold', cold_exchanges),
    ('unreadable', unreadable_exchanges), ('stale', stale_exchanges),
    ('partial', partial_exchanges), ('limits', limits_exchanges),
    ('basic', basic_exchanges), ('keystone', keystone_exchanges),
    ('cors_proxy', cors_proxy_exchanges),
])


def record():
    """Run every scenario and write recorded_answers.json (see above)."""
    import unittest
    _RECORD['on'] = True
    suite = unittest.TestSuite(
        RecordedAnswersTestCase('test_scenario_' + name)
        for name in SCENARIOS)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        return 1
    write_recording(_RECORD['scenarios'])
    count = sum(len(v) for v in _RECORD['scenarios'].values())
    print('Recorded %d exchanges in %s' % (count, RECORDING))
    return 0


if __name__ == '__main__':
    if sys.argv[1:] != ['--record']:
        sys.exit('usage: python -m %s --record (recorded once from %s; '
                 'replay it as a unit test)' % (
                     'flavor_exporter.tests.unit.api.test_recorded_answers',
                     RECORDED_FROM))
    sys.exit(record())
