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
"""Every command refuses a configuration it cannot run with, at start.

One line on stderr naming the option, exit status 2, nothing started.
"""

import os
from unittest import mock

import fixtures

from flavor_exporter.cmd import all as cmd_all
from flavor_exporter.cmd import api as cmd_api
from flavor_exporter.cmd import report as cmd_report
from flavor_exporter.cmd import worker as cmd_worker
from flavor_exporter.common import config
from flavor_exporter.tests import base

BAD_ALIAS = '{"name": "V100", "vendor_id": "10de"}'
ALIAS_ERROR = ("[pci] alias 'V100' needs vendor_id and product_id, or "
               "resource_class")


class StartTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.stderr = self.useFixture(fixtures.StringStream('stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', self.stderr))
        self.useFixture(fixtures.MockPatch('oslo_log.log.setup'))
        self.launcher = self.useFixture(fixtures.MockPatch(
            'oslo_service.service.ServiceLauncher')).mock
        self.directory = self.useFixture(fixtures.TempDir()).path
        # The commands parse their own command line and register options
        # for it, which oslo.config allows only before parsing.
        self.conf.clear()
        self.addCleanup(self._unregister_cli_opts)

    def _unregister_cli_opts(self):
        self.conf.clear()
        for module in (cmd_worker, cmd_report):
            self.conf.unregister_opts(module.CLI_OPTS)

    def config_file(self, text):
        path = os.path.join(self.directory, 'flavor-exporter.conf')
        with open(path, 'w') as conf:
            conf.write(text)
        return path

    def bad_alias_file(self, extra=''):
        return self.config_file('%s[pci]\nalias = %s\n' % (extra, BAD_ALIAS))

    def assertRefused(self, prog, status, what):
        self.assertEqual(config.EXIT_INVALID_CONFIG, status)
        self.stderr.seek(0)
        lines = self.stderr.read().splitlines()
        self.assertEqual(1, len(lines), lines)
        self.assertTrue(lines[0].startswith(prog + ': '), lines[0])
        self.assertIn(what, lines[0])
        self.launcher.assert_not_called()


class TestBadAlias(StartTestCase):

    def test_worker(self):
        status = cmd_worker.main(['--config-file', self.bad_alias_file()])
        self.assertRefused('flavor-exporter-worker', status, ALIAS_ERROR)

    def test_worker_run_once(self):
        with mock.patch('flavor_exporter.worker.refresh.Refresher') as made:
            status = cmd_worker.main(['--config-file', self.bad_alias_file(),
                                      '--run-once'])
        self.assertRefused('flavor-exporter-worker', status, ALIAS_ERROR)
        made.assert_not_called()

    def test_all(self):
        status = cmd_all.main(['--config-file', self.bad_alias_file()])
        self.assertRefused('flavor-exporter-all', status, ALIAS_ERROR)

    def test_report(self):
        with mock.patch('flavor_exporter.worker.refresh.Refresher') as made:
            status = cmd_report.main(['--config-file',
                                      self.bad_alias_file()])
        self.assertRefused('flavor-exporter-report', status, ALIAS_ERROR)
        made.assert_not_called()

    def test_api_computing_on_a_cold_cache(self):
        path = self.bad_alias_file('[api]\ncompute_on_miss = true\n')
        with mock.patch.object(cmd_api, 'serve') as serve:
            status = cmd_api.main(['--config-file', path])
        self.assertRefused('flavor-exporter-api', status, ALIAS_ERROR)
        serve.assert_not_called()

    def test_api_that_never_computes_ignores_aliases(self):
        with mock.patch.object(cmd_api, 'serve') as serve, \
                mock.patch.object(cmd_api.port, 'listen') as listen:
            cmd_api.main(['--config-file', self.bad_alias_file()])
        serve.assert_called_once_with(mock.ANY, listen.return_value)


class TestOtherConfigErrors(StartTestCase):

    def test_bad_value(self):
        path = self.config_file('[worker]\nrefresh_interval = often\n')
        status = cmd_worker.main(['--config-file', path])
        self.assertRefused('flavor-exporter-worker', status,
                           'refresh_interval')

    def test_missing_file(self):
        path = os.path.join(self.directory, 'missing.conf')
        status = cmd_report.main(['--config-file', path])
        self.assertRefused('flavor-exporter-report', status, path)


class TestWorkerStarts(StartTestCase):

    def test_parsed_aliases_reach_the_service(self):
        path = self.config_file(
            '[pci]\nalias = {"name": "V100", "vendor_id": "10de", '
            '"product_id": "1db4"}\n')
        self.launcher.return_value.wait.return_value = 0
        self.assertEqual(0, cmd_worker.main(['--config-file', path]))
        service = self.launcher.return_value.launch_service.call_args[0][0]
        self.assertEqual(['V100'], list(service._options.aliases))
