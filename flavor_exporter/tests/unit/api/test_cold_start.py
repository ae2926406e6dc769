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

import threading
import time
from unittest import mock

from flavor_exporter.api import cold_start
from flavor_exporter.tests import base as test_base


class TestSingleFlight(test_base.BaseTestCase):

    def test_concurrent_callers_share_one_run(self):
        started = threading.Event()
        release = threading.Event()
        calls = []

        def refresh():
            calls.append(1)
            started.set()
            release.wait(10)
            return True

        flight = cold_start.SingleFlight(refresh, backoff=30)
        results = []
        threads = [threading.Thread(target=lambda: results.append(flight()))
                   for _ in range(8)]
        threads[0].start()
        self.assertTrue(started.wait(10))
        for thread in threads[1:]:
            thread.start()
        # Release the leader once every follower waits for its run
        # (Condition's waiter list: CPython's, good enough for a test).
        deadline = time.monotonic() + 10
        while (len(flight._cond._waiters) < 7 and
               time.monotonic() < deadline):
            time.sleep(0.01)
        release.set()
        for thread in threads:
            thread.join(10)
        self.assertEqual([True] * 8, results)
        self.assertEqual(1, len(calls))

    def test_backoff_after_failure(self):
        now = [0.0]
        refresh = mock.Mock(return_value=False)
        flight = cold_start.SingleFlight(refresh, backoff=30,
                                         clock=lambda: now[0])
        self.assertFalse(flight())
        now[0] = 29
        self.assertFalse(flight())
        self.assertEqual(1, refresh.call_count)
        now[0] = 30
        refresh.return_value = True
        self.assertTrue(flight())
        self.assertEqual(2, refresh.call_count)
        self.assertTrue(flight())
        self.assertEqual(3, refresh.call_count)

    def test_exception_is_a_failure(self):
        flight = cold_start.SingleFlight(
            mock.Mock(side_effect=RuntimeError('cloud down')), backoff=1)
        with mock.patch.object(cold_start.LOG, 'error') as log:
            self.assertFalse(flight())
        # One line with the cause; the traceback only at debug level.
        log.assert_called_once()
        self.assertIn('RuntimeError: cloud down', log.call_args[0][1])
