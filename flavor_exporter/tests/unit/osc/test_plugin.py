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

import datetime
import importlib.metadata
import io
import json
import os
import socket
import subprocess
import threading
from unittest import mock
from wsgiref import simple_server

import fixtures
from openstackclient import shell
from osc_lib import clientmanager
import yaml

from flavor_exporter.api import app
from flavor_exporter.common import clouds
from flavor_exporter.common import phrases
from flavor_exporter.osc import check as osc_check
from flavor_exporter.osc import cloud as osc_cloud
from flavor_exporter.osc import defrag as osc_defrag
from flavor_exporter.osc import flavor as osc_flavor
from flavor_exporter.osc import gpu as osc_gpu
from flavor_exporter.osc import plugin
from flavor_exporter.osc import whatif as osc_whatif
from flavor_exporter.publication import publisher
from flavor_exporter.tests import sample_cloud as sample
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
        self.assertEqual({'capacity_check': osc_check.CheckSet,
                          'capacity_cloud_list': osc_cloud.ListCloud,
                          'capacity_defrag': osc_defrag.Defrag,
                          'capacity_flavor_list': osc_flavor.ListFlavor,
                          'capacity_flavor_show': osc_flavor.ShowFlavor,
                          'capacity_gpu_list': osc_gpu.ListGpu,
                          'capacity_gpu_show': osc_gpu.ShowGpu,
                          'capacity_whatif': osc_whatif.Whatif},
                         commands)


class CommandTestCase(base.ApiTestCase):
    """The API app served on loopback, and openstackclient to call it."""

    def serve(self, application=None):
        """Serve application (by default the API) on self.endpoint."""
        server = simple_server.make_server(
            '127.0.0.1', 0,
            application or app.setup_app(self.conf, self.backend),
            handler_class=QuietHandler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.endpoint = 'http://127.0.0.1:%d' % server.server_port

    def openstack(self, *args, status=0, auth=None, environ=None):
        """Run openstackclient's shell in this process, as its entry point.

        In process rather than as a command: a unit test must not wait on
        a Python start per call (the functional test_osc_keystone runs the
        installed command). auth: the global options that say where the
        API is, by default no authentication and the served endpoint;
        environ: OS_* variables to set, all others unset.
        """
        self.useFixture(fixtures.EnvironmentVariable('OS_CLOUD'))
        for name in [n for n in os.environ if n.startswith('OS_')]:
            self.useFixture(fixtures.EnvironmentVariable(name))
        for name, value in (environ or {}).items():
            self.useFixture(fixtures.EnvironmentVariable(name, value))
        if auth is None:
            auth = ['--os-auth-type', 'none', '--os-endpoint', self.endpoint]
        # openstackclient keeps each plugin's client on its ClientManager
        # class, for the life of the process: one per run here.
        cached = vars(clientmanager.ClientManager)[plugin.API_NAME]
        self.addCleanup(setattr, cached, '_handle', cached._handle)
        cached._handle = None
        stdout = io.StringIO()
        stderr = io.StringIO()
        with mock.patch('sys.stdout', stdout), \
                mock.patch('sys.stderr', stderr):
            returned = shell.main(list(auth) + list(args))
        done = subprocess.CompletedProcess(args, returned,
                                           stdout.getvalue(),
                                           stderr.getvalue())
        if status is not None:
            self.assertEqual(status, done.returncode, done.stderr)
        return done


class TestCommands(CommandTestCase):

    def setUp(self):
        super().setUp()
        self.publish()
        self.serve()

    def test_list_json_is_what_the_api_serves(self):
        served = self.app.get('/v3/flavors/').json['flavors']
        listed = json.loads(self.openstack('capacity', 'flavor', 'list',
                                           '-f', 'json').stdout)
        # GPU flavors first, as flavor-exporter-report lists them.
        self.assertEqual(['gpu.a100', 'GPU.V100-small'],
                         [f['Name'] for f in listed[:2]])
        self.assertEqual(
            [(f['id'], f['name'], f['total'], f['available'],
              f['fragmented'], f['limited_by'])
             for f in osc_flavor.gpu_first(served)],
            [(f['ID'], f['Name'], f['Total'], f['Available'],
              f['Fragmented'], f['Limited By']) for f in listed])
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

    def test_project_list(self):
        listed = json.loads(self.openstack(
            'capacity', 'flavor', 'list', '--project', 'p1', '-f',
            'json').stdout)
        large = {f['Name']: f for f in listed}['m1.large']
        self.assertEqual(['ID', 'Name', 'GPU', 'Startable', 'Available',
                          'Quota Headroom'], list(large))
        self.assertEqual((2, 7, 2), (large['Startable'], large['Available'],
                                     large['Quota Headroom']))
        listed = json.loads(self.openstack(
            'capacity', 'flavor', 'list', '--project', 'p1', '--long', '-f',
            'json').stdout)
        large = {f['Name']: f for f in listed}['m1.large']
        self.assertEqual(('cores', 'quota', 'az1 2/3, az2 2/4'),
                         (large['Quota Limited By'], large['Limited By'],
                          large['Zones (Startable/Available)']))

    def test_unlimited_quota(self):
        # No quota limit (null in the API): "unlimited" in both columns,
        # as the report says, never None.
        quota = {'headroom': None, 'limited_by': None}
        self.assertEqual(('unlimited', 'unlimited'),
                         (phrases.headroom(quota),
                          phrases.quota_limited_by(quota)))

    def test_table_csv_and_yaml(self):
        table = self.openstack('capacity', 'flavor', 'list').stdout
        self.assertIn('| ID ', table)
        self.assertIn('| gpu.a100 ', table)
        csv = self.openstack('capacity', 'flavor', 'list', '-f',
                             'csv').stdout.splitlines()
        self.assertEqual('"ID","Name","GPU","Total","Available",'
                         '"Fragmented","Limited By"', csv[0])
        shown = self.openstack('capacity', 'flavor', 'show', 'gpu.a100',
                               '-f', 'yaml').stdout
        self.assertIn("availability_zones: az1 2/4, az2 0/0 "
                      "(available/total)", shown)

    def test_show_by_name_and_id(self):
        for key in ('gpu.a100', 'g1'):
            shown = json.loads(self.openstack(
                'capacity', 'flavor', 'show', key, '-f', 'json').stdout)
            self.assertEqual(
                {'id': 'g1', 'name': 'gpu.a100', 'gpu': 'a100 x1',
                 'total': 4, 'available': 2, 'hosts': 1, 'stale': False,
                 'ram': '16384 MiB', 'disk': '40 GiB'},
                {k: shown[k] for k in ('id', 'name', 'gpu', 'total',
                                       'available', 'hosts', 'stale',
                                       'ram', 'disk')})

    def test_errors_are_the_apis_messages(self):
        done = self.openstack('capacity', 'flavor', 'show', 'nope',
                              status=1)
        # With the id to quote to the operator, as every OpenStack
        # client prints it.
        self.assertRegex(done.stderr.strip(), r'^No flavor has the id or '
                         r'name "nope". \(HTTP 404\) \(Request-ID: '
                         r'req-[0-9a-f-]{36}\)$')
        self.assertEqual('', done.stdout)
        done = self.openstack('capacity', 'flavor', 'list',
                              '--availability-zone', 'az9', status=1)
        self.assertIn('Unknown availability zone "az9"', done.stderr)

    def test_gpu_list_and_show(self):
        served = self.app.get('/v3/gpus/').json['gpus']
        listed = json.loads(self.openstack('capacity', 'gpu', 'list', '-f',
                                           'json').stdout)
        self.assertEqual(
            sorted((g['type'], g['total'], g['used'], g['free'],
                    g['stranded'], g['fragmented']) for g in served),
            [(g['Type'], g['Total'], g['Used'], g['Free'], g['Stranded'],
              g['Fragmented']) for g in listed])
        first = served[0]
        shown = json.loads(self.openstack('capacity', 'gpu', 'show',
                                          first['type'], '-f',
                                          'json').stdout)
        self.assertEqual((first['type'], first['total'], first['free']),
                         (shown['type'], shown['total'], shown['free']))
        self.assertEqual(osc_gpu.zones_text(first['availability_zones']) +
                         ' (free/total)', shown['availability_zones'])
        done = self.openstack('capacity', 'gpu', 'show', 'nope', status=1)
        self.assertIn('No GPU type is named "nope"', done.stderr)


class TestCheck(CommandTestCase):

    def setUp(self):
        super().setUp()
        self.flags(group='checks', wait=5)
        self.publish()
        self.answer_checks()
        self.serve()

    def test_servers_in_launch_order(self):
        # Exit status 1: the set does not start whole.
        done = self.openstack('capacity', 'check', '--server', 'gpu.a100:3',
                              '--server', 'm1.large:2:2', '-f', 'json',
                              '--long', status=1)
        rows = json.loads(done.stdout)
        self.assertEqual(
            [(1, 'gpu.a100', 'successive', 3, 2, False, 'cmp000, cmp000'),
             (2, 'm1.large', 'multi-create', 2, 'not tried', False, '')],
            [(r['#'], r['Flavor'], r['Request'], r['Count'], r['Started'],
              r['Fits'], r['Hosts']) for r in rows])
        self.assertIn('resources: no valid host', rows[0]['Stopped By'])
        self.assertIn('does not start whole: 2 of 5 servers', done.stderr)

    def test_fits_in_every_format(self):
        args = ('capacity', 'check', '--server', 'm1.large:1')
        for fmt, fits in (('json', '"Fits": true'), ('yaml', 'Fits: true'),
                          ('value', 'True'), ('csv', 'True'),
                          ('table', 'True')):
            done = self.openstack(*args, '-f', fmt)
            self.assertIn(fits, done.stdout, fmt)
            self.assertIn('the set starts: 1 server\n', done.stderr)
        done = self.openstack('capacity', 'check', '--server', 'gpu.a100:3',
                              '-f', 'value', '-c', 'Fits', status=1)
        self.assertEqual('False\n', done.stdout)

    def test_tables_within_120_columns(self):
        for args in (('check', '--server', 'gpu.a100:3', '--server',
                      'm1.large:2:2'),
                     ('flavor', 'list', '--project', 'p1'),
                     ('flavor', 'list'), ('gpu', 'list')):
            done = self.openstack('capacity', *args, status=None)
            lines = done.stdout.splitlines()
            self.assertTrue(lines, args)
            self.assertLessEqual(max(map(len, lines)), 120,
                                 (args, done.stdout))

    def test_the_file_of_the_report(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'set.json')
        with open(path, 'w') as f:
            json.dump([{'flavor': 'm1.large', 'count': 2}], f)
        done = self.openstack('capacity', 'check', '--file', path,
                              '--group-policy', 'anti-affinity', '-f',
                              'json', '--long')
        rows = json.loads(done.stdout)
        # One per host, the emptier first (cmp002 is disabled).
        self.assertEqual(['cmp001, cmp000'], [r['Hosts'] for r in rows])
        self.assertIn('the set starts: 2 servers', done.stderr)
        self.assertEqual([True], [r['Fits'] for r in rows])

    def test_arguments_refused(self):
        done = self.openstack('capacity', 'check', status=1)
        self.assertIn('--server FLAVOR:COUNT', done.stderr)
        done = self.openstack('capacity', 'check', '--server', 'x:0',
                              status=1)
        self.assertIn('servers[0].count must be an integer of at least 1',
                      done.stderr)

    def test_server_entries(self):
        for text, entry in (
                ('m1:3', {'flavor': 'm1', 'count': 3}),
                ('m1:3:2', {'flavor': 'm1', 'count': 3, 'min_count': 2}),
                ('m1', {'flavor': 'm1', 'count': 1}),
                ('a:b:4', {'flavor': 'a:b', 'count': 4})):
            self.assertEqual(entry, osc_check.server_entry(text), text)


class TestEndpointTrouble(CommandTestCase):
    """Endpoints that are not the API: one line, never a hang."""

    def test_an_html_answer(self):
        def html(environ, start_response):
            start_response('200 OK', [('Content-Type', 'text/html')])
            return [b'<html><body>It works!</body></html>']
        self.serve(html)
        done = self.openstack('capacity', 'flavor', 'list', status=1)
        self.assertEqual(
            '%s/v3/flavors/ answered text/html, not JSON: is it the '
            'capacity service (flavor-exporter)? Check the catalog\'s '
            '"capacity" endpoint or --os-capacity-endpoint-override'
            % self.endpoint, done.stderr.strip())

    def test_an_endpoint_that_never_answers(self):
        silent = socket.socket()
        self.addCleanup(silent.close)
        silent.bind(('127.0.0.1', 0))
        silent.listen()
        self.endpoint = 'http://127.0.0.1:%d' % silent.getsockname()[1]
        self.useFixture(fixtures.MonkeyPatch(
            'flavor_exporter.osc.client.TIMEOUT', 0.5))
        done = self.openstack('capacity', 'flavor', 'list', status=1)
        self.assertIn('timed out', done.stderr)
        self.assertEqual(1, len(done.stderr.strip().splitlines()))


class TestEndpointOverride(CommandTestCase):
    """Where the API is when the auth's own endpoint is another service's.

    An admin_token cloud has one endpoint for every service (a test cloud's
    is its Nova): only an override leads to the capacity API. Here that
    endpoint refuses connections, so a command that did not take the
    override fails.
    """

    NOVA = 'http://127.0.0.1:9/v2.1'

    def setUp(self):
        super().setUp()
        self.publish()
        self.serve()

    def names(self, auth, environ=None):
        return sorted(f['Name'] for f in json.loads(self.openstack(
            'capacity', 'flavor', 'list', '-f', 'json', auth=auth,
            environ=environ).stdout))

    def admin_token(self, *more):
        return ['--os-auth-type', 'admin_token', '--os-token', 'secret',
                '--os-endpoint', self.NOVA] + list(more)

    def test_without_override_the_auth_endpoint_is_used(self):
        done = self.openstack('capacity', 'flavor', 'list',
                              auth=self.admin_token(), status=1)
        self.assertIn('127.0.0.1:9', done.stderr)

    def test_option(self):
        self.assertEqual(
            sorted(f.name for f in sample.flavors()),
            self.names(self.admin_token('--os-capacity-endpoint-override',
                                        self.endpoint)))

    def test_environment(self):
        self.assertEqual(
            sorted(f.name for f in sample.flavors()),
            self.names(self.admin_token(), environ={
                'OS_CAPACITY_ENDPOINT_OVERRIDE': self.endpoint}))

    def test_clouds_yaml(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'clouds.yaml')
        with open(path, 'w') as f:
            yaml.safe_dump({'clouds': {'demo': {
                'auth_type': 'admin_token',
                'auth': {'endpoint': self.NOVA, 'token': 'secret'},
                'capacity_endpoint_override': self.endpoint}}}, f)
        self.assertEqual(
            sorted(f.name for f in sample.flavors()),
            self.names(['--os-cloud', 'demo'],
                       environ={'OS_CLIENT_CONFIG_FILE': path}))

    def test_token_and_endpoint(self):
        # openstackclient's own way: --os-token with --os-endpoint is the
        # admin_token auth type, whose endpoint serves every service.
        self.assertEqual(
            sorted(f.name for f in sample.flavors()),
            self.names(['--os-token', 'secret', '--os-endpoint',
                        self.endpoint]))


class TestSeveralClouds(CommandTestCase):
    """A service of three clouds: west (the default), east and north.

    west has the sample cloud; east two of its flavors, an hour old;
    north nothing yet.
    """

    def setUp(self):
        super().setUp()
        self.flags(clouds=['east', 'west', 'north'], default_cloud='west')
        clouds.register_opts(self.conf)
        # Every cloud's store on the test's cache, as one memcached.
        self.useFixture(fixtures.MockPatch(
            'flavor_exporter.publication.cache.backend_from_conf',
            return_value=self.backend))
        # The default cloud's publisher: west's.
        self.store = publisher.Publisher.from_conf(self.conf,
                                                   backend=self.backend)
        self.publish()
        east = next(cloud for cloud in clouds.configured(self.conf)
                    if cloud.name == 'east')
        self.east_age = 3600
        self.assertGreater(self.east_age, app.stale_after(self.conf))
        sample.publish(
            publisher.Publisher.from_conf(self.conf, east),
            sample.flavors()[:2],
            datetime.datetime.now(datetime.timezone.utc)
            - datetime.timedelta(seconds=self.east_age))
        self.serve()

    def listed_ids(self, *args, **kwargs):
        return sorted(f['ID'] for f in json.loads(self.openstack(
            'capacity', 'flavor', 'list', '-f', 'json', *args,
            **kwargs).stdout))

    def test_cloud_list(self):
        listed = json.loads(self.openstack('capacity', 'cloud', 'list',
                                           '-f', 'json').stdout)
        self.assertEqual(
            [{'Name': 'east', 'Default': False, 'Stale': True},
             {'Name': 'west', 'Default': True, 'Stale': False},
             {'Name': 'north', 'Default': False, 'Stale': True,
              'Age Seconds': None}],
            [{k: v for k, v in cloud.items()
              if k != 'Age Seconds' or v is None} for cloud in listed])
        ages = {cloud['Name']: cloud['Age Seconds'] for cloud in listed}
        self.assertGreaterEqual(ages['east'], self.east_age)
        self.assertLess(ages['west'], self.east_age)
        table = self.openstack('capacity', 'cloud', 'list').stdout
        self.assertIn('| Name  | Default | Age Seconds | Stale |', table)

    def test_flavor_list_of_a_cloud(self):
        self.assertEqual(['1', 'g1'], self.listed_ids('--cloud', 'east'))
        # Without --cloud: the default cloud, west.
        everything = sorted(f.id for f in sample.flavors())
        self.assertEqual(everything, self.listed_ids())
        self.assertEqual(everything, self.listed_ids('--cloud', 'west'))
        # Filters apply within the cloud.
        self.assertEqual(['g1'], self.listed_ids('--cloud', 'east',
                                                 '--gpu'))

    def test_flavor_show_of_a_cloud(self):
        shown = json.loads(self.openstack(
            'capacity', 'flavor', 'show', '--cloud', 'east', 'gpu.a100',
            '-f', 'json').stdout)
        self.assertEqual(('g1', True), (shown['id'], shown['stale']))
        shown = json.loads(self.openstack(
            'capacity', 'flavor', 'show', 'GPU.V100-small', '-f',
            'json').stdout)
        self.assertEqual(('g2', False), (shown['id'], shown['stale']))
        done = self.openstack('capacity', 'flavor', 'show', '--cloud',
                              'east', 'GPU.V100-small', status=1)
        self.assertTrue(done.stderr.startswith(
            'No flavor has the id or name "GPU.V100-small". (HTTP 404) '
            '(Request-ID: req-'), done.stderr)

    def test_unknown_cloud(self):
        for command in (('list',), ('show', 'g1')):
            done = self.openstack('capacity', 'flavor', *command,
                                  '--cloud', 'south', status=1)
            self.assertTrue(done.stderr.startswith(
                'No cloud is named "south"; GET /v3/clouds/ lists them. '
                '(HTTP 404) (Request-ID: req-'), done.stderr)
            self.assertEqual('', done.stdout)

    def test_cloud_beside_os_cloud(self):
        """--cloud is the command's; --os-cloud still openstackclient's."""
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'clouds.yaml')
        with open(path, 'w') as f:
            yaml.safe_dump({'clouds': {'capacity-test': {
                'auth_type': 'none',
                'auth': {'endpoint': self.endpoint}}}}, f)
        self.assertEqual(['1', 'g1'], self.listed_ids(
            '--cloud', 'east',
            auth=['--os-cloud', 'capacity-test'],
            environ={'OS_CLIENT_CONFIG_FILE': path}))


class TestWhatif(CommandTestCase):

    def setUp(self):
        super().setUp()
        self.flags(group='checks', wait=5)
        self.publish()
        self.answer_whatifs()
        self.serve()

    def test_drain_as_the_api_answers(self):
        done = self.openstack('capacity', 'whatif', '--drain', 'cmp001',
                              '-f', 'json')
        rows = {row['Flavor']: row for row in json.loads(done.stdout)}
        # GPU flavors first.
        self.assertEqual(['gpu.a100', 'GPU.V100-small'],
                         list(rows)[:2])
        # m1.large: 3 free in az1, 4 on cmp001 (az2), which is drained.
        large = rows['m1.large']
        self.assertEqual((7, 3, '-4', 8, 4),
                         (int(large['Available']), int(large['After']),
                          large['Change'], int(large['Total']),
                          int(large['Total After'])))
        self.assertIn('hosts: drained 1', done.stderr)
        answer = self.app.post_json('/v3/whatif', {'drain': [
            {'hosts': ['cmp001']}]}).json['whatif']
        self.assertEqual(
            {item['name']: item['after']['available']
             for item in answer['results']['flavors']},
            {name: int(row['After']) for name, row in rows.items()})

    def test_changed_only_and_file(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'changes.json')
        with open(path, 'w') as stream:
            json.dump({'add': [{'like': 'cmp001', 'count': 2}]}, stream)
        done = self.openstack('capacity', 'whatif', '--file', path,
                              '--changed-only', '-f', 'json')
        names = [row['Flavor'] for row in json.loads(done.stdout)]
        # Two hosts like cmp001 (no a100): gpu.a100 does not change.
        self.assertNotIn('gpu.a100', names)
        self.assertIn('GPU.V100-small', names)

    def test_refusals(self):
        done = self.openstack('capacity', 'whatif', status=1)
        self.assertIn('Give the changes', done.stderr)
        done = self.openstack('capacity', 'whatif', '--drain', 'nope',
                              status=1)
        self.assertIn('no compute host nope', done.stderr)


class TestDefrag(CommandTestCase):

    def setUp(self):
        super().setUp()
        self.flags(group='checks', wait=5)
        self.publish()
        self.answer_defrags()
        self.serve()

    def test_no_plan_exits_1_and_says_why(self):
        # Nothing of gpu.a100 is fragmented: no server is read.
        done = self.openstack('capacity', 'defrag', 'gpu.a100', '--count',
                              '2', '-f', 'json', status=1)
        self.assertEqual([], json.loads(done.stdout))
        self.assertIn('No plan frees 2 more gpu.a100: the free resources '
                      'pooled per availability zone hold 0 more',
                      done.stderr)
        # frag20 is fragmented (3 pooled in az1, 2 fit): the worker reads
        # the servers, and this Nova refuses: the API's 502.
        done = self.openstack('capacity', 'defrag', 'frag20', status=1)
        self.assertIn('The defrag plan could not be computed', done.stderr)

    def test_summary_of_a_plan(self):
        answer = {'flavor': {'name': 'big'}, 'found': True, 'count': 1,
                  'moves': [{}], 'gained': 1, 'available': 0,
                  'fragmented': 1, 'proven_minimal': True,
                  'lower_bound': 1, 'search': {'cut': []},
                  'never_moved': {'locked': 2}}
        self.assertEqual(
            ['1 live migration(s) let 1 more big start (0 available now, '
             '1 fragmented)', 'Proven minimal: every plan needs at least 1',
             'Never moved: 2 (locked)'], osc_defrag.summary(answer))
