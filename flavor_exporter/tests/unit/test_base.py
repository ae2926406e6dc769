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
"""The test base honours OS_TEST_TIMEOUT and the OS_*_CAPTURE variables.

Each test runs a small inner test case, derived from our base, under the
variables tox and stestr set, and looks at what it reported.
"""

import io
import logging
import sys
import time

import fixtures
import testtools

from flavor_exporter.tests import base

LOG = logging.getLogger(__name__)
MARK = 'flavor-exporter-test-base-mark'


class _Inner(base.BaseTestCase):
    """Not collected: its name does not start with "test"."""

    def sleep_3s(self):
        time.sleep(3)

    def log_and_print(self):
        LOG.warning('log line %s', MARK)
        print('stdout line', MARK)
        print('stderr line', MARK, file=sys.stderr)


def run_inner(method):
    """Run _Inner(method); (its result, its details after the run)."""
    test = _Inner(method)
    result = testtools.TestResult()
    test.run(result)
    return result, test.getDetails()


class TestTimeout(base.BaseTestCase):

    def test_test_running_past_os_test_timeout_fails(self):
        self.useFixture(fixtures.EnvironmentVariable('OS_TEST_TIMEOUT', '1'))
        result, _ = run_inner('sleep_3s')
        self.assertFalse(result.wasSuccessful())
        errors = result.errors + result.failures
        self.assertEqual(1, len(errors), errors)
        self.assertIn('TimeoutException', errors[0][1])


class TestCapture(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        for name in ('OS_LOG_CAPTURE', 'OS_STDOUT_CAPTURE',
                     'OS_STDERR_CAPTURE'):
            self.useFixture(fixtures.EnvironmentVariable(name, '1'))
        self.useFixture(fixtures.EnvironmentVariable('OS_DEBUG'))
        # Where the lines would go if the inner test did not capture them:
        # a root log handler and this process's stdout and stderr.
        self.leaked_log = io.StringIO()
        self.useFixture(fixtures.LogHandler(
            logging.StreamHandler(self.leaked_log), nuke_handlers=False))
        self.leaked_stdout = self.useFixture(fixtures.StringStream(
            'stdout')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stdout',
                                             self.leaked_stdout))
        self.leaked_stderr = self.useFixture(fixtures.StringStream(
            'stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stderr',
                                             self.leaked_stderr))

    def test_output_and_logs_stay_with_the_test(self):
        result, details = run_inner('log_and_print')
        self.assertTrue(result.wasSuccessful(), result.errors)
        for stream in (self.leaked_log, self.leaked_stdout,
                       self.leaked_stderr):
            stream.seek(0)
            self.assertNotIn(MARK, stream.read())
        logged = ''.join(content.as_text() for name, content
                         in details.items()
                         if name.startswith('pythonlogging:'))
        self.assertIn('log line ' + MARK, logged)
        self.assertIn('stdout line ' + MARK, details['stdout'].as_text())
        self.assertIn('stderr line ' + MARK, details['stderr'].as_text())
