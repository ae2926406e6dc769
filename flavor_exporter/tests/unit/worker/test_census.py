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
"""The compute services census, and the calls whose shape fails a refresh."""

from unittest import mock

from flavor_exporter.capacity import model
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.worker import fakes
from flavor_exporter.worker import census
from flavor_exporter.worker import nova
from flavor_exporter.worker import openstack


def service(host, status='enabled', state='up', forced_down=False):
    # GET /os-services?binary=nova-compute at 2.69 (api-ref sample).
    return {'binary': 'nova-compute', 'host': host, 'id': 's-' + host,
            'status': status, 'state': state, 'forced_down': forced_down,
            'disabled_reason': None, 'updated_at': None, 'zone': 'nova'}


def down_cell_service(host):
    # A service of a cell that does not answer, at 2.69.
    return {'binary': 'nova-compute', 'host': host, 'status': 'UNKNOWN',
            'zone': 'nova'}


def services_answer(*entries):
    return fakes.FakeClient({'/os-services': {'services': list(entries)}})


class TestListComputeServices(base.BaseTestCase):

    def test_states(self):
        services = census.list_compute_services(services_answer(
            service('a'), service('b', status='disabled'),
            service('c', state='down'), service('d', forced_down=True),
            down_cell_service('e')))
        self.assertEqual(
            {'a': (True, True), 'b': (False, True), 'c': (True, False),
             'd': (True, False), 'e': (True, True)},
            {host: (s.enabled, s.up) for host, s in services.items()})
        self.assertIsNone(services['a'].unknown)
        self.assertIn('its cell does not answer', services['e'].unknown)

    def test_asks_for_computes_at_2_69(self):
        client = services_answer(service('a'))
        census.list_compute_services(client)
        self.assertEqual([('compute', '/os-services', '2.69',
                           {'binary': 'nova-compute'})], client.requests)

    def test_unreadable_state_is_unknown(self):
        services = census.list_compute_services(services_answer(
            service('a', status=None)))
        self.assertIn("status None, state 'up'", services['a'].unknown)

    def test_wrong_shape_fails(self):
        for body in ({'services': {}}, {'services': None}, [], {}):
            client = fakes.FakeClient({'/os-services': body})
            error = self.assertRaises(openstack.CloudError,
                                      census.list_compute_services, client)
            self.assertIn('no list of services', str(error))
            self.assertEqual(200, error.status)

    def test_entry_without_host_fails(self):
        for entry in ('garbage', {'binary': 'nova-compute'},
                      dict(service('a'), host=3)):
            error = self.assertRaises(
                openstack.CloudError, census.list_compute_services,
                services_answer(service('b'), entry))
            self.assertIn('an entry names no host', str(error))


class TestAccount(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.services = census.list_compute_services(services_answer(
            service('cn1'), service('cn2'), service('old', state='down'),
            down_cell_service('far')))
        self.problems = []

    def host(self, name, **kwargs):
        return model.Host(name=name, node=name + '.example.org',
                          providers=[mock.sentinel.provider], **kwargs)

    def test_every_service_host_is_in_the_snapshot(self):
        hosts = census.account([self.host('cn1')], self.services,
                               self.problems)
        by_name = {h.name: h for h in hosts}
        self.assertEqual({'cn1', 'cn2', 'old', 'far'}, set(by_name))
        self.assertIsNone(by_name['cn1'].unreadable)
        self.assertIn('os-hypervisors lists no compute node',
                      by_name['cn2'].unreadable)
        self.assertIn('its cell does not answer', by_name['far'].unreadable)
        # Down anyway: excluded for that, not unreadable, and no line.
        self.assertIsNone(by_name['old'].unreadable)
        self.assertFalse(by_name['old'].up)
        self.assertEqual(['compute service host cn2', 'compute service host '
                          'far'], sorted(line.split(':')[0]
                                         for line in self.problems))

    def test_unreadable_host_loses_its_providers_and_is_named(self):
        hosts = census.account(
            [self.host('cn1', unreadable='its entry is odd'),
             self.host('cn2'), self.host('old'), self.host('far')],
            self.services, self.problems)
        self.assertEqual([[], [mock.sentinel.provider],
                          [mock.sentinel.provider], []],
                         [h.providers for h in hosts])
        self.assertEqual(['hypervisor cn1.example.org (host cn1): '
                          'unreadable, excluded from every flavor: its '
                          'entry is odd',
                          'hypervisor far.example.org (host far): '
                          'unreadable, excluded from every flavor: its cell '
                          'does not answer (Nova lists its compute service '
                          'with status UNKNOWN); the scheduler cannot place '
                          'there either'], self.problems)

    def test_nameless_entries_need_hosts_without_a_node(self):
        listed = [self.host('cn1'), self.host('old'), self.host('far')]
        census.account(list(listed), self.services, self.problems,
                       nameless=1)
        error = self.assertRaises(openstack.CloudError, census.account,
                                  list(listed), self.services, [], 2)
        self.assertIn('2 entries name no compute service host, and only 1',
                      str(error))

    def test_state_prefers_the_service(self):
        self.assertEqual((True, False), census.state(
            self.services['old'], 'enabled', 'up'))
        # A service registered between the two calls: the hypervisor's.
        self.assertEqual((False, True), census.state(None, 'disabled',
                                                     'up'))

    def test_service_host(self):
        self.assertEqual('cn1', census.service_host(
            {'service': {'host': 'cn1'}}))
        for entry in ('garbage', {}, {'service': None}, {'service': 'cn1'},
                      {'service': {'host': ''}}, {'service': {'host': 7}}):
            self.assertIsNone(census.service_host(entry))


class TestWholeCallShapes(base.BaseTestCase):
    """Answers wrong for the whole call fail the refresh, never read as []."""

    def test_aggregates(self):
        for body in ({'aggregates': {}}, [], {}, {'aggregates': None},
                     {'aggregates': ['garbage']},
                     {'aggregates': [{'name': 'a', 'hosts': 'cn1'}]},
                     {'aggregates': [{'name': 'a', 'hosts': [],
                                      'metadata': []}]}):
            client = fakes.FakeClient({'/os-aggregates': body})
            error = self.assertRaises(openstack.CloudError,
                                      nova.list_aggregates, client)
            self.assertIn('compute GET /os-aggregates', str(error))
            self.assertEqual(200, error.status)

    def test_aggregates_of_older_novas(self):
        # Null hosts and metadata mean none, as older Novas answered.
        client = fakes.FakeClient({'/os-aggregates': {'aggregates': [
            {'id': 1, 'name': 'a', 'hosts': None, 'metadata': None}]}})
        [(aggregate, hosts)] = nova.list_aggregates(client)
        self.assertEqual(('a', {}, []), (aggregate.name, aggregate.metadata,
                                         hosts))

    def test_paginated_listing(self):
        client = openstack.CloudClient(mock.Mock())
        for body in ({'hypervisors': {}}, {'hypervisors': None}, [], {}):
            with mock.patch.object(client, 'get', return_value=body):
                error = self.assertRaises(
                    openstack.CloudError, client.get_all, 'compute',
                    '/os-hypervisors/detail', 'hypervisors')
            self.assertIn("no 'hypervisors' list in the answer", str(error))
            self.assertEqual(200, error.status)
