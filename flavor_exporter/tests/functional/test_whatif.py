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
"""What-ifs against Nova: predict, make the change for real, boot.

`flavor-exporter-report --whatif` answers first, on the cloud as it is;
then the change is made on the real test cloud (compute services
disabled, servers cold-migrated off a drained host in the order the
answer moved them, computes started like an existing one and put in its
aggregates, Placement inventories given the new allocation ratio), and
every flavor is booted until NoValidHost: each figure the answer gave
for after must be what Nova starts. Each test has a cloud of its own:
it changes it.
"""

import json
import os
import time
import urllib.request
import uuid

from openstack import exceptions as sdk_exc

from flavor_exporter.tests.functional import test_set_checks
from testcloud import loopback
from testcloud import oracle

# The test cloud's Nova computes answer os-migrateLive with a driver
# that does not move anything: servers are moved by cold migration
# (a resize to the same flavor, confirmed), which Nova schedules as it
# does a live migration without a host: the filters and weighers.
MOVED = 'migrate'


class WhatifTestCase(test_set_checks.SetChecksTestCase):

    scenario = 'whatif'
    shared = False

    def whatif(self, body):
        path = self.write_json(body)
        return self.report(self.config, '--whatif', path)['whatif']

    def write_json(self, body):
        path = os.path.join(self.workdir, 'whatif-%s.json' % uuid.uuid4().hex)
        with open(path, 'w') as stream:
            json.dump(body, stream)
        return path

    def after(self, answer, field='available'):
        return {item['name']: item['after'][field]
                for item in answer['results']['flavors']}

    def assert_booted(self, expected, availability_zone=None):
        """Boot each flavor until NoValidHost; expected: {name: count}."""
        found = {}
        for name in sorted(expected):
            found[name] = oracle.boot_until_no_valid_host(
                self.admin, name, availability_zone=availability_zone)
        self.assertEqual(expected, found, availability_zone)

    # -- making the changes for real -----------------------------------

    def add_like(self, like, name, aggregates):
        spec = next(h for h in self.spec.hosts if h.name == like)
        entry = {'name': name, 'vcpus': spec.vcpus,
                 'memory_mb': spec.memory_mb, 'local_gb': spec.local_gb}
        if spec.pci_devices:
            entry['pci_devices'] = [
                {'vendor_id': d.vendor_id, 'product_id': d.product_id,
                 'count': d.count} for d in spec.pci_devices]
        self.cloud.add_compute(entry)
        for aggregate in self.admin.compute.aggregates():
            if aggregate.name in aggregates:
                self.admin.compute.add_host_to_aggregate(aggregate, name)

    def set_ratio(self, host, rc, ratio):
        """The host's provider inventory of rc at a new allocation ratio."""
        placement = self.admin.placement
        provider = placement.get(
            '/resource_providers?name=%s' % host,
            microversion='1.14').json()['resource_providers'][0]
        path = '/resource_providers/%s/inventories/%s' % (provider['uuid'],
                                                          rc)
        inventory = placement.get(path).json()
        inventory['allocation_ratio'] = ratio
        sdk_exc.raise_from_response(placement.put(path, json=inventory))

    def server(self, server_id):
        return self.admin.compute.get(
            '/servers/%s' % server_id,
            microversion=oracle.MICROVERSION).json()['server']

    def wait_status(self, server_id, status, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            server = self.server(server_id)
            if server['status'] == status:
                return server
            self.assertNotEqual('ERROR', server['status'], server)
            time.sleep(0.25)
        self.fail('server %s not %s in %ss' % (server_id, status, timeout))

    def migrate(self, server_id):
        """Cold-migrate a server where Nova's scheduler says; its host."""
        sdk_exc.raise_from_response(self.admin.compute.post(
            '/servers/%s/action' % server_id, json={MOVED: None},
            microversion=oracle.MICROVERSION))
        self.wait_status(server_id, 'VERIFY_RESIZE')
        sdk_exc.raise_from_response(self.admin.compute.post(
            '/servers/%s/action' % server_id, json={'confirmResize': None},
            microversion=oracle.MICROVERSION))
        return self.wait_status(server_id, 'ACTIVE')['OS-EXT-SRV-ATTR:host']


class TestWhatifOnTheCloud(WhatifTestCase):

    def test_drain_add_and_new_ratio(self):
        answer = self.whatif({
            'drain': [{'hosts': ['cpu-1']}],
            'add': [{'like': 'big-1', 'names': ['big-2']},
                    {'like': 'gpu-1', 'names': ['gpu-2']}],
            'change': [{'aggregate': 'zone-1',
                        'allocation_ratio': {'VCPU': 2.0}}]})
        self.assertEqual(['cpu-1'], answer['hosts']['drained'])
        self.assertEqual(['big-2', 'gpu-2'], answer['hosts']['added'])
        self.assertIsNone(answer['evacuation'])
        # GPU flavors first.
        self.assertEqual('g.a100.1', answer['results']['flavors'][0]['name'])
        a100 = {item['type']: item for item in answer['results']['gpus']}
        self.assertEqual(2, a100['A100']['difference']['total'])

        oracle.disable_compute(self.admin, 'cpu-1')
        self.add_like('big-1', 'big-2', {'zone-2'})
        self.add_like('gpu-1', 'gpu-2', {'GPU A100'})
        for host in ('cpu-1', 'cpu-2', 'cpu-3'):
            self.set_ratio(host, 'VCPU', 2.0)
        self.assert_booted(self.after(answer))
        # One A100 a server: the devices usable after are what boots.
        self.assertEqual(a100['A100']['after']['usable'],
                         self.after(answer)['g.a100.1'])
        # Per zone, for the flavor every zone takes.
        medium = next(item for item in answer['results']['flavors']
                      if item['name'] == 'c.medium')
        for zone, figures in sorted(medium['availability_zones'].items()):
            self.assert_booted({'c.medium': figures['after']['available']},
                               availability_zone=zone)
        # In the empty cloud: total (the servers of cpu-1 stay there).
        oracle.delete_servers(self.admin, oracle.all_servers(self.admin))
        totals = self.after(answer, 'total')
        self.assert_booted({name: totals[name]
                            for name in ('c.cpu', 'c.medium', 'g.a100.1')})

    def test_evacuation_in_nova_order(self):
        answer = self.whatif({'drain': [{'hosts': ['cpu-1'],
                                         'servers': 'evacuate'}]})
        evacuation = answer['evacuation']
        self.assertTrue(evacuation['fits'], evacuation)
        self.assertEqual(2, evacuation['placed'])
        oracle.disable_compute(self.admin, 'cpu-1')
        for move in evacuation['moves']:
            host = self.migrate(move['server'])
            # Hosts of equal weight: Nova's order among them is its own.
            self.assertIn(host, [move['to']] + move['tied_with'], move)
        self.assert_booted(self.after(answer))

    def test_gpu_host_evacuated(self):
        # A second GPU host, and a GPU server on the first: its move
        # claims a device on the only other host with one.
        self.add_like('gpu-1', 'gpu-2', {'GPU A100'})
        oracle.boot_servers(self.admin, 'g.a100.1', 1, host='gpu-1')
        answer = self.whatif({'drain': [{'hosts': ['gpu-1'],
                                         'servers': 'evacuate'}]})
        moves = answer['evacuation']['moves']
        self.assertEqual([('g.a100.1', 'gpu-2')],
                         [(m['flavor'], m['to']) for m in moves])
        a100 = {g['type']: g for g in answer['results']['gpus']}['A100']
        # 4 devices, 1 used, gpu-1's 2 free ones stranded by the drain.
        self.assertEqual({'total': 4, 'used': 1, 'free': 3, 'stranded': 2,
                          'usable': 1}, a100['after'])
        oracle.disable_compute(self.admin, 'gpu-1')
        self.assertEqual('gpu-2', self.migrate(moves[0]['server']))
        self.assert_booted(self.after(answer))

    def test_flavor_added_and_host_removed(self):
        answer = self.whatif({
            'remove': [{'hosts': ['big-1']}],
            'flavors': [{'name': 'c.wide', 'vcpus': 3, 'ram': 3072,
                         'disk': 10}]})
        wide = next(item for item in answer['results']['flavors']
                    if item['name'] == 'c.wide')
        self.assertTrue(wide['added'])
        self.admin.compute.create_flavor(name='c.wide', vcpus=3, ram=3072,
                                         disk=10)
        # A removed host is one Nova no longer schedules to.
        oracle.disable_compute(self.admin, 'big-1')
        self.assert_booted(self.after(answer))

    def test_the_api_answers_as_the_report(self):
        # The leading worker answers through memcached, as set checks.
        body = {'drain': [{'hosts': ['cpu-1'], 'servers': 'evacuate'}],
                'add': [{'like': 'gpu-1', 'count': 2}]}
        reported = self.whatif(body)
        self.start('flavor-exporter-worker', self.config)
        self.start('flavor-exporter-api', self.config)
        loopback.wait_for_port(self.port, timeout=60)
        self.wait_for('/v3/flavors/', timeout=120)
        request = urllib.request.Request(
            'http://127.0.0.1:%d/v3/whatif' % self.port,
            json.dumps(body).encode(), {'Content-Type': 'application/json'})
        with urllib.request.urlopen(request, timeout=30) as response:
            served = json.load(response)['whatif']
        # The same answer, but for when each read the cloud.
        del reported['timestamp'], served['timestamp']
        self.assertEqual(reported, served)
