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

import io
import os
from unittest import mock

import fixtures
from keystoneauth1 import loading as ks_loading

from flavor_exporter.cmd import all as cmd_all
from flavor_exporter.cmd import api as cmd_api
from flavor_exporter.cmd import report as cmd_report
from flavor_exporter.cmd import start
from flavor_exporter.cmd import worker as cmd_worker
from flavor_exporter.common import config
from flavor_exporter.common import config_check
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
        # What serves the API (granian) in flavor-exporter-api and -all.
        self.serve = self.useFixture(fixtures.MockPatch(
            'flavor_exporter.wsgi.server.serve')).mock
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
        self.serve.assert_not_called()


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

    def test_api_never_computes_so_ignores_aliases(self):
        with mock.patch.object(start.port, 'listen') as listen:
            cmd_api.main(['--config-file', self.bad_alias_file()])
        self.serve.assert_called_once()
        listen.return_value.close.assert_called_once()


class TestOtherConfigErrors(StartTestCase):

    def test_bad_value(self):
        path = self.config_file('[worker]\nrefresh_interval = often\n')
        status = cmd_worker.main(['--config-file', path])
        # File, group and option, why, and what to do; not oslo.config's
        # "from LocationInfo(...)".
        self.assertRefused(
            'flavor-exporter-worker', status,
            "%s: [worker] refresh_interval is not valid: invalid literal "
            "for int() with base 10: 'often'; fix the value or remove the "
            "line for the default" % path)

    def test_a_refused_command_line_value(self):
        status = cmd_report.main(['--format', 'xml'])
        self.assertRefused('flavor-exporter-report', status,
                           '--format xml is not valid; choose table or json')

    def test_value_out_of_range(self):
        path = self.config_file('[worker]\nrefresh_interval = 5\n')
        status = cmd_all.main(['--config-file', path])
        self.assertRefused('flavor-exporter-all', status,
                           '[worker] refresh_interval is not valid: '
                           'Should be greater than or equal to 10')

    def test_missing_file(self):
        path = os.path.join(self.directory, 'missing.conf')
        status = cmd_report.main(['--config-file', path])
        self.assertRefused(
            'flavor-exporter-report', status,
            'configuration file not found: %s; create it from '
            'flavor-exporter.conf.sample or name another with '
            '--config-file' % path)

    def test_misspelled_option(self):
        path = self.config_file('[worker]\nrefresh_intervall = 60\n')
        status = cmd_worker.main(['--config-file', path])
        self.assertRefused('flavor-exporter-worker', status,
                           '%s: [worker] has no option "refresh_intervall"; '
                           'did you mean "refresh_interval"?' % path)

    def test_misspelled_default_option(self):
        path = self.config_file('[DEFAULT]\ndebugg = true\n')
        status = cmd_report.main(['--config-file', path])
        self.assertRefused('flavor-exporter-report', status,
                           '[DEFAULT] has no option "debugg"; did you mean '
                           '"debug"?')

    def test_option_far_from_any(self):
        path = self.config_file('[api]\nzzz = 1\n')
        status = cmd_all.main(['--config-file', path])
        self.assertRefused('flavor-exporter-all', status,
                           '[api] has no option "zzz"; see '
                           'flavor-exporter.conf.sample for the options '
                           'of [api]')

    def test_misspelled_section(self):
        path = self.config_file('[document_cahce]\nbackend = memory\n')
        status = cmd_worker.main(['--config-file', path])
        self.assertRefused('flavor-exporter-worker', status,
                           'unknown section [document_cahce]; did you '
                           'mean [document_cache]?')

    def test_misspelled_auth_option(self):
        path = self.config_file('[openstack]\nauth_type = password\n'
                                'usernme = admin\n')
        status = cmd_report.main(['--config-file', path])
        self.assertRefused('flavor-exporter-report', status,
                           '[openstack] has no option "usernme"; did you '
                           'mean "username"?')

    def test_config_dir_files_are_checked(self):
        conf_d = os.path.join(self.directory, 'conf.d')
        os.mkdir(conf_d)
        with open(os.path.join(conf_d, 'cache.conf'), 'w') as f:
            f.write('[document_cache]\nmemcache_server = x:1\n')
        status = cmd_worker.main(['--config-dir', conf_d])
        self.assertRefused('flavor-exporter-worker', status,
                           'cache.conf: [document_cache] has no option '
                           '"memcache_server"; did you mean '
                           '"memcache_servers"?')


class TestUnknownCloud(StartTestCase):
    """flavor-exporter-report --cloud names one of [DEFAULT] clouds."""

    def setUp(self):
        super().setUp()
        self.connect = self.useFixture(fixtures.MockPatch(
            'flavor_exporter.worker.openstack.CloudClient.from_conf')).mock

    def test_none_of_the_clouds(self):
        path = self.config_file('[DEFAULT]\nclouds = east,west\n')
        status = cmd_report.main(['--config-file', path, '--cloud', 'north'])
        self.assertRefused('flavor-exporter-report', status,
                           '--cloud north is none of [DEFAULT] clouds '
                           '(east, west); pick one of them')
        self.connect.assert_not_called()

    def test_single_cloud_is_default(self):
        path = self.config_file('')
        status = cmd_report.main(['--config-file', path, '--cloud', 'east'])
        self.assertRefused('flavor-exporter-report', status,
                           '--cloud east: [DEFAULT] clouds is empty, so the '
                           'only cloud is "default"; list the clouds there '
                           'or leave --cloud out')
        self.connect.assert_not_called()


class TestReportOptions(StartTestCase):

    def test_gpu_flavors_or_gpu_types(self):
        connect = self.useFixture(fixtures.MockPatch(
            'flavor_exporter.worker.openstack.CloudClient.from_conf')).mock
        status = cmd_report.main(['--config-file', self.config_file(''),
                                  '--gpu', '--gpus'])
        self.assertRefused('flavor-exporter-report', status,
                           '--gpu picks GPU flavors, --gpus lists GPU '
                           'devices by type instead of flavors: give one of '
                           'them')
        connect.assert_not_called()


class TestConfigAccepted(StartTestCase):
    """What the check must let through: libraries' and others' options."""

    def test_library_and_foreign_sections(self):
        path = self.config_file(
            # run_once: the worker's command line option, in a file too.
            '[DEFAULT]\ndebug = true\nrun_once = false\n'
            'graceful_shutdown_timeout = 5\n'
            '[openstack]\nauth_type = v3password\nusername = u\n'
            'user_domain_name = Default\nproject_name = p\n'
            'auth_url = http://keystone\n'
            '[keystone_authtoken]\nauth_type = password\n'
            'www_authenticate_uri = http://keystone\nusername = u\n'
            'memcached_servers = 127.0.0.1:11211\n'
            '[healthcheck]\ndetailed = true\n'
            # Another program's section in a shared file.
            '[placement_database]\nconnection = sqlite://\n'
            '[worker]\nrefresh_interval = 60\n')
        self.launcher.return_value.wait.return_value = 0
        self.assertEqual(0, cmd_worker.main(['--config-file', path]))
        self.stderr.seek(0)
        self.assertEqual('', self.stderr.read())
        self.launcher.assert_called_once()

    def test_documented_sections_are_ours(self):
        # README documents [oslo_policy]: not "another program's" section.
        path = self.config_file(
            '[oslo_policy]\npolicy_file = policy.yaml\n'
            'enforce_new_defaults = true\n'
            '[placement_database]\nconnection = sqlite://\n')
        config.parse_args(['--config-file', path])
        self.assertEqual([(path, 'placement_database',
                           {'connection': ['sqlite://']})],
                         config_check.check(self.conf))

    def test_nova_conf_pasted_in_says_what_to_set(self):
        path = self.config_file(
            '[scheduler]\nlimit_tenants_to_placement_aggregate = true\n'
            'enable_isolated_aggregate_filtering = false\n'
            '[filter_scheduler]\nenabled_filters = ComputeFilter, '
            'AggregateMultiTenancyIsolation\n'
            '[oslo_limit]\nendpoint_id = e1\n'
            '[capacity]\naggregate_instance_extra_specs = false\n'
            '[placement_database]\nconnection = sqlite://\n')
        with mock.patch.object(config.LOG, 'warning') as warning, \
                mock.patch.object(config.LOG, 'info') as info:
            config.prepare_service(['--config-file', path])
        lines = sorted(call.args[0] for call in warning.call_args_list)
        self.assertEqual([
            "%s: [filter_scheduler] enabled_filters is nova.conf's, which "
            "flavor-exporter does not read; it lists "
            "AggregateMultiTenancyIsolation: set [capacity] "
            "aggregate_multitenancy_isolation = true" % path,
            "%s: [oslo_limit] endpoint_id is nova.conf's, which "
            "flavor-exporter does not read; set [quota] endpoint_id = e1 "
            "(now None)" % path,
            "%s: [scheduler] limit_tenants_to_placement_aggregate is "
            "nova.conf's, which flavor-exporter does not read; set "
            "[capacity] limit_tenants_to_placement_aggregate = true (now "
            "False)" % path], lines)
        # A line that agrees with flavor-exporter's option says nothing;
        # another program's section is one INFO line.
        info.assert_any_call(
            '%s: [%s] is not a flavor-exporter section; ignored', path,
            'placement_database')

    def test_misspelled_policy_option(self):
        path = self.config_file('[oslo_policy]\npolicy_fil = p.yaml\n')
        status = cmd_api.main(['--config-file', path])
        self.assertRefused('flavor-exporter-api', status,
                           '[oslo_policy] has no option "policy_fil"; did '
                           'you mean "policy_file"?')


class TestReadmeExamples(StartTestCase):
    """The docs' examples of refused configurations are what is printed.

    doc/source/configuration/index.rst, "What is refused at start".
    """

    README = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..',
                          'doc', 'source', 'configuration', 'index.rst')
    PATH = '/etc/flavor-exporter/flavor-exporter.conf'
    # What each example's file holds, by the example's order.
    FILES = (None, '[worker]\nrefresh_interval = 5\n',
             '[worker]\nrefresh_intervall = 60\n',
             '[document_cahce]\nkey_prefix = x\n')

    def examples(self):
        with open(self.README) as readme:
            text = readme.read()
        block = text.split('and exit status 2::\n\n', 1)[1]
        block = block.split('\n\n', 1)[0]
        return [line.strip() for line in block.splitlines()
                if line.strip().startswith('flavor-exporter-worker: ')]

    def test_each_example(self):
        examples = self.examples()
        self.assertEqual(len(self.FILES), len(examples))
        for number, (text, example) in enumerate(zip(self.FILES, examples)):
            self.stderr.seek(0)
            self.stderr.truncate()
            self.conf.clear()
            path = os.path.join(self.directory, 'example-%d.conf' % number)
            if text is not None:
                with open(path, 'w') as conf:
                    conf.write(text)
            status = cmd_worker.main(['--config-file', path])
            self.assertEqual(config.EXIT_INVALID_CONFIG, status)
            self.stderr.seek(0)
            self.assertEqual(example.replace(self.PATH, path),
                             self.stderr.read().strip())


class TestCloudsConfig(StartTestCase):

    def test_a_name_that_cannot_be_a_cloud(self):
        path = self.config_file('[DEFAULT]\nclouds = east, we/st\n')
        status = cmd_worker.main(['--config-file', path])
        self.assertRefused('flavor-exporter-worker', status,
                           '[DEFAULT] clouds: "we/st" cannot name a cloud')

    def test_group_of_no_listed_cloud(self):
        path = self.config_file('[DEFAULT]\nclouds = east\n'
                                '[cloud:north]\nregion_name = N\n')
        status = cmd_all.main(['--config-file', path])
        self.assertRefused('flavor-exporter-all', status,
                           '%s: [cloud:north] is the group of no cloud; '
                           'add north to [DEFAULT] clouds or remove the '
                           'section' % path)

    def test_misspelled_option_of_a_cloud(self):
        path = self.config_file('[DEFAULT]\nclouds = east\n'
                                '[cloud:east]\napi_timout = 5\n')
        status = cmd_worker.main(['--config-file', path])
        self.assertRefused('flavor-exporter-worker', status,
                           '[cloud:east] has no option "api_timout"; did '
                           'you mean "api_timeout"?')

    def test_default_cloud_not_listed(self):
        path = self.config_file('[DEFAULT]\nclouds = east\n'
                                'default_cloud = west\n')
        status = cmd_report.main(['--config-file', path])
        self.assertRefused('flavor-exporter-report', status,
                           'default_cloud = west is none of')

    def test_one_worker_service_per_cloud(self):
        path = self.config_file(
            '[DEFAULT]\nclouds = east, west\n'
            '[cloud:west]\nauth_type = password\n'
            'auth_url = http://keystone.west:5000/v3\nusername = fe\n'
            'password = secret\nproject_name = admin\n'
            'user_domain_name = Default\nproject_domain_name = Default\n')
        self.launcher.return_value.wait.return_value = 0
        self.assertEqual(0, cmd_worker.main(['--config-file', path]))
        service = self.launcher.return_value.launch_service.call_args[0][0]
        self.assertEqual(['east', 'west'],
                         [part.cloud.name for part in service.parts])
        # The cloud's own credentials, loaded as the worker will.
        auth = ks_loading.load_auth_from_conf_options(self.conf,
                                                      'cloud:west')
        self.assertEqual('http://keystone.west:5000/v3', auth.auth_url)

    def test_run_once_refreshes_each_cloud(self):
        path = self.config_file('[DEFAULT]\nclouds = east, west, north\n')
        refreshed = []

        class Refresher:
            def __init__(self, conf, store, options, cloud):
                self.cloud = cloud
                self.last_error = 'Placement answered 500'

            def refresh(self, log_failure=True):
                # The command says what failed, once.
                assert not log_failure
                refreshed.append(self.cloud.name)
                return self.cloud.name != 'west'

        with mock.patch.object(cmd_worker.refresh, 'Refresher', Refresher):
            status = cmd_worker.main(['--config-file', path, '--run-once'])
        self.assertEqual(1, status)
        self.assertEqual(['east', 'west', 'north'], refreshed)
        self.stderr.seek(0)
        self.assertEqual(
            ['flavor-exporter-worker: Cloud west: the refresh failed, '
             'nothing was published: Placement answered 500'],
            self.stderr.read().splitlines())


class TestWorkerStarts(StartTestCase):

    def test_parsed_aliases_reach_the_service(self):
        path = self.config_file(
            '[pci]\nalias = {"name": "V100", "vendor_id": "10de", '
            '"product_id": "1db4"}\n')
        self.launcher.return_value.wait.return_value = 0
        self.assertEqual(0, cmd_worker.main(['--config-file', path]))
        service = self.launcher.return_value.launch_service.call_args[0][0]
        self.assertEqual(['V100'], list(service.parts[0]._options.aliases))


class TestHelp(StartTestCase):
    """--help starts with what the command does.

    In a real process, with nothing else on stderr: functional
    test_commands.TestHelpAlone.
    """

    def test_every_command(self):
        for prog, module in (('flavor-exporter-api', cmd_api),
                             ('flavor-exporter-worker', cmd_worker),
                             ('flavor-exporter-all', cmd_all),
                             ('flavor-exporter-report', cmd_report)):
            stdout = io.StringIO()
            with mock.patch('sys.stdout', stdout), \
                    mock.patch('sys.argv', [prog]):
                exited = self.assertRaises(SystemExit, module.main,
                                           ['--help'])
            self._unregister_cli_opts()
            self.assertEqual(0, exited.code)
            lines = stdout.getvalue().splitlines()
            self.assertEqual('usage: %s [options]' % prog, lines[0])
            self.assertEqual('', lines[1])
            # argparse wraps lines at spaces and after hyphens.
            described = ''.join(lines[2:lines.index('', 2)]).split()
            self.assertEqual(''.join(str(module.DESCRIPTION).split()),
                             ''.join(described))
            # The epilog: where the rest of the settings are.
            self.assertIn('conf.sample', stdout.getvalue())
            self.launcher.assert_not_called()
