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

"""Set checks against Nova: boot the set in order, compare server by server.

For each set, `flavor-exporter-report --check` answers first; then the
oracle boots the set on the real test cloud in launch order until Nova
refuses a request, and every request must have started as many servers
as the check said, on the hosts it named. Where the check names hosts of
equal weight (Nova takes one of them in an order its process's string
hashing decides), Nova may take another: the two are then swapped in
what the check said of the servers after it, which holds for hosts in
the same state (identical hosts, the common case); after another host
of a coincidentally equal weight, only the counts are compared.
"""

import dataclasses
import json
import os
import time
import urllib.request
import uuid

from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests.functional import test_commands
from testcloud import loopback
from testcloud import oracle

# Every set boots as a project of its own with Nova's quotas lifted, but
# for server_group_members (10 by default), unless the test sets some.
UNLIMITED = {'instances': -1, 'cores': -1, 'ram': -1}


class SetChecksTestCase(test_commands.CommandsTestCase):
    """Checks a set, boots it as Nova would, and compares."""

    def setUp(self):
        super().setUp()
        self.admin = self.cloud.connection()
        self.config = self.write_config_file(
            'flavor-exporter.conf', self.mirrored(), self.spec.pci_aliases)

    def mirrored(self):
        """The configuration a deployer writes for the scenario's cloud.

        Its nova.conf mirrored, and the cell database, where the compute
        nodes' stats are.
        """
        groups = fe_fixtures.mirrored_options(self.spec)
        groups['openstack'] = {
            'cloud': self.cloud.cloud_name,
            'cell_database_connections': self.cloud.cell_database}

        def line(name, value):
            if isinstance(value, bool):
                value = str(value).lower()
            return '%s = %s\n' % (name, value)
        return ''.join('[%s]\n%s' % (group, ''.join(
            line(name, value) for name, value in options.items()))
            for group, options in groups.items())

    def check(self, body):
        path = os.path.join(self.workdir, 'set-%s.json' % uuid.uuid4().hex)
        with open(path, 'w') as stream:
            json.dump(body, stream)
        return self.report_check(self.config, path)

    def report_check(self, config, path):
        """flavor-exporter-report --check's answer; its exit status checked.

        0 when the whole set starts, 1 when it does not: what a script
        asks it (checked against Nova by the tests that boot the set).
        """
        done = self.run_command('flavor-exporter-report', '--config-file',
                                config, '--format', 'json', '--check', path)
        self.assertIn(done.returncode, (0, 1), done.stderr)
        check = json.loads(done.stdout)['check']
        self.assertEqual(0 if check['fits'] else 1, done.returncode,
                         done.stderr)
        return check

    def boot(self, body, project):
        member = oracle.as_project(self.admin, project)
        group = body.get('server_group')
        return oracle.boot_set(
            member, self.admin,
            [(s['flavor'], s.get('count', 1), s.get('min_count'))
             for s in body['servers']],
            availability_zone=body.get('availability_zone'),
            group=(group['policy'], group.get('rules', {}).get(
                'max_server_per_host')) if group else None)

    def assert_nova_agrees(self, body, quota=None):
        """Check body, boot it, compare; the check's answer."""
        project = 'set-%s' % uuid.uuid4().hex[:12]
        oracle.set_quota(self.admin, project, **(quota or UNLIMITED))
        body = dict(body, project_id=project)
        answer = self.check(body)
        result = self.boot(body, project)
        requests = answer['requests']
        # Nova refuses where the check stops, or nowhere.
        stopped = [i for i, r in enumerate(requests) if r['stopped_by']]
        self.assertEqual(stopped[:1], [result.refused[0]] if result.refused
                         else [], (answer, result))
        self.assertEqual(not stopped, answer['fits'])
        renamed = {}
        diverged = False
        for index, hosts in enumerate(result.started):
            said = requests[index]
            self.assertEqual(said['started'], len(hosts),
                             (index, answer, result))
            # A multi-create's servers are listed in no defined order:
            # each is matched to one started on its host, or a tied one.
            left = list(hosts)
            for position, server in enumerate(said['servers']):
                if diverged:
                    break
                named = renamed.get(server['host'], server['host'])
                allowed = [named] + [renamed.get(h, h)
                                     for h in server['tied_with']]
                if said['request'] == 'multi-create':
                    host = next((h for h in allowed if h in left), None)
                else:
                    host = left[0] if left[0] in allowed else None
                self.assertIsNotNone(host, (index, position, answer,
                                            result))
                left.remove(host)
                if host != named and not self.alike(named, host):
                    diverged = True
                elif host != named:
                    # Nova broke the tie the other way: what the check
                    # says of one host from now on is of the other.
                    for name in set(self.cloud.hosts) | set(renamed):
                        now = renamed.get(name, name)
                        if now in (named, host):
                            renamed[name] = host if now == named else named
        return answer

    def alike(self, one, other):
        """Whether two hosts are of the same model and started alike."""
        spec = {h.name: h for h in self.spec.hosts}
        servers = {}
        for server in self.spec.servers:
            servers.setdefault(server.host, []).append(server.flavor)
        return (dataclasses.replace(spec[one], name='', node='')
                == dataclasses.replace(spec[other], name='', node='')
                and servers.get(one) == servers.get(other)
                and {a.name for a in self.spec.aggregates if one in a.hosts}
                == {a.name for a in self.spec.aggregates
                    if other in a.hosts})


class TestSetChecksOnTheCloud(SetChecksTestCase):

    scenario = 'set_checks'
    shared = True

    def test_cpu_flavors_spread_over_both_models(self):
        answer = self.assert_nova_agrees({'servers': [
            {'flavor': 'c.large', 'count': 3},
            {'flavor': 'c.small', 'count': 4}]})
        self.assertTrue(answer['fits'])

    def test_gpu_then_cpu_until_the_zone_is_full(self):
        answer = self.assert_nova_agrees({
            'servers': [{'flavor': 'g.a100.1', 'count': 2},
                        {'flavor': 'c.xlarge', 'count': 8}],
            'availability_zone': 'az-gpu'})
        self.assertFalse(answer['fits'])
        self.assertEqual('resources',
                         answer['requests'][1]['stopped_by']['kind'])

    def test_multi_create_starts_whole(self):
        answer = self.assert_nova_agrees({'servers': [
            {'flavor': 'c.medium', 'count': 5, 'min_count': 5},
            {'flavor': 'c.small', 'count': 2}]})
        self.assertTrue(answer['fits'])

    def test_multi_create_that_does_not_fit_starts_nothing(self):
        answer = self.assert_nova_agrees({'servers': [
            {'flavor': 'g.a100.2', 'count': 2, 'min_count': 2}]})
        self.assertEqual(0, answer['requests'][0]['started'])
        self.assertTrue(answer['requests'][0]['alternatives'])

    def test_anti_affinity_in_a_zone(self):
        answer = self.assert_nova_agrees({
            'servers': [{'flavor': 'c.large', 'count': 4}],
            'availability_zone': 'az-1',
            'server_group': {'policy': 'anti-affinity'}})
        self.assertEqual('server_group',
                         answer['requests'][0]['stopped_by']['kind'])

    def test_anti_affinity_two_per_host_multi_create(self):
        self.assert_nova_agrees({
            'servers': [{'flavor': 'c.small', 'count': 6, 'min_count': 6}],
            'availability_zone': 'az-2',
            'server_group': {'policy': 'anti-affinity',
                             'rules': {'max_server_per_host': 2}}})

    def test_affinity_fills_one_host(self):
        answer = self.assert_nova_agrees({
            'servers': [{'flavor': 'c.large', 'count': 9}],
            'server_group': {'policy': 'affinity'}})
        self.assertFalse(answer['fits'])

    def test_soft_policies(self):
        self.assert_nova_agrees({
            'servers': [{'flavor': 'c.small', 'count': 5}],
            'availability_zone': 'az-1',
            'server_group': {'policy': 'soft-affinity'}})
        self.assert_nova_agrees({
            'servers': [{'flavor': 'c.medium', 'count': 3, 'min_count': 1},
                        {'flavor': 'c.small', 'count': 3}],
            'server_group': {'policy': 'soft-anti-affinity'}})

    def test_tight_quota(self):
        answer = self.assert_nova_agrees(
            {'servers': [{'flavor': 'c.medium', 'count': 2},
                         {'flavor': 'c.large', 'count': 3}]},
            quota={'instances': 10, 'cores': 16, 'ram': -1})
        stop = answer['requests'][1]['stopped_by']
        self.assertEqual(('quota', 'cores'), (stop['kind'], stop['limit']))
        # A multi-create is cut to what the quota allows.
        answer = self.assert_nova_agrees(
            {'servers': [{'flavor': 'c.small', 'count': 6,
                          'min_count': 2}]},
            quota={'instances': 4, 'cores': -1, 'ram': -1})
        self.assertEqual(4, answer['requests'][0]['started'])

    def test_the_api_answers_as_the_report(self):
        body = {'servers': [{'flavor': 'g.a100.2', 'count': 1},
                            {'flavor': 'c.large', 'count': 4,
                             'min_count': 2}],
                'server_group': {'policy': 'soft-anti-affinity'}}
        reported = self.check(body)
        self.start('flavor-exporter-worker', self.config)
        self.start('flavor-exporter-api', self.config)
        loopback.wait_for_port(self.port, timeout=60)
        self.wait_for('/v3/flavors/', timeout=120)
        started = time.monotonic()
        request = urllib.request.Request(
            'http://127.0.0.1:%d/v3/checks' % self.port,
            json.dumps(body).encode(), {'Content-Type': 'application/json'})
        with urllib.request.urlopen(request, timeout=30) as response:
            served = json.load(response)['check']
        print('POST /v3/checks, first answer: %.2f s'
              % (time.monotonic() - started))
        # The same answer, but for when each read the cloud.
        del reported['timestamp'], served['timestamp']
        self.assertEqual(reported, served)

    def test_without_the_cell_database_the_answer_says_so(self):
        config = self.write_config_file(
            'no-cells.conf', '[openstack]\ncloud = %s\n' %
            self.cloud.cloud_name, self.spec.pci_aliases)
        path = os.path.join(self.workdir, 'set.json')
        with open(path, 'w') as stream:
            json.dump({'servers': [{'flavor': 'c.small'}]}, stream)
        check = self.report_check(config, path)
        self.assertIn('8 host(s) weighed without their stats', ' '.join(
            check['notes']))


class TestSetChecksOnNestedGpus(SetChecksTestCase):
    """VGPU providers per physical GPU (scenarios/vgpu.yaml).

    Which pGPU of vgpu-2 a vgpu.small takes decides whether a vgpu.large
    (two VGPUs of one pGPU) fits there after it.
    """

    scenario = 'vgpu'
    shared = True

    def test_small_servers_leave_a_gpu_whole(self):
        answer = self.assert_nova_agrees({
            'servers': [{'flavor': 'vgpu.small', 'count': 3},
                        {'flavor': 'plain.large', 'count': 3},
                        {'flavor': 'vgpu.large', 'count': 3}],
            'server_group': {'policy': 'soft-anti-affinity'}})
        self.assertEqual(2, answer['requests'][2]['started'])
        # Nova's usual choice of pGPU for the second vgpu.small: said.
        self.assertIn('on vgpu-2 a server took from one of several unlike',
                      ' '.join(answer['notes']))

    def test_a_multi_create_claims_one_gpu_per_host(self):
        # vgpu-1 has room for 3, vgpu-2 for 2 + 2; Nova claims a host's
        # first allocation candidate again for every server of a request,
        # so one multi-create gets 2 of vgpu-2's 4.
        answer = self.assert_nova_agrees({'servers': [
            {'flavor': 'vgpu.small', 'count': 5, 'min_count': 5}]})
        self.assertTrue(answer['fits'])
        answer = self.assert_nova_agrees({'servers': [
            {'flavor': 'vgpu.small', 'count': 6, 'min_count': 6}]})
        self.assertEqual('VGPU', answer['requests'][0]['stopped_by']['limit'])
