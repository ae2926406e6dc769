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
"""Each kind of change Nova makes, served by the API, options at default.

The notification suite's cloud (a RabbitMQ of its own, two workers in
one pool) with the freshness options at their defaults ([notifications]
settle and check_interval, [api] generation_check_interval), and two
API processes on one port. Each change of testcloud/changes.py (a new
flavor, a boot, a resize and a migration and their confirmations, a
delete, a compute service disabled and enabled, a host into and out of a
zone aggregate) must be served with the numbers Nova's placement gives,
and once served by one process never be answered older by either.

The seconds each change took, from Nova's end to the API's changed
answer, are recorded in the test's "freshness" detail; how fast is the
benchmark's to say (tools/bench/freshness.py), not an assertion here.
Polling stays once an hour: every change comes from a notification.
"""

import json
import time

import testtools.content

from flavor_exporter.tests.functional import test_notifications
from testcloud import changes
from testcloud import loopback

# Answers read after a change was first served: none may be older.
READ_AGAIN = 6


class TestFreshness(test_notifications.NotificationsTestCase):

    scenario = changes.SCENARIO

    def worker_lines(self):
        return []  # the defaults

    def test_each_change_served(self):
        self.start('flavor-exporter-api', self.config)
        loopback.wait_for_port(self.port, timeout=60)
        api = changes.Api(self.port)
        self.wait_for(lambda: changes.small_is(
            4, {'host-1': 2, 'host-2': 2})(api), 'the first data served')
        figures = {}
        self.addDetail('freshness', testtools.content.Content(
            testtools.content.UTF8_TEXT,
            lambda: [json.dumps(figures).encode()]))
        cloud = changes.Changes(self.conn)
        for kind, make in cloud.round():
            time.sleep(cloud.quiet)  # each a lone change
            change = make()
            seconds = changes.watch(api, change,
                                    timeout=test_notifications.HEARD_WITHIN)
            self.assertIsNotNone(seconds, '%s: never served' % change.what)
            for _ in range(READ_AGAIN):
                self.assertTrue(change.expect(api),
                                '%s: served, then older' % change.what)
            figures[kind] = round(seconds, 3)
        self.assertEqual(set(changes.KINDS), set(figures))
