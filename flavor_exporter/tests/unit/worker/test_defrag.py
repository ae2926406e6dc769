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
"""The worker's reading of servers for a defrag plan (canned answers).

What Nova and Placement answer is canned here, as they answer it (the
functional test test_defrag reads the real ones and makes the moves):
the parsing, which servers are never moved and why, and which calls
are made.
"""

from flavor_exporter.capacity import engine
from flavor_exporter.capacity import model
from flavor_exporter.publication import defrag as docs
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity.planning import test_defrag
from flavor_exporter.worker import checks
from flavor_exporter.worker import defrag


def _server(server, **extra):
    flavor = server.flavor
    return dict({
        'id': server.id, 'name': server.name, 'status': 'ACTIVE',
        'OS-EXT-STS:task_state': None, 'locked': False,
        'OS-EXT-SRV-ATTR:host': server.host,
        'flavor': {'original_name': flavor.name, 'vcpus': flavor.vcpus,
                   'ram': flavor.ram, 'disk': flavor.disk, 'ephemeral': 0,
                   'swap': 0, 'extra_specs': {}}}, **extra)


class CannedClient:
    """Nova's and Placement's answers for the servers given."""

    def __init__(self, servers, groups=(), changes=None):
        self.servers = servers
        self.groups = list(groups)
        self.changes = changes or {}
        self.calls = []

    def get_all(self, service, path, key, microversion=None, params=None):
        self.calls.append((service, path, dict(params or {})))
        if path == '/servers/detail':
            return [_server(s, **self.changes.get(s.id, {}))
                    for s in self.servers if s.host == params['host']]
        if path == '/os-server-groups':
            return self.groups
        raise AssertionError(path)

    def get(self, service, path, microversion=None, params=None):
        self.calls.append((service, path, dict(params or {})))
        if service == 'placement':
            uuid = path.split('/')[2]
            return {'allocations': {
                s.id: {'resources': resources}
                for s in self.servers
                for rp, resources in s.allocations.items() if rp == uuid}}
        server_id = path.split('/')[2]
        found = [s for s in self.servers if s.id == server_id]
        return {'server': _server(found[0])}


def _answer(layout, client_of, count=1, max_hosts=20):
    hosts, servers = test_defrag.cloud(layout)
    flavors = [test_defrag.TARGET] + [test_defrag.flavor(n)
                                      for n in (2, 4, 6, 10, 12)]
    report = engine.compute(model.Snapshot('placement', flavors, hosts),
                            engine.Options())
    client = client_of(servers)
    answer = defrag.Defrag(engine.Options()).compute(
        report, docs.DefragRequest('big', count, max_hosts=max_hosts),
        client)
    return answer[docs.DEFRAG], client, servers


class TestServersRead(base.BaseTestCase):

    def test_plan_from_what_nova_and_placement_say(self):
        answer, client, servers = _answer(
            {'a': [4, 4, 4], 'b': [4, 4, 4]}, CannedClient)
        self.assertTrue(answer['found'], answer['reason'])
        [move] = answer['moves']
        self.assertEqual('small4', move['flavor'])
        self.assertNotEqual(move['from'], move['to'])
        self.assertEqual(['openstack server migrate --live-migration --host '
                          '%s %s' % (move['to'], move['server'])],
                         answer['commands'])
        # One listing per host read, one allocations call per provider,
        # the server groups once; no member lookup (no group).
        self.assertEqual(
            sorted([('compute', '/servers/detail', 'a'),
                    ('compute', '/servers/detail', 'b'),
                    ('placement', '/resource_providers/rp-a/allocations',
                     None),
                    ('placement', '/resource_providers/rp-b/allocations',
                     None),
                    ('compute', '/os-server-groups', None)]),
            sorted((service, path, params.get('host'))
                   for service, path, params in client.calls))

    def test_servers_nova_would_not_move(self):
        def client_of(servers):
            on_a = [s.id for s in servers if s.host == 'a']
            on_b = [s.id for s in servers if s.host == 'b']
            changes = {on_a[0]: {'locked': True},
                       on_a[1]: {'status': 'SHUTOFF'},
                       on_a[2]: {'OS-EXT-STS:task_state': 'migrating'}}
            changes.update({i: {'locked': True} for i in on_b})
            return CannedClient(servers, changes=changes)
        answer, _, _ = _answer({'a': [4, 4, 4], 'b': [4, 4, 4]}, client_of)
        self.assertFalse(answer['found'])
        self.assertEqual(
            {'locked': 4,
             'not ACTIVE (Nova live-migrates active servers only)': 1,
             'a task is under way on it': 1}, answer['never_moved'])

    def test_anti_affinity_members_elsewhere_are_located(self):
        # Only a is read (max_hosts 1); b has no room for a 4, c has:
        # without a group one of a's servers goes to c.
        layout = {'a': [4, 4, 4], 'b': [14], 'c': [4]}
        answer, _, _ = _answer(layout, CannedClient, max_hosts=1)
        self.assertEqual(['c'], [move['to'] for move in answer['moves']])

        # With a's servers in an anti-affinity group with c's, c is no
        # destination: the member there is located (one call), no plan.
        def client_of(servers):
            members = [s.id for s in servers if s.host in ('a', 'c')]
            return CannedClient(servers, groups=[{
                'id': 'g', 'policy': 'anti-affinity', 'rules': {},
                'members': members}])
        answer, client, _ = _answer(layout, client_of, max_hosts=1)
        looked_up = [path for _, path, _ in client.calls
                     if path.startswith('/servers/') and
                     path != '/servers/detail']
        self.assertEqual(1, len(looked_up))
        self.assertFalse(answer['found'])
        self.assertIn('find no destination', answer['reason'])

    def test_unknown_flavor_is_refused(self):
        hosts, _ = test_defrag.cloud({'a': [4]})
        report = engine.compute(model.Snapshot('placement', [], hosts),
                                engine.Options())
        self.assertRaises(checks.InvalidRequest,
                          defrag.Defrag(engine.Options()).compute, report,
                          docs.DefragRequest('nope'), CannedClient([]))

    def test_pooled_figure_short_reads_nothing(self):
        answer, client, _ = _answer({'a': [4, 4, 4], 'b': [4, 4, 4]},
                                    CannedClient, count=2)
        self.assertFalse(answer['found'])
        self.assertEqual([], client.calls)


class TestBody(base.BaseTestCase):

    def test_limits(self):
        self.assertEqual(docs.DefragRequest('big', 2),
                         docs.parse({'flavor': 'big', 'count': 2}))
        for body, message in (
                ([], 'must be an object'),
                ({}, '"flavor" must be'),
                ({'flavor': 'x', 'count': 21}, '"count" must be an '
                 'integer from 1 to 20'),
                ({'flavor': 'x', 'count': True}, '"count"'),
                ({'flavor': 'x', 'max_seconds': 11}, '"max_seconds"'),
                ({'flavor': 'x', 'hosts': 1}, 'Unknown field(s): hosts')):
            self.assertRaisesRegex(docs.InvalidDefrag, message.replace(
                '(', r'\(').replace(')', r'\)'), docs.parse, body)
        self.assertEqual(docs.identity(docs.parse({'flavor': 'big'})),
                         docs.identity(docs.parse({'flavor': 'big',
                                                   'count': 1})))
