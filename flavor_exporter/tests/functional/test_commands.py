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

"""The console scripts end to end, as an operator runs them.

A real Nova + Placement (the predecessor's example cloud), a real
memcached, the worker publishing and flavor-exporter-api serving.
"""

import json
import os
import subprocess
import sys
import textwrap
import time

import fixtures

from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests.functional import test_api_uwsgi
from testcloud import loopback
from testcloud import scenario as scenario_mod

SCENARIO = 'predecessor'


class CommandsTestCase(base.TestCase):

    #: The cloud's scenario; shared: the process's cloud of it.
    scenario = SCENARIO
    shared = True

    def setUp(self):
        super().setUp()
        self.cloud = self.make_cloud()
        self.spec = scenario_mod.load(self.scenario)
        self.memcached = self.useFixture(loopback.MemcachedFixture())
        self.port = loopback.free_port()
        self.workdir = self.useFixture(fixtures.TempDir()).path
        self.flags(group='document_cache',
                   memcache_servers=self.memcached.servers)
        self.store = publisher.Publisher.from_conf(self.conf)
        self.addCleanup(self.store.close)

    def make_cloud(self):
        """The test cloud of self.scenario (the process's, when shared)."""
        return self.useFixture(fe_fixtures.Cloud(
            self.scenario, shared=self.shared)).cloud

    def write_config(self, cloud_name=None, backend='memcached', **extra):
        connection = '[openstack]\ncloud = %s\napi_timeout = 5\n' % (
            cloud_name or self.cloud.cloud_name)
        return self.write_config_file(
            'flavor-exporter.conf', connection, self.spec.pci_aliases,
            backend=backend, memcached=self.memcached.servers[:1],
            lines=extra.get('lines', ()))

    def write_config_file(self, name, connection, aliases,
                          backend='memcached', memcached=None, lines=()):
        """Write workdir/name; its path.

        The API, worker and cache sections, then connection (the cloud's
        sections), aliases ([pci] alias) and lines.
        """
        path = os.path.join(self.workdir, name)
        # noauth: the commands serve on loopback, for the tests only.
        text = textwrap.dedent('''
            [DEFAULT]
            auth_strategy = noauth
            [api]
            port = %(port)d
            workers = 2
            [worker]
            refresh_interval = 600
            [document_cache]
            backend = %(backend)s
            memcache_servers = %(memcached)s
            ''') % {'port': self.port, 'backend': backend,
                    'memcached': ','.join(memcached or
                                          self.memcached.servers)}
        with open(path, 'w') as conf:
            conf.write(text + connection + '[pci]\n')
            for alias in aliases:
                conf.write('alias = %s\n' % json.dumps(alias))
            for line in lines:
                conf.write(line + '\n')
        return path

    def env(self):
        return dict(os.environ, **self.cloud.env())

    def run_command(self, name, *args, timeout=180):
        return subprocess.run(
            fe_fixtures.console_script(name) + list(args), env=self.env(),
            timeout=timeout,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def start(self, name, config, command=None):
        """Console script command (by default name), its log called name."""
        log = open(os.path.join(self.workdir, name + '.log'), 'w')
        self.addCleanup(log.close)
        process = subprocess.Popen(
            fe_fixtures.console_script(command or name) +
            ['--config-file', config], env=self.env(),
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.addCleanup(fe_fixtures.stop_process_group, process)
        return process

    def wait_until(self, condition, what, timeout=120):
        """Poll condition until true, and return what it returned.

        Fails saying what when it stays false for timeout seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            result = condition()
            if result:
                return result
            self.assertLess(time.monotonic(), deadline, what)
            time.sleep(0.2)

    def log_of(self, name):
        with open(os.path.join(self.workdir, name + '.log')) as log:
            return log.read()

    def report(self, config, *args):
        done = self.run_command('flavor-exporter-report', '--config-file',
                                config, '--format', 'json', *args)
        self.assertEqual(0, done.returncode, done.stderr)
        return json.loads(done.stdout)

    def wait_for(self, path, timeout=60):
        answer = test_api_uwsgi.fetch_ok(self.port, path, timeout=timeout)
        self.assertEqual(200, answer[0], answer)
        return json.loads(answer[2])


class TestWorkerAndApi(CommandsTestCase):

    def test_run_once_then_api_serves_what_report_computes(self):
        config = self.write_config()
        expected = self.report(config)
        done = self.run_command('flavor-exporter-worker', '--config-file',
                                config, '--run-once')
        self.assertEqual(0, done.returncode, done.stderr)
        self.start('flavor-exporter-api', config)
        loopback.wait_for_port(self.port, timeout=60)

        served = self.wait_for('/v3/flavors/')
        numbers = {f['name']: (f['total'], f['available'])
                   for f in served['flavors']}
        self.assertEqual({f['name']: (f['total'], f['available'])
                          for f in expected['flavors']}, numbers)
        legacy = self.wait_for('/gpus/flavors/')
        self.assertEqual(
            sorted((f['id'], f['name'], f['available'], f['total'])
                   for f in expected['flavors'] if f['gpu']),
            sorted((f['flavor_openstack_id'], f['flavor_name'],
                    f['available'], f['total'])
                   for f in legacy['flavors']))
        self.assertEqual({'flavors', 'timestamp'}, set(legacy))
        # The oracle tests prove these numbers are Nova's; here they must
        # also be what the predecessor's portals read.
        medium = [f for f in legacy['flavors']
                  if f['flavor_name'] == 'de.NBI GPU V100 medium'][0]
        self.assertEqual((4, 3), (medium['total'], medium['available']))

    def test_gpu_types_from_the_worker_to_the_api(self):
        config = self.write_config()
        expected = self.report(config, '--gpus')
        done = self.run_command('flavor-exporter-worker', '--config-file',
                                config, '--run-once')
        self.assertEqual(0, done.returncode, done.stderr)
        self.start('flavor-exporter-api', config)
        loopback.wait_for_port(self.port, timeout=60)
        served = self.wait_for('/v3/gpus/')
        self.assertEqual(expected['gpus'], served['gpus'])
        # gpu1 and gpu2 of the GPU V100 aggregate, 2 each; the medium
        # server holds one.
        self.assertEqual([{'type': 'V100', 'used_slots': 1, 'free_slots': 3,
                           'total_slots': 4}], self.wait_for('/gpus'))
        rows = self.wait_for('/v3/gpus/V100')['gpu']['hosts']
        self.assertEqual({'gpu1': (2, 1), 'gpu2': (2, 0)},
                         {row['host']: (row['total'], row['used'])
                          for row in rows})
        table = self.run_command('flavor-exporter-report', '--config-file',
                                 config, '--gpus')
        self.assertEqual(0, table.returncode, table.stderr)
        self.assertTrue(table.stdout.startswith('type '), table.stdout)
        self.assertIn('\nV100 ', table.stdout)

    def test_worker_service_refills_a_restarted_memcached(self):
        config = self.write_config()
        self.start('flavor-exporter-worker', config)
        self.start('flavor-exporter-api', config)
        loopback.wait_for_port(self.port, timeout=60)
        before = self.wait_for('/v3/flavors/', timeout=120)

        self.memcached.restart()
        self.assertIsNone(self.store.reader.current())
        # The worker notices the empty cache within its 10 s check and
        # publishes its last good generation again, original time kept.
        deadline = time.monotonic() + 60
        while self.store.reader.current() is None:
            self.assertLess(time.monotonic(), deadline,
                            self.log_of('flavor-exporter-worker'))
            time.sleep(0.5)
        after = self.wait_for('/v3/flavors/')
        self.assertEqual(before['timestamp'], after['timestamp'])
        self.assertEqual(before['flavors'], after['flavors'])
        self.assertIn('published the last good generation again',
                      self.log_of('flavor-exporter-worker'))

    def test_a_cold_api_asks_the_worker_and_waits(self):
        config = self.write_config(lines=[
            '[worker]', 'initial_delay = 3600',
            '[api]', 'compute_on_miss = true'])
        expected = self.report(config)
        self.start('flavor-exporter-worker', config)
        self.start('flavor-exporter-api', config)
        loopback.wait_for_port(self.port, timeout=60)
        # An hour before the worker would refresh on its own.
        served = self.wait_for('/v3/flavors/', timeout=120)
        self.assertEqual(
            {f['name']: (f['total'], f['available'])
             for f in expected['flavors']},
            {f['name']: (f['total'], f['available'])
             for f in served['flavors']})
        log = self.log_of('flavor-exporter-worker')
        self.assertIn('An API process found no data; refreshing now', log)
        self.assertEqual(1, log.count('Published capacity of'), log)

    def test_run_once_fails_clearly_and_publishes_nothing(self):
        config = self.write_config(cloud_name='no-such-cloud')
        done = self.run_command('flavor-exporter-worker', '--config-file',
                                config, '--run-once')
        self.assertEqual(1, done.returncode)
        self.assertIn('the refresh failed', done.stderr)
        self.assertIn('no-such-cloud', done.stderr)
        self.assertIsNone(self.store.reader.current())
        self.assertIn('no-such-cloud',
                      self.store.reader.status()['last_error']['message'])
        # Said once, as the command's one line on stderr: not as an ERROR
        # log line (oslo.log writes to stdout here) too, nor a traceback.
        self.assertEqual(1, len(done.stderr.splitlines()), done.stderr)
        self.assertNotIn(' ERROR ', done.stdout)
        self.assertNotIn('Traceback', done.stdout + done.stderr)

    def test_misspelled_option_stops_the_worker(self):
        config = self.write_config(lines=['[worker]',
                                          'refresh_intervall = 60'])
        done = self.run_command('flavor-exporter-worker', '--config-file',
                                config, '--run-once')
        self.assertEqual(2, done.returncode, done.stderr)
        self.assertEqual(
            ['flavor-exporter-worker: %s: [worker] has no option '
             '"refresh_intervall"; did you mean "refresh_interval"?'
             % config], done.stderr.splitlines())
        self.assertIsNone(self.store.reader.status())

    def test_bad_alias_stops_the_worker_before_it_starts(self):
        config = self.write_config(
            lines=['alias = {"name": "T4", "vendor_id": "10de"}'])
        done = self.run_command('flavor-exporter-worker', '--config-file',
                                config, '--run-once')
        self.assertEqual(2, done.returncode, done.stderr)
        self.assertEqual(
            ["flavor-exporter-worker: [pci] alias 'T4' needs vendor_id and "
             "product_id, or resource_class"], done.stderr.splitlines())
        # It stopped before its first refresh: not even a failure recorded.
        self.assertIsNone(self.store.reader.current())
        self.assertIsNone(self.store.reader.status())


class TestReadsNeverGoBack(CommandsTestCase):

    def test_polling_client_over_two_api_processes(self):
        # A new connection per request, as a portal's poller behind a
        # load balancer makes: the two processes answer in turn.
        config = self.write_config(lines=[
            '[worker]', 'refresh_interval = 10'])
        self.start('flavor-exporter-worker', config)
        self.start('flavor-exporter-api', config)
        loopback.wait_for_port(self.port, timeout=60)
        self.wait_for('/gpus/flavors', timeout=120)
        # The sequence of the generation each answer came from.
        seen = []
        deadline = time.monotonic() + 22
        while time.monotonic() < deadline or len(set(seen)) < 3:
            self.assertLess(time.monotonic(), deadline + 60,
                            'fewer than three refreshes: %s' % sorted(
                                set(seen)))
            status, _, body = test_api_uwsgi.fetch(self.port, '/v3/status')
            self.assertEqual(200, status, body)
            seen.append(json.loads(body)['current']['sequence'])
        went_back = [(a, b) for a, b in zip(seen, seen[1:]) if b < a]
        self.assertEqual([], went_back, '%d answers' % len(seen))


class TestOtherCommands(CommandsTestCase):

    def test_report_table_and_gpu_filter(self):
        config = self.write_config()
        done = self.run_command('flavor-exporter-report', '--config-file',
                                config)
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertIn('de.NBI GPU V100 medium', done.stdout)
        self.assertIn('source: placement', done.stdout)
        # stderr is no terminal here: no progress line by default.
        self.assertNotIn('reading the cloud', done.stderr)
        table = done.stdout.splitlines()
        self.assertTrue(table[0].startswith('name '), table[0])
        # GPU flavors first.
        rows = table[2:table.index('zone cells: available/total')]
        start, end = table[0].index('gpu'), table[0].index('available')
        gpu = [row[start:end].strip() != '-' for row in rows]
        self.assertEqual(sorted(gpu, reverse=True), gpu)
        forced = self.run_command('flavor-exporter-report', '--config-file',
                                  config, '--progress')
        self.assertEqual(0, forced.returncode, forced.stderr)
        self.assertIn('reading the cloud: ', forced.stderr)
        self.assertNotIn('reading the cloud', forced.stdout)
        # What the report prints itself is not logged on stderr too.
        self.assertNotIn(' INFO ', done.stderr + forced.stderr)
        self.assertNotIn(' WARNING ', done.stderr + forced.stderr)
        gpu_only = self.report(config, '--gpu')
        self.assertTrue(gpu_only['flavors'])
        self.assertTrue(all(f['gpu'] for f in gpu_only['flavors']))

    def test_report_of_a_named_cloud(self):
        # Two clouds: the test cloud, and one whose clouds.yaml entry does
        # not exist, the default.
        config = self.write_config(lines=[
            '[DEFAULT]', 'clouds = real, missing', 'default_cloud = missing',
            '[cloud:real]', 'cloud = %s' % self.cloud.cloud_name,
            'api_timeout = 5',
            '[cloud:missing]', 'cloud = no-such-entry'])
        done = self.run_command('flavor-exporter-report', '--config-file',
                                config, '--cloud', 'real')
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertIn('de.NBI GPU V100 medium', done.stdout)
        self.assertTrue(done.stdout.splitlines()[-1].startswith(
            'cloud real, source: placement, '), done.stdout)
        # Without --cloud: the default cloud, through its own group.
        done = self.run_command('flavor-exporter-report', '--config-file',
                                config)
        self.assertEqual(1, done.returncode, done.stdout)
        lines = done.stderr.splitlines()
        self.assertEqual(1, len(lines), lines)
        self.assertTrue(lines[0].startswith(
            'flavor-exporter-report: Cloud missing: '), lines[0])
        self.assertIn('no-such-entry', lines[0])
        self.assertEqual('', done.stdout)

    def test_all_in_one_process_with_memory_backend(self):
        config = self.write_config(backend='memory')
        self.start('flavor-exporter-all', config)
        loopback.wait_for_port(self.port, timeout=60)
        legacy = self.wait_for('/gpus/flavors', timeout=120)
        names = {f['flavor_name'] for f in legacy['flavors']}
        self.assertIn('de.NBI 2 GPU V100 large', names)
        # Nothing went to memcached: the process kept it to itself.
        self.assertIsNone(self.store.reader.current())


class TestHelpAlone(base.TestCase):
    """What a new user sees first, from the installed console scripts."""

    def test_help_has_no_banner(self):
        for name in ('flavor-exporter-api', 'flavor-exporter-worker',
                     'flavor-exporter-all', 'flavor-exporter-report'):
            done = subprocess.run(
                fe_fixtures.console_script(name) + ['--help'],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                timeout=180)
            self.assertEqual(0, done.returncode, done.stderr)
            # Nothing but the help: no eventlet deprecation banner.
            self.assertEqual('', done.stderr, name)
            self.assertTrue(done.stdout.startswith(
                'usage: %s [options]\n\n' % name), done.stdout[:200])

    def test_wsgi_module_imports_quietly(self):
        # What uWSGI or mod_wsgi load, with the worker's modules that
        # compute_on_miss uses, and every warning shown.
        done = subprocess.run(
            [sys.executable, '-W', 'always', '-c',
             'import flavor_exporter.wsgi.api, '
             'flavor_exporter.worker.refresh'],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=180)
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertNotIn('Eventlet is deprecated', done.stderr)
