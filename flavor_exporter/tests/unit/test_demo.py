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
"""tox -e demo refuses what it cannot run in one line, before any cloud."""

import socket
from unittest import mock

from flavor_exporter.tests import base
from testcloud import demo


class TestDemoRefusals(base.BaseTestCase):

    def test_a_scenario_by_name_or_file_name(self):
        self.assertEqual('vgpu', demo.scenario_of('vgpu'))
        self.assertEqual('vgpu', demo.scenario_of('vgpu.yaml'))

    def test_an_unknown_scenario_lists_the_scenarios(self):
        with mock.patch.object(demo.launcher, 'TestCloud') as cloud:
            exited = self.assertRaises(SystemExit, demo.main,
                                       ['--scenario', 'nope'])
        cloud.assert_not_called()
        self.assertIn("demo: no scenario 'nope'; choose one of: ",
                      exited.code)
        self.assertIn('predecessor, ', exited.code)
        self.assertEqual(1, len(exited.code.splitlines()))

    def test_a_port_in_use_stops_it_before_the_cloud(self):
        taken = socket.socket()
        self.addCleanup(taken.close)
        taken.bind(('127.0.0.1', 0))
        taken.listen()
        port = taken.getsockname()[1]
        with mock.patch.object(demo.launcher, 'TestCloud') as cloud:
            exited = self.assertRaises(SystemExit, demo.main,
                                       ['--port', str(port)])
        cloud.assert_not_called()
        self.assertEqual('demo: 127.0.0.1:%d is in use (Address already in '
                         'use; another demo still running?): stop it, or '
                         'pass --port N' % port, exited.code)
