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
"""Who holds which GPUs, from the servers' embedded flavors (nova)."""

from flavor_exporter.tests import base
from flavor_exporter.tests.unit.worker import fakes
from flavor_exporter.worker import nova
from flavor_exporter.worker import openstack


def server(server_id, host, specs=None, name='g1'):
    # GET /servers/detail at 2.47: each server embeds its flavor.
    return {'id': server_id, 'OS-EXT-SRV-ATTR:host': host,
            'flavor': {'original_name': name, 'vcpus': 8, 'ram': 16384,
                       'disk': 40, 'extra_specs': dict(specs or {})}}


def gpus(count, alias='V100'):
    return {'pci_passthrough:alias': '%s:%s' % (alias, count)}


class TestGpuUsageByHost(base.BaseTestCase):

    def usage(self, *servers):
        client = fakes.FakeClient({'/servers/detail':
                                   {'servers': list(servers)}})
        problems = []
        usage = nova.gpu_usage_by_host(client, problems)
        self.assertEqual(
            [('compute', '/servers/detail', '2.47', {'all_tenants': 1}),
             ('compute', '/servers/detail', '2.47',
              {'all_tenants': 1, 'deleted': 'true',
               'status': 'SOFT_DELETED'})],
            client.requests)
        return usage, problems

    def test_devices_summed_per_host_and_alias(self):
        usage, problems = self.usage(
            server('a', 'gpu1', gpus(1)),
            server('b', 'gpu1', {'pci_passthrough:alias': 'V100:2,A100:1'}),
            server('c', 'gpu2', gpus(1, 'A100')),
            server('d', 'cpu1'),
            server('e', 'gpu2', gpus(0)))
        self.assertEqual({'gpu1': {'V100': 3, 'A100': 1},
                          'gpu2': {'A100': 1}}, usage)
        self.assertEqual([], problems)

    def test_soft_deleted_servers_hold_their_devices(self):
        # Listed only when asked for: until reclaimed they keep them.
        held = dict(server('a', 'gpu1', gpus(2)), status='SOFT_DELETED')
        self.assertEqual(({'gpu1': {'V100': 3}}, []), self.usage(
            held, dict(server('b', 'gpu1', gpus(1)), status='ACTIVE')))

    def test_server_on_no_host_holds_nothing(self):
        # Shelved-offloaded or failed to schedule: no host, no device.
        self.assertEqual(({}, []), self.usage(server('a', None, gpus(1))))

    def test_other_extra_specs_do_not_matter(self):
        # The flavor no longer passes Nova's checks (it used to leave the
        # server's GPUs uncounted): its servers still hold their devices.
        specs = dict(gpus(2), **{'hw:cpu_policy': 'sometimes'})
        self.assertEqual(({'gpu1': {'V100': 2}}, []),
                         self.usage(server('a', 'gpu1', specs)))

    def test_malformed_alias_spec_is_a_problem(self):
        usage, problems = self.usage(
            server('a', 'gpu1', gpus('two'), name='g.broken'),
            server('b', 'gpu1', gpus(1)))
        self.assertEqual({'gpu1': {'V100': 1}}, usage)
        self.assertEqual(
            ["servers a on gpu1: flavor 'g.broken': pci_passthrough:alias: "
             "count of 'V100' is not an integer; the PCI devices they hold "
             "are not counted as used"], problems)

    def test_server_without_flavor_is_a_problem(self):
        gone = server('a', 'gpu1')
        del gone['flavor']
        usage, problems = self.usage(gone)
        self.assertEqual({}, usage)
        self.assertEqual(['servers a on gpu1: its flavor is not in the '
                          'answer; the PCI devices they hold are not counted '
                          'as used'], problems)

    def test_server_whose_flavor_is_gone_is_a_problem(self):
        gone = server('a', 'gpu1')
        gone['flavor'] = {}
        _, problems = self.usage(gone)
        self.assertEqual(["servers a on gpu1: its flavor is gone from Nova's "
                          "database; the PCI devices they hold are not "
                          "counted as used"], problems)

    def test_server_of_a_down_cell_is_a_problem(self):
        # What GET /servers/detail lists for a cell it cannot reach.
        down = {'id': 'a', 'status': 'UNKNOWN', 'tenant_id': 'p1',
                'created': '2026-01-01T00:00:00Z', 'links': []}
        usage, problems = self.usage(down, server('b', 'gpu1', gpus(1)))
        self.assertEqual({'gpu1': {'V100': 1}}, usage)
        self.assertEqual(['servers a on an unknown host: their cell is down; '
                          'the PCI devices they hold are not counted as '
                          'used'], problems)

    def test_hidden_extra_specs_are_a_problem(self):
        hidden = server('a', 'gpu1')
        del hidden['flavor']['extra_specs']
        _, problems = self.usage(hidden)
        self.assertEqual(1, len(problems))
        self.assertIn("its flavor's extra specs are not in the answer",
                      problems[0])
        self.assertIn('os_compute_api:os-flavor-extra-specs:index',
                      problems[0])

    def test_one_line_per_reason(self):
        servers = [server('s%d' % i, 'gpu%d' % (i % 2), gpus('x'))
                   for i in range(nova.SERVERS_NAMED + 3)]
        _, problems = self.usage(*servers)
        self.assertEqual(
            ["servers s0 on gpu0, s1 on gpu1, s2 on gpu0, s3 on gpu1, s4 on "
             "gpu0 and 3 more: flavor 'g1': pci_passthrough:alias: count of "
             "'V100' is not an integer; the PCI devices they hold are not "
             "counted as used"], problems)


def flavor_body(flavor_id, public=True):
    return {'id': flavor_id, 'name': 'f-' + flavor_id, 'vcpus': 1,
            'ram': 512, 'disk': 1, 'os-flavor-access:is_public': public}


class TestFlavorAccess(base.BaseTestCase):
    """Who may see a private flavor: read from os-flavor-access."""

    def test_private_flavors_carry_their_projects(self):
        client = fakes.FakeClient({
            '/flavors/detail': {'flavors': [
                flavor_body('pub'), flavor_body('priv', public=False),
                flavor_body('gone', public=False)]},
            '/flavors/priv/os-flavor-access': {'flavor_access': [
                {'flavor_id': 'priv', 'tenant_id': 'p2'},
                {'flavor_id': 'priv', 'tenant_id': 'p1'}]},
            '/flavors/gone/os-flavor-access': openstack.CloudError(
                'compute GET /flavors/gone/os-flavor-access answered 404')})
        problems = []
        flavors = {f.id: f for f in nova.list_flavors(client, problems)}
        self.assertIsNone(flavors['pub'].projects)
        self.assertEqual(('p1', 'p2'), flavors['priv'].projects)
        # Unknown: the API then shows it to admins only.
        self.assertIsNone(flavors['gone'].projects)
        self.assertEqual(1, len(problems))
        self.assertIn('f-gone', problems[0])
        self.assertIn('only admins see it', problems[0])
        # Public flavors cost no call.
        self.assertNotIn('/flavors/pub/os-flavor-access', client.paths())
