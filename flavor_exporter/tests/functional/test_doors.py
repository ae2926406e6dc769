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
"""Issue 38, items 1-3, against flavor-exporter-api (granian) served.

Slow bodies (the head of POST /v3/checks with Content-Length 60000 and
10 bytes of body) while a valid client is answered; bodies nested too
deep; HTTP Basic with real bcrypt files: one 401 for unknown users, wrong
and over-long passwords, guessing limited, bad entries refused at start.
No timings are asserted (doc/source/admin/policy.rst and ha.rst have the
measurements); bounds are generous.
"""

import base64
import json
import os
import select
import socket
import subprocess

import bcrypt

from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests.functional import test_commands
from flavor_exporter.tests.functional import test_front_end
from flavor_exporter.tests import sample_cloud
from testcloud import loopback

SLOW_HEAD = (b'POST /v3/checks HTTP/1.1\r\nHost: t\r\n'
             b'Content-Type: application/json\r\n'
             b'Content-Length: 60000\r\n\r\n{"servers"')


def answer_of(sock, timeout=30):
    """(status, headers, body) the server sends on sock, until it closes."""
    sock.settimeout(timeout)
    data = b''
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    head, _, body = data.partition(b'\r\n\r\n')
    lines = head.decode('latin-1').split('\r\n')
    headers = {k.lower(): v for k, v in (
        line.split(': ', 1) for line in lines[1:] if ': ' in line)}
    return int(lines[0].split()[1]), headers, body


class ServedTestCase(test_commands.CommandsTestCase):

    def serve(self, *lines, workers=1):
        sample_cloud.publish(self.store, sample_cloud.many_flavors(5),
                             host_list=sample_cloud.many_hosts(2))
        config = self.write_config(lines=['[api]', 'workers = %d' % workers,
                                          'threads = 2', *lines])
        self.start('flavor-exporter-api', config)
        loopback.wait_for_port(self.port, timeout=60)
        return config


class TestSlowBodies(ServedTestCase):

    def test_slow_bodies_hold_no_thread_others_need(self):
        self.serve()
        slow = []
        try:
            for _ in range(2):
                sock = socket.create_connection(('127.0.0.1', self.port), 30)
                sock.sendall(SLOW_HEAD)
                slow.append(sock)
            # [api] threads = 2: one of them may read, the other is told
            # to retry without its body being read, and its connection
            # closed.
            ready, _, _ = select.select(slow, [], [], 60)
            self.assertEqual(1, len(ready))
            status, headers, body = answer_of(ready[0])
            self.assertEqual(503, status)
            self.assertIn('retry-after', headers)
            self.assertEqual(503, json.loads(body)['error']['code'])
            self.assertIn('x-openstack-request-id', headers)
            # A valid client is answered, again and again.
            for _ in range(20):
                status, _, body = test_front_end.raw(
                    self.port, test_front_end.get(b'/v3/flavors/'), 30)
                self.assertEqual(200, status)
                self.assertTrue(json.loads(body)['flavors'])
        finally:
            for sock in slow:
                sock.close()
        # The stalled client went: its thread reads bodies again.
        self.wait_until(self._check_read, 'a body read once the stalled '
                                          'client has gone', timeout=60)

    def _check_read(self):
        status, _, body = test_front_end.raw(self.port, (
            b'POST /v3/checks HTTP/1.1\r\nHost: t\r\nConnection: close\r\n'
            b'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n'
            b'{}'))
        return status == 400 and '"servers" must be' in json.loads(
            body)['error']['message']

    def test_deep_bodies_are_a_400_naming_the_limit(self):
        self.serve()
        deep = b'[' * 5000 + b']' * 5000
        status, _, body = test_front_end.raw(self.port, (
            b'POST /v3/checks HTTP/1.1\r\nHost: t\r\nConnection: close\r\n'
            b'Content-Type: application/json\r\nContent-Length: %d\r\n\r\n'
            % len(deep)) + deep)
        self.assertEqual(400, status)
        self.assertIn('more than 32 levels',
                      json.loads(body)['error']['message'])


def basic(user, password):
    return b'Authorization: Basic %s\r\n' % base64.b64encode(
        user + b':' + password)


class TestHttpBasic(ServedTestCase):

    def user_file(self, extra=''):
        path = os.path.join(self.workdir, 'htpasswd')
        with open(path, 'w') as f:
            f.write('portal:%s\n' % bcrypt.hashpw(
                b'S3cret', bcrypt.gensalt(5)).decode())
            f.write(extra)
        return path

    def basic_lines(self, path):
        return ['[DEFAULT]', 'auth_strategy = http_basic',
                'http_basic_auth_user_file = %s' % path]

    def get(self, headers):
        return test_front_end.raw(self.port, test_front_end.get(
            b'/v2/flavors/', headers), 60)

    def test_one_refusal_and_a_limit(self):
        self.serve(*self.basic_lines(self.user_file()))
        self.assertEqual(200, self.get(basic(b'portal', b'S3cret'))[0])
        refusals = [self.get(basic(user, password)) for user, password in (
            (b'nobody', b'S3cret'), (b'portal', b'wrong'),
            (b'portal', b'x' * 100), (b'x\r\nforged', b'guess'))]
        self.assertEqual({401}, {status for status, _, _ in refusals})
        self.assertEqual(1, len({body for _, _, body in refusals}))
        # Guessing from this address meets the limit; the portal's
        # remembered credentials do not.
        statuses = [self.get(basic(b'portal', b'guess%d' % i))[0]
                    for i in range(12)]
        self.assertEqual(429, statuses[-1])
        status, headers, body = self.get(basic(b'portal', b'guess'))
        self.assertEqual(429, status)
        self.assertGreaterEqual(int(headers['retry-after']), 1)
        self.assertEqual(429, json.loads(body)['error']['code'])
        self.assertEqual(200, self.get(basic(b'portal', b'S3cret'))[0])
        log = self.log_of('flavor-exporter-api')
        self.assertNotIn('forged', log.replace('x%0D%0Aforged', ''))

    def test_a_truncated_entry_stops_the_start(self):
        digest = bcrypt.hashpw(b'pw', bcrypt.gensalt(5)).decode()
        path = self.user_file('ops:%s\n' % digest[:50])
        config = self.write_config(lines=self.basic_lines(path))
        done = subprocess.run(
            fe_fixtures.console_script('flavor-exporter-api') +
            ['--config-file', config], env=self.env(),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=120)
        self.assertEqual(2, done.returncode)
        self.assertEqual(1, len(done.stderr.splitlines()), done.stderr)
        self.assertIn('line 2 (user ops): the bcrypt digest is truncated',
                      done.stderr)
