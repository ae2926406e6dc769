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
"""The API against its OpenAPI document: a bounded schemathesis run.

schemathesis generates requests from flavor_exporter/api/openapi.json
(schema-valid and not), sends them to flavor-exporter-api serving a
published sample cloud, and checks every answer against the document:
status codes, content types, bodies, 405 with Allow for undocumented
methods, refusal of invalid input. Deterministic generation and a few
examples per operation keep it to seconds.
"""

import os
import subprocess
import sys

from flavor_exporter.tests.functional import test_commands
from flavor_exporter.tests import sample_cloud
from testcloud import loopback

CONFIG = os.path.join(os.path.dirname(__file__), 'schemathesis.toml')


class TestOpenApiConformance(test_commands.CommandsTestCase):

    def test_every_check_passes(self):
        sample_cloud.publish(self.store, sample_cloud.many_flavors(20),
                             host_list=sample_cloud.many_hosts(4))
        # No worker answers the per-project routes and the set checks
        # here: their 503 comes at once instead of after [projects] wait
        # and [checks] wait, which would otherwise take most of the run (a
        # few seconds for each generated project or set).
        config = self.write_config(lines=['[projects]', 'wait = 0',
                                          '[checks]', 'wait = 0'])
        self.start('flavor-exporter-api', config)
        loopback.wait_for_port(self.port, timeout=60)
        self.wait_for('/v3/flavors/')
        st = os.path.join(os.path.dirname(sys.executable), 'st')
        done = subprocess.run(
            [st, '--config-file', CONFIG, 'run',
             'http://127.0.0.1:%d/openapi.json' % self.port,
             '--checks', 'all', '--max-examples', '10',
             '--generation-deterministic', '--request-timeout', '30'],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            # It keeps a .schemathesis/ directory where it runs.
            cwd=self.workdir, timeout=600)
        self.assertEqual(0, done.returncode, done.stdout[-6000:])
