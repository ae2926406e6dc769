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
"""One deployment serving two real test clouds ([DEFAULT] clouds).

east is the predecessor's example cloud, west a mixed_gpu cloud whose
Placement is reached through testcloud.faultproxy. As an operator sets it
up: one clouds.yaml with an entry per cloud, named as the clouds are, and
one [pci] alias list for all of them.
"""

import json
import os
import re

import testtools.content
import yaml

from flavor_exporter.common import clouds as clouds_mod
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests.functional import test_api_uwsgi
from flavor_exporter.tests.functional import test_commands
from testcloud import faultproxy
from testcloud import loopback
from testcloud import scenario as scenario_mod

EAST = 'east'  # test_commands.SCENARIO, the shared predecessor cloud
WEST = 'west'
WEST_SCENARIO = 'mixed_gpu'
CLOUDS = (EAST, WEST)
# What west's Placement answers with a 500 while it is "broken": every
# refresh reads both, so every refresh of west fails.
WEST_BROKEN_PATHS = ('/resource_providers', '/allocation_candidates')


def numbers(document):
    """{flavor name: (total, available)} of a /v3/flavors/ document."""
    return {f['name']: (f['total'], f['available'])
            for f in document['flavors']}


class SeveralCloudsTestCase(test_commands.CommandsTestCase):
    """east and west, one clouds.yaml, configurations for both or one."""

    def setUp(self):
        super().setUp()
        # west is only read, but launcher.shared_cloud keeps one cloud at
        # a time (east's): west is this test's own.
        self.west = self.useFixture(fe_fixtures.Cloud(WEST_SCENARIO)).cloud
        self.west_proxy = self.useFixture(
            faultproxy.FaultProxy(self.west.placement_url))
        self.clouds_yaml = os.path.join(self.workdir, 'clouds.yaml')
        entries = {EAST: self._entry(self.cloud),
                   WEST: self._entry(self.west)}
        entries[WEST]['placement_endpoint_override'] = self.west_proxy.url
        with open(self.clouds_yaml, 'w') as out:
            yaml.safe_dump({'clouds': entries}, out)
        self.aliases = self._alias_union(
            self.spec, scenario_mod.load(WEST_SCENARIO))
        self.open_stores()

    def open_stores(self):
        """self.stores: each cloud's, on [document_cache] as flagged now."""
        self.stores = {}
        for name in CLOUDS:
            self.stores[name] = publisher.Publisher.from_conf(
                self.conf, self._cloud(name))
            self.addCleanup(self.stores[name].close)

    @staticmethod
    def _entry(cloud):
        with open(cloud.clouds_yaml) as found:
            return yaml.safe_load(found)['clouds'][cloud.cloud_name]

    def _alias_union(self, *specs):
        """[pci] alias of all clouds: each name once, meaning one thing."""
        union = {}
        for spec in specs:
            for alias in spec.pci_aliases:
                self.assertEqual(alias, union.setdefault(alias['name'],
                                                         alias))
        return list(union.values())

    def _cloud(self, name):
        """The clouds.Cloud a worker of the several-clouds config uses."""
        self.flags(clouds=list(CLOUDS))
        clouds_mod.register_opts(self.conf)
        return next(c for c in clouds_mod.configured(self.conf)
                    if c.name == name)

    def env(self):
        env = dict(os.environ, OS_CLIENT_CONFIG_FILE=self.clouds_yaml)
        # Each cloud names its entry; nothing may fall back to OS_CLOUD.
        env.pop('OS_CLOUD', None)
        return env

    def write_config(self, clouds=CLOUDS, lines=()):
        """A configuration file serving clouds (one: [openstack] alone)."""
        if len(clouds) == 1:
            connection = '[openstack]\ncloud = %s\napi_timeout = 5\n' % (
                clouds[0])
        else:
            connection = '[DEFAULT]\nclouds = %s\n' % ','.join(clouds) + \
                ''.join('[cloud:%s]\napi_timeout = 5\n' % c for c in clouds)
        return self.write_config_file(
            'flavor-exporter-%s.conf' % '-'.join(clouds), connection,
            self.aliases, lines=lines)

    def fetch(self, path):
        return test_api_uwsgi.fetch(self.port, path)

    def pointer(self, name):
        try:
            return self.stores[name].reader.current()
        except publisher.CacheError:
            return None


class TestSeveralClouds(SeveralCloudsTestCase):

    def test_each_cloud_served_as_if_it_were_alone(self):
        # The oracle tests prove the report's numbers are Nova's.
        alone = {name: self.report(self.write_config(clouds=[name]))
                 for name in CLOUDS}
        expected = {name: numbers(alone[name]) for name in CLOUDS}
        self.assertNotEqual(expected[EAST], expected[WEST])
        config = self.write_config()
        # On the deployment's configuration: its default cloud.
        self.assertEqual(expected[EAST], numbers(self.report(config)))
        done = self.run_command('flavor-exporter-worker', '--config-file',
                                config, '--run-once')
        self.assertEqual(0, done.returncode, done.stderr)
        self.start('flavor-exporter-api', config)
        loopback.wait_for_port(self.port, timeout=60)

        listed = self.wait_for('/v3/clouds/')['clouds']
        self.assertEqual([(EAST, True, False), (WEST, False, False)],
                         [(c['name'], c['default'], c['stale'])
                          for c in listed])
        for name in CLOUDS:
            self.assertEqual(expected[name], numbers(
                self.wait_for('/v3/clouds/%s/flavors/' % name)))
        # The routes of one cloud serve the default one.
        self.assertEqual(expected[EAST],
                         numbers(self.wait_for('/v3/flavors/')))
        legacy = self.wait_for('/gpus/flavors/')
        self.assertEqual(
            sorted((f['id'], f['name'], f['available'], f['total'])
                   for f in alone[EAST]['flavors'] if f['gpu']),
            sorted((f['flavor_openstack_id'], f['flavor_name'],
                    f['available'], f['total'])
                   for f in legacy['flavors']))

        status, headers, body = self.fetch('/v3/clouds/nope/flavors/')
        self.assertEqual(404, status, body)
        self.assertIn('application/json', headers['Content-Type'])
        self.assertIn('No cloud is named "nope"',
                      json.loads(body)['error']['message'])

        status, _headers, body = self.fetch('/metrics')
        self.assertEqual(200, status, body)
        text = body.decode()
        labelled = set(re.findall(r'^\w+\{cloud="([^"]*)"', text, re.M))
        self.assertEqual(set(CLOUDS), labelled)
        types = re.findall(r'^# TYPE (\S+) ', text, re.M)
        self.assertEqual(sorted(set(types)), sorted(types))
        # A flavor only west has is counted under west only.
        west_only = [line for line in text.splitlines()
                     if 'GPU A100 large' in line]
        self.assertNotEqual([], west_only)
        self.assertEqual([], [line for line in west_only
                              if '{cloud="west",' not in line])

    def test_one_cloud_failing_leaves_the_other_fresh(self):
        stale_after = 25
        config = self.write_config(lines=[
            '[worker]', 'refresh_interval = 10',
            '[api]', 'stale_after = %d' % stale_after])
        self.start('flavor-exporter-worker', config)
        self.start('flavor-exporter-api', config)
        loopback.wait_for_port(self.port, timeout=60)
        self.addOnException(self.attach_worker_log)
        self.wait_until(lambda: all(self.pointer(n) for n in CLOUDS),
                        'the worker did not publish both clouds')
        good = self.pointer(WEST)

        for path in WEST_BROKEN_PATHS:
            self.west_proxy.break_path(path, status=500)
        # Each API process polls the status on its own: one answer is
        # looked at, not the next one, which may come from the other.
        failed = self.wait_until(
            lambda: self.status_if(
                WEST, lambda s: s['refresh']['consecutive_failures']),
            'no failed refresh of west', timeout=60)
        self.assertIn('answered 500',
                      failed['refresh']['last_error']['message'])
        self.assertEqual(good[pub.SEQUENCE],
                         failed['current'][pub.SEQUENCE])
        east_before = self.pointer(EAST)[pub.SEQUENCE]
        self.wait_until(lambda: self.status(WEST)['stale'],
                        'west did not go stale', timeout=stale_after + 60)
        # east goes on meanwhile, and is fresh.
        self.wait_until(
            lambda: self.pointer(EAST)[pub.SEQUENCE] > east_before,
            'east published nothing while west failed', timeout=60)
        east = self.status(EAST)
        self.assertFalse(east['stale'], east)
        self.assertLess(east['age_seconds'], stale_after)
        self.assertEqual(0, east['refresh']['consecutive_failures'])
        self.assertEqual({EAST: False, WEST: True}, {
            c['name']: c['stale']
            for c in self.wait_for('/v3/clouds/')['clouds']})
        status, _headers, body = self.fetch('/healthcheck')
        self.assertEqual(200, status, body)
        self.assertTrue(body.startswith(b'DEGRADED'), body)
        self.assertIn(b'cloud west', body)
        self.assertNotIn(b'cloud east', body)

        self.west_proxy.mend()
        # The worker writes the status just after the pointer.
        mended = self.wait_until(
            lambda: self.status_if(WEST, self.recovered),
            'west did not recover', timeout=60)
        self.assertGreater(mended['current'][pub.SEQUENCE],
                           good[pub.SEQUENCE])
        # Within [api] generation_check_interval in both API processes.
        self.wait_until(lambda: self.fetch('/healthcheck')[::2] ==
                        (200, b'OK'), 'the healthcheck is not OK again',
                        timeout=10)

    @staticmethod
    def recovered(status):
        return (not status['stale'] and
                status['refresh']['consecutive_failures'] == 0)

    def status(self, name):
        return self.wait_for('/v3/clouds/%s/status' % name)

    def status_if(self, name, condition):
        """The status of cloud name if condition(status), else None."""
        status = self.status(name)
        return status if condition(status) else None

    def attach_worker_log(self, exc_info):
        self.addDetail('worker log', testtools.content.text_content(
            self.log_of('flavor-exporter-worker')[-20000:]))
