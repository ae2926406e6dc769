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
"""HTTP Basic that leaks nothing and costs bounded CPU (issue 38, item 2).

The middleware alone, over real htpasswd files (bcrypt), with a clock the
tests move: the same 401 for unknown users, wrong and over-long
passwords after one bcrypt check of the same cost; failures limited per
address and per user name while remembered credentials still pass; bad
entries refused with their line and user; edits honoured whatever the
file's metadata; user names escaped in the log.
"""

import base64
import os
from unittest import mock

import bcrypt
import fixtures
from oslo_middleware import basic_auth as oslo_basic_auth
import webtest

from flavor_exporter.api import auth
from flavor_exporter.api import basic_users
from flavor_exporter.api import failure_limits
from flavor_exporter.api.middleware import basic_auth
from flavor_exporter.common import exceptions
from flavor_exporter.tests import base


def header(user, password):
    if isinstance(password, str):
        password = password.encode()
    return {'Authorization': 'Basic ' + base64.b64encode(
        user.encode() + b':' + password).decode()}


def entry(user, password, rounds=4):
    digest = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds))
    return '%s:%s\n' % (user, digest.decode())


def hello(environ, start_response):
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [environ['HTTP_X_USER_ID'].encode()]


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class BasicAuthTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.path = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'htpasswd')
        self.write(entry('portal', 'secret') + entry('prometheus', 'scrape'))
        self.clock = Clock()
        self.middleware = basic_auth.BasicAuth(hello, self.path, threads=2,
                                               clock=self.clock)
        self.app = webtest.TestApp(self.middleware)
        self.checkpw = self.useFixture(fixtures.MockPatchObject(
            basic_auth.bcrypt, 'checkpw', wraps=bcrypt.checkpw)).mock

    def write(self, text):
        with open(self.path, 'w') as f:
            f.write(text)

    def get(self, user, password, status=200, address='192.0.2.1'):
        return self.app.get('/v3/flavors/', headers=header(user, password),
                            extra_environ={'REMOTE_ADDR': address},
                            status=status)


class TestSameRefusal(BasicAuthTestCase):

    def test_unknown_wrong_and_long_look_the_same(self):
        answers = [self.get(*pair, status=401) for pair in (
            ('nobody', 'secret'), ('portal', 'wrong'),
            ('portal', 'secret' + 'x' * 100), ('portal', 'é' * 40))]
        self.assertEqual(1, len({(a.body, tuple(sorted(a.headers.items())))
                                 for a in answers}))
        self.assertEqual({'error': {'code': 401, 'message':
                                    basic_auth.WRONG}}, answers[0].json)
        # One bcrypt check each, all of the same cost.
        costs = [c.args[1][4:6] for c in self.checkpw.call_args_list]
        self.assertEqual([b'04'] * 4, costs)

    def test_a_long_password_never_passes(self):
        # bcrypt reads 72 bytes: the rest would be ignored if accepted.
        long_password = 'p' * 72
        self.write(entry('portal', long_password))
        self.get('portal', long_password)
        self.get('portal', long_password + 'anything', status=401)

    def test_unknown_users_cost_the_largest_cost(self):
        self.write(entry('portal', 'secret', rounds=4) +
                   entry('slow', 'secret', rounds=6))
        self.get('nobody', 'secret', status=401)
        self.assertEqual(b'06', self.checkpw.call_args.args[1][4:6])

    def test_remembered_without_bcrypt(self):
        for _ in range(3):
            self.assertEqual(b'portal', self.get('portal', 'secret').body)
        self.assertEqual(1, self.checkpw.call_count)


class TestLimits(BasicAuthTestCase):

    def test_per_address(self):
        self.get('portal', 'secret')
        for i in range(basic_auth.CLIENT_BURST):
            self.get('user%d' % i, 'guess', status=401)
        refused = self.get('user', 'guess', status=429)
        self.assertEqual(429, refused.json['error']['code'])
        self.assertEqual('application/json', refused.content_type)
        wait = int(refused.headers['Retry-After'])
        self.assertGreaterEqual(wait, 1)
        # No bcrypt for what the limit refuses, even right credentials
        # that are not remembered...
        checks = self.checkpw.call_count
        self.get('prometheus', 'scrape', status=429)
        self.assertEqual(checks, self.checkpw.call_count)
        # ...but remembered ones pass, and other addresses are not held.
        self.get('portal', 'secret')
        self.get('prometheus', 'scrape', address='192.0.2.2')
        self.clock.now += wait
        self.get('user', 'guess', status=401)

    def test_per_user_name(self):
        for i in range(basic_auth.USER_BURST):
            self.get('portal', 'guess', status=401,
                     address='198.51.100.%d' % i)
        refused = self.get('portal', 'guess', status=429,
                           address='203.0.113.1')
        self.assertIn('Retry-After', refused.headers)
        # An unknown name is limited just the same: a 429 says nothing
        # about whether the user exists.
        for i in range(basic_auth.USER_BURST):
            self.get('nobody', 'guess', status=401,
                     address='198.51.100.%d' % (100 + i))
        self.get('nobody', 'guess', status=429, address='203.0.113.1')

    def test_success_is_refunded(self):
        for _ in range(basic_auth.CLIENT_BURST * 2):
            self.middleware._verified = basic_auth._Verified(self.clock)
            self.get('portal', 'secret')

    def test_bcrypt_leaves_a_thread(self):
        # [api] threads = 2: one bcrypt check at a time; another is told
        # to come back instead of waiting for a thread.
        self.middleware._checking.acquire()
        refused = self.get('portal', 'secret', status=503)
        self.assertEqual('1', refused.headers['Retry-After'])
        self.middleware._checking.release()
        self.get('portal', 'secret')


class TestFailureLimit(base.BaseTestCase):

    def test_leaky_bucket(self):
        clock = Clock()
        limit = failure_limits.FailureLimit(2, 6, clock)
        self.assertEqual(0, limit.take('a'))
        self.assertEqual(0, limit.take('a'))
        self.assertEqual(10, limit.take('a'))
        self.assertEqual(0, limit.take('b'))
        clock.now += 10
        self.assertEqual(0, limit.take('a'))
        limit.refund('a')
        self.assertEqual(0, limit.take('a'))

    def test_bounded_memory(self):
        clock = Clock()
        limit = failure_limits.FailureLimit(1, 60, clock, max_keys=10)
        for i in range(100):
            limit.take(i)
            self.assertLessEqual(len(limit._levels), 10)


class TestUserFile(BasicAuthTestCase):

    def refusal(self, text):
        self.write(text)
        error = self.assertRaises(ValueError, basic_users.check, self.path)
        return str(error)

    def test_entries_refused_with_line_and_user(self):
        good = entry('portal', 'secret')
        digest = good.split(':', 1)[1].strip()
        for text, expected in (
                (good + 'ops:$apr1$abc$def\n',
                 'line 2 (user ops): only bcrypt entries ($2y$, $2b$, $2a$) '
                 'are accepted, not MD5 ($apr1$); set the password again '
                 'with htpasswd -B'),
                ('# users\n\nops:{SHA}abc=\n',
                 'line 3 (user ops): only bcrypt entries ($2y$, $2b$, $2a$) '
                 'are accepted, not SHA-1 ({SHA})'),
                ('ops:' + digest[:40] + '\n',
                 'line 1 (user ops): the bcrypt digest is truncated or '
                 'malformed (60 characters expected, 40 found)'),
                ('ops:' + digest[:28] + 'z' + digest[29:] + '\n',
                 'line 1 (user ops): the bcrypt digest is truncated or '
                 'malformed'),
                (good + 'no colon here\n',
                 'line 2 is not USER:BCRYPT-DIGEST'),
                (good + good, 'line 2 (user portal): the user is on line 1 '
                              'already'),
                ('a\x1bb:' + digest + '\n',
                 'line 1 (user a%1Bb): a user name cannot hold control '
                 'characters')):
            self.assertIn(expected, self.refusal(text))

    def test_an_unreadable_file(self):
        self.assertIn('cannot read it (No such file or directory); create '
                      'it with htpasswd -B -c', self.refusal_of_path(
                          self.path + '.nope'))

    def refusal_of_path(self, path):
        return str(self.assertRaises(ValueError, basic_users.check, path))

    def test_an_edit_that_keeps_all_metadata(self):
        self.get('portal', 'secret')
        before = os.stat(self.path)
        # Same length, same inode; mtime put back. Even the change time,
        # which no tool can set back, is made to look the same here.
        self.write(entry('portal', 'secreT'))
        os.utime(self.path, ns=(before.st_atime_ns, before.st_mtime_ns))
        real_stat = os.stat
        same = mock.Mock(wraps=real_stat, side_effect=lambda p: before)
        with mock.patch.object(basic_users.os, 'stat', same):
            self.clock.now += basic_users.REREAD_SECONDS
            self.get('portal', 'secret', status=401)
            self.get('portal', 'secreT')

    def test_an_edit_is_seen_at_once(self):
        self.get('portal', 'secret')
        size = os.path.getsize(self.path)
        self.write(entry('portal', 'secreT') + entry('prometheus', 'scrape'))
        self.assertEqual(size, os.path.getsize(self.path))
        os.utime(self.path, ns=(1, 1))
        # No clock moved: the change time differs.
        self.get('portal', 'secret', status=401)
        self.get('portal', 'secreT')

    def test_a_bad_edit_keeps_the_last_good_file(self):
        self.get('portal', 'secret')
        self.write(entry('portal', 'secret') + 'ops:$apr1$x$y\n')
        with mock.patch.object(basic_users.LOG, 'error') as error:
            for _ in range(3):
                self.clock.now += 2
                self.get('portal', 'secret')
                self.get('prometheus', 'scrape')
        error.assert_called_once()
        line = error.call_args.args[0] % error.call_args.args[1:]
        self.assertIn('line 2 (user ops): only bcrypt', line)
        self.assertIn('the users it had before are kept', line)
        # Fixed: read again.
        self.write(entry('portal', 'secret'))
        self.get('prometheus', 'scrape', status=401)

    def test_reads_at_most_once_a_second_when_unchanged(self):
        with mock.patch.object(basic_users, 'read',
                               wraps=basic_users.read) as read:
            for _ in range(5):
                self.get('portal', 'secret')
            self.assertEqual(1, read.call_count)
            self.clock.now += basic_users.REREAD_SECONDS
            self.get('portal', 'secret')
            self.assertEqual(2, read.call_count)


class TestStart(base.TestCase):

    def test_one_line_naming_line_and_user(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'htpasswd')
        with open(path, 'w') as f:
            f.write(entry('portal', 'secret') + 'ops:$2y$05$tooshort\n')
        self.flags(auth_strategy='http_basic',
                   http_basic_auth_user_file=path)
        error = self.assertRaises(exceptions.InvalidOption, auth.check,
                                  self.conf)
        self.assertEqual(
            '[DEFAULT] http_basic_auth_user_file %s: line 2 (user ops): the '
            'bcrypt digest is truncated or malformed (60 characters '
            'expected, 15 found); set the password again with htpasswd -B'
            % path, str(error))


class TestLogLines(BasicAuthTestCase):

    def test_user_names_escaped(self):
        forged = 'x\r\n2026-01-01 00:00:00.000 1 INFO forged line'
        with mock.patch.object(basic_auth.LOG, 'info') as info, \
                mock.patch.object(oslo_basic_auth.LOG, 'info') as oslo:
            self.get(forged, 'guess', status=401)
        line = info.call_args.args[0] % info.call_args.args[1:]
        self.assertNotIn('\n', line)
        self.assertNotIn('\r', line)
        self.assertIn('x%0D%0A2026', line)
        self.assertIn('unknown user', line)
        oslo.assert_not_called()
