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

"""Compute services of the test cloud: disabled, down, added, 50 hosts.

disabled_host.yaml and down_host.yaml have three hosts of 8 cores,
8704 MB and 200 GB; "small" is 4 vCPU, 4096 MB, 20 GB. Per host:
min(VCPU 8 * 4.0 // 4 = 8, RAM (8704 - 512) // 4096 = 2, DISK 200 // 20
= 10) = 2.
"""

from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from testcloud import oracle
from testcloud import placement_view

SERVICES_MICROVERSION = '2.53'


def _compute_services(conn):
    resp = conn.compute.get('/os-services?binary=nova-compute',
                            microversion=SERVICES_MICROVERSION)
    return {s['host']: s for s in resp.json()['services']}


class DisabledHostTest(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            'disabled_host', shared=True)).cloud
        self.conn = self.cloud.connection()

    def test_service_is_disabled_and_marked_in_placement(self):
        services = _compute_services(self.conn)
        self.assertEqual('disabled', services['host-3']['status'])
        self.assertEqual('maintenance', services['host-3']['disabled_reason'])
        self.assertEqual('up', services['host-3']['state'])
        rps = placement_view.providers(self.conn)
        self.assertIn('COMPUTE_STATUS_DISABLED', rps['host-3']['traits'])
        self.assertNotIn('COMPUTE_STATUS_DISABLED', rps['host-1']['traits'])

    def test_disabled_host_gets_nothing(self):
        # Two enabled hosts x 2.
        result = oracle.fill(self.conn, 'small')
        self.assertEqual(4, result.count)
        self.assertEqual({'host-1': 2, 'host-2': 2}, dict(result.hosts))


class DownHostTest(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            'down_host', shared=True)).cloud
        self.conn = self.cloud.connection()

    def test_service_is_down(self):
        service = _compute_services(self.conn)['host-3']
        self.assertEqual('down', service['state'])
        self.assertTrue(service['forced_down'])
        self.assertEqual('enabled', service['status'])
        self.assertFalse(self.cloud.state()['hosts']['host-3']['running'])

    def test_down_host_gets_nothing(self):
        # Placement still offers host-3; the ComputeFilter drops it.
        result = oracle.fill(self.conn, 'small')
        self.assertEqual(4, result.count)
        self.assertEqual({'host-1': 2, 'host-2': 2}, dict(result.hosts))


class ControlEndpointTest(base.BaseTestCase):
    """Computes added and stopped at run time (own cloud: it changes)."""

    def test_add_and_stop_a_compute(self):
        cloud = self.useFixture(fe_fixtures.Cloud('disabled_host')).cloud
        conn = cloud.connection()
        cloud.add_compute({'name': 'host-4', 'node': 'host-4.example.org',
                           'vcpus': 8, 'memory_mb': 8704,
                           'local_gb': 200})
        self.assertEqual({'node': 'host-4.example.org', 'running': True},
                         cloud.hosts['host-4'])
        self.assertEqual({}, cloud.run_periodics())
        rps = placement_view.providers(conn)
        self.assertEqual(8, rps['host-4.example.org']['inventories'][
            'VCPU']['total'])
        server = oracle.boot(conn, 'small', host='host-4')
        self.assertEqual('ACTIVE', server['status'])
        self.assertEqual('host-4', server['OS-EXT-SRV-ATTR:host'])
        oracle.delete_servers(conn, [server])

        # Stopping alone is not seen until the service misses reports;
        # forcing it down through Nova's API is.
        cloud.stop_compute('host-4')
        service = _compute_services(conn)['host-4']
        resp = conn.compute.put('/os-services/%s' % service['id'],
                                json={'forced_down': True},
                                microversion=SERVICES_MICROVERSION)
        self.assertEqual(200, resp.status_code)
        self.assertEqual('down', _compute_services(conn)['host-4']['state'])
        server = oracle.boot(conn, 'small', host='host-4')
        oracle.delete_servers(conn, [server])
        self.assertEqual('ERROR', server['status'])
        self.assertIn(oracle.NO_VALID_HOST, server['fault']['message'])


class FiftyHostsTest(base.BaseTestCase):

    def test_fifty_hypervisors_and_providers(self):
        cloud = self.useFixture(fe_fixtures.Cloud(
            'large50', shared=True)).cloud
        conn = cloud.connection()
        self.assertEqual(50, len(cloud.hosts))
        resp = conn.compute.get('/os-hypervisors/detail',
                                microversion='2.87')
        hypervisors = resp.json()['hypervisors']
        self.assertEqual(50, len(hypervisors))
        self.assertEqual({'c01.example.org', 'g10.example.org'},
                         {h['hypervisor_hostname'] for h in hypervisors} &
                         {'c01.example.org', 'g10.example.org'})
        resp = conn.placement.get('/resource_providers')
        self.assertEqual(50, len(resp.json()['resource_providers']))
        gpu = [a for a in conn.compute.aggregates() if a.name == 'GPU V100']
        self.assertEqual(10, len(gpu[0].hosts))
