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
"""Configuration mistakes that used to pass the start, refused at it.

Each stops the command with one line naming the option and what to do,
exit status 2, before any process is forked: a server without its port,
a directory for a file, a value outside an option's choices, a
coordination URL tooz cannot use, a misspelt, missing or unreadable
policy file, a bus or cell database URL that cannot be one.
"""

import os
from unittest import mock

from flavor_exporter.cmd import all as cmd_all
from flavor_exporter.cmd import api as cmd_api
from flavor_exporter.cmd import report as cmd_report
from flavor_exporter.cmd import start
from flavor_exporter.cmd import worker as cmd_worker
from flavor_exporter.tests.unit.cmd import test_start
from flavor_exporter.worker import leadership

WORKER = 'flavor-exporter-worker'
API = 'flavor-exporter-api'


class TestRefused(test_start.StartTestCase):

    def refused(self, main, prog, text, what, argv=()):
        path = self.config_file(text)
        with mock.patch.object(start.port, 'listen') as listen:
            status = main(['--config-file', path, *argv])
        self.assertRefused(prog, status, what)
        listen.assert_not_called()
        return path

    def test_memcached_server_without_port(self):
        for main, prog in ((cmd_worker.main, WORKER), (cmd_api.main, API),
                           (cmd_all.main, 'flavor-exporter-all')):
            self.stderr.seek(0)
            self.stderr.truncate()
            self.conf.clear()
            self.refused(
                main, prog, '[document_cache]\nmemcache_servers = '
                '10.0.0.1:11211,localhost\n',
                "[document_cache] memcache_servers is not valid: "
                "'localhost' is not host:port; add the port (memcached "
                "listens on 11211 by default)")

    def test_memcached_servers_accepted(self):
        path = self.config_file('[document_cache]\nmemcache_servers = '
                                'localhost:11211, [::1]:11212\n')
        with mock.patch.object(start.port, 'listen'):
            cmd_api.main(['--config-file', path])
        self.serve.assert_called_once()
        self.assertEqual(['localhost:11211', '[::1]:11212'],
                         self.conf.document_cache.memcache_servers)

    def test_config_file_is_a_directory(self):
        status = cmd_worker.main(['--config-file', self.directory])
        self.assertRefused(
            WORKER, status, '%s is a directory, not a configuration file; '
            'name the file with --config-file, or the directory with '
            '--config-dir' % self.directory)

    def test_value_outside_the_choices(self):
        path = self.refused(
            cmd_api.main, API, '[DEFAULT]\nauth_strategy = bogus\n',
            "[DEFAULT] auth_strategy is not valid: Valid values are "
            "[noauth, keystone, http_basic], but found 'bogus'; fix the value")
        self.stderr.seek(0)
        message = self.stderr.read()
        self.assertIn(path, message)
        self.assertNotIn('LocationInfo', message)

    def test_coordination_url_without_a_tooz_driver(self):
        self.refused(
            cmd_worker.main, WORKER,
            '[coordination]\nbackend_url = bogus://\n',
            "[coordination] backend_url 'bogus://': tooz has no 'bogus' "
            "driver; use one of ")

    def test_coordination_url_refused_by_run_once_too(self):
        with mock.patch('flavor_exporter.worker.refresh.Refresher') as made:
            self.refused(
                cmd_worker.main, WORKER,
                '[coordination]\nbackend_url = zookeepr://zk:2181\n',
                "tooz has no 'zookeepr' driver", argv=['--run-once'])
        made.assert_not_called()

    def test_coordination_driver_without_its_package(self):
        driver = mock.Mock()
        driver.load.side_effect = ImportError(name='redis')
        with mock.patch.object(leadership, 'tooz_drivers',
                               return_value={'redis': driver}):
            self.refused(
                cmd_worker.main, WORKER,
                '[coordination]\nbackend_url = redis://cache:6379\n',
                "tooz's redis driver needs the Python package redis")

    def test_coordination_urls_accepted(self):
        for url in ('memcached://127.0.0.1:11211', 'file:///tmp/x'):
            self.conf.clear()
            path = self.config_file('[coordination]\nbackend_url = %s\n'
                                    % url)
            cmd_worker.main(['--config-file', path])
            self.launcher.assert_called_once()
            self.launcher.reset_mock()

    def test_coordination_unused_with_the_memory_backend(self):
        path = self.config_file('[document_cache]\nbackend = memory\n'
                                '[coordination]\nbackend_url = bogus://\n')
        with mock.patch.object(start.port, 'listen'):
            cmd_all.main(['--config-file', path])
        self.serve.assert_called_once()

    def test_keystone_without_its_section(self):
        for main, prog in ((cmd_api.main, API),
                           (cmd_all.main, 'flavor-exporter-all')):
            self.stderr.seek(0)
            self.stderr.truncate()
            self.conf.clear()
            self.refused(main, prog, '[DEFAULT]\nauth_strategy = keystone\n',
                         'needs a [keystone_authtoken] section')

    def test_noauth_beyond_loopback(self):
        self.refused(cmd_api.main, API,
                     '[DEFAULT]\nauth_strategy = noauth\n'
                     '[api]\nhost_ip = 0.0.0.0\n',
                     '[DEFAULT] auth_strategy = noauth on [api] host_ip = '
                     '0.0.0.0 would let anyone who reaches the port read')
        self.conf.clear()
        path = self.config_file('[DEFAULT]\nauth_strategy = noauth\n'
                                '[api]\nhost_ip = 0.0.0.0\n'
                                'noauth_beyond_loopback = true\n')
        with mock.patch.object(start.port, 'listen'):
            cmd_api.main(['--config-file', path])
        self.serve.assert_called_once()

    def test_misspelt_policy_option(self):
        self.refused(cmd_api.main, API,
                     '[oslo_policy]\npolicy_fil = policy.yaml\n',
                     '[oslo_policy] has no option "policy_fil"; did you '
                     'mean "policy_file"?')

    def test_missing_policy_file_with_keystone(self):
        for main, prog in ((cmd_api.main, API),
                           (cmd_all.main, 'flavor-exporter-all')):
            self.stderr.seek(0)
            self.stderr.truncate()
            self.conf.clear()
            path = self.refused(
                main, prog, '[DEFAULT]\nauth_strategy = keystone\n'
                '[oslo_policy]\npolicy_file = custom-policy.yaml\n',
                '[oslo_policy] policy_file custom-policy.yaml does not '
                'exist (a relative name is looked for beside the '
                'configuration files); create it')
            self.stderr.seek(0)
            self.assertIn(path, self.stderr.read())

    def test_policy_file_found_beside_the_configuration(self):
        with open(os.path.join(self.directory, 'custom-policy.yaml'),
                  'w') as rules:
            rules.write('"capacity:status:get": "role:admin"\n')
        path = self.config_file('[DEFAULT]\nauth_strategy = keystone\n'
                                '[keystone_authtoken]\n'
                                'www_authenticate_uri = http://keystone\n'
                                '[oslo_policy]\npolicy_file = '
                                'custom-policy.yaml\n')
        with mock.patch.object(start.port, 'listen'):
            cmd_api.main(['--config-file', path])
        self.serve.assert_called_once()

    def test_default_policy_file_may_be_absent(self):
        # Policies in code are the defaults; the file only overrides.
        path = self.config_file('[DEFAULT]\nauth_strategy = keystone\n'
                                '[keystone_authtoken]\n'
                                'www_authenticate_uri = http://keystone\n')
        with mock.patch.object(start.port, 'listen'):
            cmd_api.main(['--config-file', path])
        self.serve.assert_called_once()

    def test_policy_file_unused_without_keystone(self):
        path = self.config_file('[oslo_policy]\npolicy_file = nowhere.yaml\n')
        with mock.patch.object(start.port, 'listen'):
            cmd_api.main(['--config-file', path])
        self.serve.assert_called_once()

    def test_policy_file_that_cannot_be_read_as_rules(self):
        for rules, what in (
                ('"capacity:status:get": [role:admin\n',
                 ' cannot be read as rules: while parsing a flow sequence'),
                ('- role:admin\n', ' cannot be read as rules: '),
                ('"capacity:status:get": "role:admin or ("\n',
                 ': the rule "role:admin or (" cannot be parsed')):
            with open(os.path.join(self.directory, 'custom-policy.yaml'),
                      'w') as f:
                f.write(rules)
            for main, prog in ((cmd_api.main, API),
                               (cmd_all.main, 'flavor-exporter-all')):
                self.stderr.seek(0)
                self.stderr.truncate()
                self.conf.clear()
                self.refused(
                    main, prog, '[DEFAULT]\nauth_strategy = keystone\n'
                    '[oslo_policy]\npolicy_file = custom-policy.yaml\n',
                    '[oslo_policy] policy file %s%s' % (os.path.join(
                        self.directory, 'custom-policy.yaml'), what))


class TestUnusableUrls(test_start.StartTestCase):
    """The worker's bus and cell database URLs, checked in the parent."""

    COMMANDS = ((cmd_worker.main, WORKER, ()),
                (cmd_worker.main, WORKER, ('--run-once',)),
                (cmd_all.main, 'flavor-exporter-all', ()),
                (cmd_report.main, 'flavor-exporter-report', ()))

    def refused_everywhere(self, text, what, commands=COMMANDS):
        for main, prog, argv in commands:
            self.stderr.seek(0)
            self.stderr.truncate()
            self.conf.clear()
            path = self.config_file(text)
            with mock.patch('flavor_exporter.worker.refresh.Refresher') as \
                    made, mock.patch.object(start.port, 'listen'):
                status = main(['--config-file', path, *argv])
            self.assertRefused(prog, status, what)
            made.assert_not_called()
            self.stderr.seek(0)
            line = self.stderr.read()
            self.assertIn('%s: %s: ' % (prog, path), line)
            self.assertNotIn('s3cret', line)

    def test_every_command_checks_them(self):
        self.refused_everywhere(
            '[openstack]\nnotification_transport_url = rabbit//fe:s3cret@'
            'rabbit:5672/\n[DEFAULT]\n', '[openstack] '
            'notification_transport_url: not a transport URL')
        self.refused_everywhere(
            '[openstack]\ncell_database_connections = '
            'mysql+pymysql//fe:s3cret@db/nova_cell1\n', '[openstack] '
            'cell_database_connections, URL 1 of 1: not an SQLAlchemy URL')

    def test_transport_urls(self):
        for url, what in (
                ('rabbit//fe:s3cret@rabbit:5672/',
                 'notification_transport_url: not a transport URL; write '
                 'DRIVER://USER:PASSWORD@HOST:PORT/VIRTUAL_HOST'),
                ('rabbit://fe:s3cret@rabbit:port/',
                 'notification_transport_url: its host or port cannot be '
                 'read'),
                # A / in the password ends the host part: the rest would
                # be read as the port, and quoted.
                ('rabbit://fe:s3/cret@rabbit:5672/',
                 'notification_transport_url: its host or port cannot be '
                 'read: a port is a number, and / ? # @ : in a user name '
                 'or password must be percent-encoded'),
                ('rabbitmq://fe:s3cret@rabbit:5672/',
                 "notification_transport_url: oslo.messaging has no "
                 "'rabbitmq' driver; use one of ")):
            self.refused_everywhere(
                '[openstack]\nnotification_transport_url = %s\n' % url,
                '[openstack] ' + what, self.COMMANDS[:1])

    def test_cell_database_urls(self):
        for url, what in (
                ('mysql+pymysql//fe:s3cret@db/nova_cell1',
                 'not an SQLAlchemy URL'),
                ('mysql+pymysql://fe:s3cret@db:port/nova_cell1',
                 'its host or port cannot be read'),
                ('mysq+pymysql://fe:s3cret@db/nova_cell1',
                 'SQLAlchemy has no such dialect'),
                ('mysql+mysqldb://fe:s3cret@db/nova_cell1',
                 'mysql+mysqldb needs the Python package MySQLdb')):
            self.refused_everywhere(
                '[openstack]\ncell_database_connections = '
                'sqlite:///cell1.sqlite,%s\n' % url,
                '[openstack] cell_database_connections, URL 2 of 2: '
                + what, self.COMMANDS[:1])

    def test_a_cloud_s_group_is_checked(self):
        self.refused_everywhere(
            '[DEFAULT]\nclouds = one\n[cloud:one]\n'
            'notification_transport_url = bogus://h/\n',
            "[cloud:one] notification_transport_url: oslo.messaging has "
            "no 'bogus' driver", self.COMMANDS[:1])

    def test_urls_accepted(self):
        path = self.config_file(
            '[openstack]\nnotification_transport_url = '
            'rabbit://fe:s3cret@rabbit:5672/\n'
            'cell_database_connections = mysql+pymysql://fe:s3cret@db/'
            'nova_cell1,sqlite:///cell1.sqlite\n')
        cmd_worker.main(['--config-file', path])
        self.launcher.assert_called_once()
