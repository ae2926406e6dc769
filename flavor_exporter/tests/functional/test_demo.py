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
"""``tox -e demo`` as README.rst tells a newcomer to try it.

The demo runs as a command; the commands it prints for another shell
(``flavor-exporter-report`` and ``openstack capacity flavor list``, the
latter reaching the API through the demo's clouds.yaml
``capacity_endpoint_override``) are run as printed; Ctrl-C stops it and
leaves nothing in its temporary directory.
"""

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time

import fixtures

from flavor_exporter.cmd import report
from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from testcloud import loopback

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..')
# The cloud's start and flavor-exporter-all's first refresh.
READY_TIMEOUT = 300
ROW = re.compile(r'^  (?P<name>\S.*?) +(?P<gpu>\S+ x\d+)? +available +'
                 r'(?P<available>\d+) of +(?P<total>\d+)$')


class TestDemo(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.port = loopback.free_port()
        outside = self.useFixture(fixtures.TempDir()).path
        self.output = os.path.join(outside, 'demo.out')
        self.log_file = os.path.join(outside, 'demo.log')
        with open(self.output, 'w') as out:
            self.demo = subprocess.Popen(
                [sys.executable, '-m', 'testcloud.demo',
                 '--port', str(self.port), '--log-file', self.log_file],
                cwd=ROOT, env=dict(os.environ, TMPDIR=self.tmp),
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        # Its flavor-exporter-all too, should the test fail before Ctrl-C.
        self.addCleanup(fe_fixtures.stop_process_group, self.demo)

    def printed(self):
        with open(self.output) as out:
            return out.read()

    def wait_until_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT
        while 'Ctrl-C stops.' not in self.printed():
            self.assertIsNone(self.demo.poll(), self.printed())
            self.assertLess(time.monotonic(), deadline, self.printed())
            time.sleep(0.5)
        return self.printed()

    def run_printed(self, env, line, *more):
        done = subprocess.run(shlex.split(line) + list(more), env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=180)
        self.assertEqual(0, done.returncode, done.stderr)
        return json.loads(done.stdout)

    def test_printed_commands_work_and_nothing_is_left(self):
        text = self.wait_until_ready()
        # Written by then: the banner, in the log too.
        time.sleep(1)
        with open(self.log_file) as f:
            logged = len(f.read())
        lines = text.splitlines()
        rows = [ROW.match(line).groupdict() for line in lines
                if ROW.match(line)]
        [export] = [line.strip() for line in lines
                    if line.strip().startswith('export ')]
        env = dict(os.environ)
        env.update(word.split('=', 1) for word in shlex.split(export)[1:])
        [report_line] = [line for line in lines
                         if 'flavor-exporter-report' in line]
        [capacity_line] = [line for line in lines
                           if 'openstack capacity flavor list' in line]

        computed = self.run_printed(env, report_line, '--format', 'json')
        # The demo's table in the report's order: GPU flavors first.
        self.assertEqual(
            [(f['name'], f['available'], f['total'])
             for f in report.ordered(computed['flavors'])],
            [(r['name'], int(r['available']), int(r['total']))
             for r in rows])
        self.assertTrue(rows[0]['gpu'], rows)
        listed = self.run_printed(env, capacity_line, '-f', 'json')
        self.assertEqual(
            sorted((f['name'], f['available'], f['total'])
                   for f in computed['flavors']),
            sorted((f['Name'], f['Available'], f['Total'])
                   for f in listed))

        # Said first: where the log goes. Then each step, how long it
        # usually takes and how long it took, before the banner.
        self.assertEqual('The demo logs to %s (flavor-exporter-all\'s '
                         'output too).' % self.log_file, lines[0])
        before = text[:text.index('flavor-exporter is serving')]
        # A step longer than usual says so every 15 s until it is done.
        for step in (r'Nova \+ Placement', r'flavor-exporter-all'):
            self.assertRegex(
                before, r'Starting %s .*\(usually \d+-\d+ s\) \.\.\.\n'
                        r'(  \.\.\. still starting .*: \d+ s so far\n)*'
                        r'  done in \d+ s' % step)
        self.assertIn('  log      %s' % self.log_file, lines)

        # The banner stayed last: the API's request lines of the commands
        # above went to the log file, not the terminal.
        self.assertEqual(text, self.printed())
        # Request lines are written a batch at a time, up to 50 ms after
        # the answer (request_log): a loaded machine may take longer.
        deadline = time.monotonic() + 10
        while True:
            with open(self.log_file) as f:
                log_text = f.read()
            if ('GET /v3/flavors/' in log_text[logged:]
                    or time.monotonic() > deadline):
                break
            time.sleep(0.1)
        self.assertIn('GET /v3/flavors/', log_text[logged:])

        self.demo.send_signal(signal.SIGINT)
        self.assertEqual(0, self.demo.wait(60), self.printed())
        self.assertEqual([], os.listdir(self.tmp))
