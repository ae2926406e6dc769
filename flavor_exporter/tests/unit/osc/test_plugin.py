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
"""The openstack CLI plugin, run as users run it, against the served API.

The sample cloud is published and served by the real API application on
loopback; python-openstackclient's shell loads the plugin through its
entry points and reads the API over HTTP.
Keystone's part (a real token, the service catalog) is in the functional
test_keystone_auth.py.
"""

import importlib.metadata
import io
import json
import os
import subprocess
import threading
from unittest import mock
from wsgiref import simple_server

import fixtures
from openstackclient import shell
from osc_lib import clientmanager

from flavor_exporter.api import app
from flavor_exporter.osc import flavor as osc_flavor
from flavor_exporter.osc import plugin
from flavor_exporter.tests.unit.api import base


class QuietHandler(simple_server.WSGIRequestHandler):

    def log_message(self, *args):
        pass


class TestEntryPoints(base.base.BaseTestCase):

    def test_registered(self):
        extensions = {e.name: e.value for e in importlib.metadata
                      .entry_points(group='openstack.cli.extension')}
        self.assertEqual('flavor_exporter.osc.plugin',
                         extensions['capacity'])
        commands = {e.name: e.load() for e in importlib.metadata
                    .entry_points(group='openstack.capacity.v%s'
                                  % plugin.DEFAULT_API_VERSION)}
        self.assertEqual({'capacity_flavor_list': osc_flavor.ListFlavor,
                          'capacity_flavor_show': osc_flavor.ShowFlavor},
                         commands)


class TestCommands(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.publish()
        server = simple_server.make_server(
            '127.0.0.1', 0, app.setup_app(self.conf, self.store),
            handler_class=QuietHandler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.endpoint = 'http://127.0.0.1:%d' % server.server_port

    def openstack(self, *args, status=0):
        """Run openstackclient's shell in this process, as its entry point.

        In process rather than as a command: a unit test must not wait on
        a Python start per call (the functional test_osc_keystone runs the
        installed command).
        """
        self.useFixture(fixtures.EnvironmentVariable('OS_CLOUD'))
        for name in [n for n in os.environ if n.startswith('OS_')]:
            self.useFixture(fixtures.EnvironmentVariable(name))
        # openstackclient keeps each plugin's client on its ClientManager
        # class, for the life of the process: one per run here.
        cached = vars(clientmanager.ClientManager)[plugin.API_NAME]
        self.addCleanup(setattr, cached, '_handle', cached._handle)
        cached._handle = None
        stdout = io.StringIO()
        stderr = io.StringIO()
        with mock.patch('sys.stdout', stdout), \
                mock.patch('sys.stderr', stderr):
            returned = shell.main(['--os-auth-type', 'none',
                                   '--os-endpoint', self.endpoint]
                                  + list(args))
        done = subprocess.CompletedProcess(args, returned,
                                           stdout.getvalue(),
                                           stderr.getvalue())
        self.assertEqual(status, done.returncode, done.stderr)
        return done

    def test_list_json_is_what_the_api_serves(self):
        served = self.app.get('/v2/flavors/').json['flavors']
        listed = json.loads(self.openstack('capacity', 'flavor', 'list',
                                           '-f', 'json').stdout)
        self.assertEqual(
            [(f['id'], f['name'], f['total'], f['available'],
              f['limited_by']) for f in served],
            [(f['ID'], f['Name'], f['Total'], f['Available'],
              f['Limited By']) for f in listed])
        gpus = {f['ID']: f['GPU'] for f in listed}
        self.assertEqual('a100 x1', gpus['g1'])
        self.assertEqual('', gpus['1'])

    def test_gpu_and_zone_filters(self):
        listed = json.loads(self.openstack(
            'capacity', 'flavor', 'list', '--gpu', '--availability-zone',
            'az1', '-f', 'json').stdout)
        self.assertEqual({'g1': (4, 2), 'g2': (0, 0)},
                         {f['ID']: (f['Total'], f['Available'])
                          for f in listed})

    def test_table_csv_and_yaml(self):
        table = self.openstack('capacity', 'flavor', 'list').stdout
        self.assertIn('| ID ', table)
        self.assertIn('| gpu.a100 ', table)
        csv = self.openstack('capacity', 'flavor', 'list', '-f',
                             'csv').stdout.splitlines()
        self.assertEqual('"ID","Name","GPU","Total","Available",'
                         '"Limited By"', csv[0])
        shown = self.openstack('capacity', 'flavor', 'show', 'gpu.a100',
                               '-f', 'yaml').stdout
        self.assertIn("availability_zones: 'az1: 2/4, az2: 0/0'", shown)

    def test_show_by_name_and_id(self):
        for key in ('gpu.a100', 'g1'):
            shown = json.loads(self.openstack(
                'capacity', 'flavor', 'show', key, '-f', 'json').stdout)
            self.assertEqual(
                {'id': 'g1', 'name': 'gpu.a100', 'gpu': 'a100 x1',
                 'total': 4, 'available': 2, 'hosts': 1, 'stale': False},
                {k: shown[k] for k in ('id', 'name', 'gpu', 'total',
                                       'available', 'hosts', 'stale')})

    def test_errors_are_the_apis_messages(self):
        done = self.openstack('capacity', 'flavor', 'show', 'nope',
                              status=1)
        self.assertEqual('No flavor has the id or name "nope". (HTTP 404)',
                         done.stderr.strip())
        self.assertEqual('', done.stdout)
        done = self.openstack('capacity', 'flavor', 'list',
                              '--availability-zone', 'az9', status=1)
        self.assertIn('Unknown availability zone "az9"', done.stderr)
