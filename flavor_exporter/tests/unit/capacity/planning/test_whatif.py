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
"""What-ifs applied to snapshots made by hand, and their answers.

Nova itself is the reference in tests/functional/test_whatif.py; these
pin how each change reads and what it does to the copy.
"""

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity.fit import vector_fit
from flavor_exporter.capacity import model
from flavor_exporter.capacity.planning import whatif
from flavor_exporter.common import whatif_request as wr
from flavor_exporter.publication import whatif as docs
from flavor_exporter.tests import sample_cloud
from flavor_exporter.tests.unit.capacity.planning import test_set_check as sets
from flavor_exporter.worker import checks
from flavor_exporter.worker import whatif as worker

Inv = model.Inventory
GB = 1024


def cloud():
    """h1 (az-1, a large and a small on it), h2 (az-1), h3 (az-2, GPUs)."""
    return model.Snapshot('placement', list(sets.FLAVORS), [
        sets.host('h1', zone='az-1', instances=2,
                  used={'VCPU': 10, 'MEMORY_MB': 20 * GB, 'DISK_GB': 100},
                  aggregates=[('zone-1', {'availability_zone': 'az-1'})]),
        sets.host('h2', zone='az-1',
                  aggregates=[('zone-1', {'availability_zone': 'az-1'})]),
        sets.host('h3', zone='az-2', gpus=2,
                  aggregates=[('gpu', {'availability_zone': 'az-2'})])],
        aggregates=[model.Aggregate('zone-1', {'availability_zone': 'az-1'}),
                    model.Aggregate('gpu', {'availability_zone': 'az-2'})])


def parse(body):
    return docs.parse(body)


class TestApply(sets.CheckTestCase):

    def apply(self, body, snapshot=None):
        return whatif.apply(snapshot or cloud(), parse(body))

    def test_drain_disables_and_leaves_the_original(self):
        snapshot = cloud()
        applied = self.apply({'drain': [{'aggregate': 'zone-1'}]}, snapshot)
        self.assertEqual(['h1', 'h2'], applied.drained)
        self.assertEqual([False, False, True],
                         [h.enabled for h in applied.snapshot.hosts])
        self.assertTrue(all(h.enabled for h in snapshot.hosts))

    def test_drain_counts_as_a_disabled_service(self):
        # The same engine on the copy: what a disabled service counts.
        options = engine.Options()
        applied = self.apply({'drain': [{'hosts': ['h2']}]})
        by_hand = cloud()
        by_hand.hosts[1].enabled = False
        self.assertEqual(
            [(f.total, f.available) for f in engine.compute(
                by_hand, options).flavors],
            [(f.total, f.available) for f in engine.compute(
                applied.snapshot, options).flavors])

    def test_added_hosts_are_empty_copies(self):
        applied = self.apply({'add': [{'like': 'h1', 'count': 2}]})
        self.assertEqual(['h1-new-1', 'h1-new-2'], applied.added)
        new = applied.snapshot.hosts[3]
        self.assertEqual(('h1-new-1', 'az-1', 0, {}),
                         (new.name, new.availability_zone, new.num_instances,
                          new.root.usages))
        self.assertNotEqual(new.root.uuid, cloud().hosts[0].root.uuid)
        self.assertEqual(cloud().hosts[0].root.inventories,
                         new.root.inventories)
        self.assertEqual(32 * GB, new.figures.free_ram_mb)
        self.assertEqual(0, new.figures.vcpus_used)
        # A large (8 vCPUs, 16 GiB) is bound by RAM: 2 on each of 5 hosts.
        report = engine.compute(applied.snapshot, engine.Options())
        large = next(f for f in report.flavors if f.flavor.name == 'large')
        self.assertEqual(2 * 5, large.total)

    def test_added_into_another_zone(self):
        applied = self.apply({'add': [{'like': 'h1', 'names': ['n1'],
                                       'availability_zone': 'az-2'}]})
        new = applied.snapshot.hosts[3]
        self.assertEqual('az-2', new.availability_zone)
        # Its zone aggregate is az-2's, not h1's.
        self.assertEqual(['gpu'], [a.name for a in new.aggregates])

    def test_added_gpu_host_brings_its_devices_free(self):
        applied = self.apply({'add': [{'like': 'h3'}]})
        self.assertEqual([model.GpuPool('A100', 2, 0)],
                         applied.snapshot.hosts[3].gpu_pools)

    def test_ratio_and_reserved_change_the_inventory(self):
        applied = self.apply({'change': [{
            'hosts': ['h2'], 'allocation_ratio': {'VCPU': 8.0},
            'reserved': {'MEMORY_MB': 4 * GB}}]})
        root = applied.snapshot.hosts[1].root
        self.assertEqual(8.0, root.inventories['VCPU'].allocation_ratio)
        self.assertEqual(4 * GB, root.inventories['MEMORY_MB'].reserved)
        # The node's record: 3.5 GiB less free RAM, CPUWeigher's ratio.
        self.assertEqual(32 * GB - 3584, applied.snapshot.hosts[1]
                         .figures.free_ram_mb)
        self.assertEqual(['h2'], applied.changed)

    def test_ratio_reaches_the_numa_cells(self):
        snapshot = cloud()
        snapshot.hosts[1].numa = numa_fit.HostNuma((), 4.0, 1.0)
        applied = self.apply({'change': [{'hosts': ['h2'],
                                          'allocation_ratio': {'VCPU': 2}}]},
                             snapshot)
        self.assertEqual(2.0, applied.snapshot.hosts[1].numa.cpu_ratio)

    def test_remove_and_flavors(self):
        applied = self.apply({
            'remove': [{'hosts': ['h2']}],
            'flavors': [{'flavor': 'small', 'vcpus': 4},
                        {'name': 'new', 'vcpus': 1, 'ram': 512, 'disk': 1,
                         'extra_specs': {'hw:mem_page_size': 'small'}}]})
        self.assertEqual(['h1', 'h3'],
                         [h.name for h in applied.snapshot.hosts])
        flavors = {f.name: f for f in applied.snapshot.flavors}
        self.assertEqual(4, flavors['small'].vcpus)
        self.assertEqual({'hw:mem_page_size': 'small'},
                         flavors['new'].extra_specs)
        self.assertEqual({'small': 'changed', whatif.NEW_FLAVOR + 'new':
                          'added'}, applied.flavors)

    def test_what_the_cloud_lacks(self):
        for body, words in (
                ({'drain': [{'hosts': ['nope']}]}, 'no compute host nope'),
                ({'drain': [{'aggregate': 'nope'}]}, 'no host aggregate'),
                ({'drain': [{'availability_zone': 'nope'}]}, 'zone nope'),
                ({'add': [{'like': 'nope'}]}, 'no compute host'),
                ({'add': [{'like': 'h1', 'names': ['h2']}]}, 'host h2'),
                ({'add': [{'like': 'h1', 'aggregates': ['x']}]}, 'x'),
                ({'flavors': [{'flavor': 'nope', 'vcpus': 1}]}, 'nope'),
                ({'flavors': [{'name': 'small', 'vcpus': 1, 'ram': 1,
                               'disk': 1}]}, 'named small exists')):
            exc = self.assertRaises(whatif.InvalidChange, self.apply, body)
            self.assertIn(words, str(exc))


def listed(*servers):
    """Servers as Nova lists them: (id, flavor name, vcpus, ram, disk)."""
    return [{'id': server_id, 'name': server_id, 'tenant_id': 'p',
             'flavor': {'original_name': name, 'vcpus': vcpus, 'ram': ram,
                        'disk': disk, 'ephemeral': 0, 'swap': 0,
                        'extra_specs': {}}}
            for server_id, name, vcpus, ram, disk in servers]


class TestAnswer(sets.CheckTestCase):

    def answer(self, body, servers=None, snapshot=None):
        snapshot = snapshot or cloud()
        options = engine.Options()
        answers = worker.Whatif.__new__(worker.Whatif)
        answers._settings = self.settings
        answers._options = options
        answers._numa = numa_fit.Counts(options.numa)
        answers._lock = worker.threading.Lock()
        report = engine.compute(snapshot, options)
        return answers.answer(report, snapshot, parse(body),
                              {'h1': servers or []})[docs.WHATIF]

    def flavor(self, answer, name):
        return next(item for item in answer['results']['flavors']
                    if item['name'] == name)

    def test_drain_with_servers_staying(self):
        answer = self.answer({'drain': [{'hosts': ['h1']}]})
        # A large takes 16 GiB: 2 a host, none on h1 (12 GiB free).
        large = self.flavor(answer, 'large')
        self.assertEqual({'total': 6, 'available': 4}, large['before'])
        self.assertEqual({'total': 4, 'available': 4}, large['after'])
        self.assertEqual({'total': -2, 'available': 0}, large['difference'])
        self.assertEqual({'before': {'total': 4, 'available': 2},
                          'after': {'total': 2, 'available': 2},
                          'difference': {'total': -2, 'available': 0}},
                         large['availability_zones']['az-1'])
        self.assertEqual({'compute service disabled': 1},
                         large['excluded'])
        self.assertIsNone(answer['evacuation'])
        # GPU flavors first, then by name.
        self.assertEqual(['gpu1', 'gpu2', 'large', 'medium', 'private',
                          'small'],
                         [f['name'] for f in answer['results']['flavors']])

    def test_evacuation_moves_in_order_and_counts_them_after(self):
        answer = self.answer(
            {'drain': [{'hosts': ['h1'], 'servers': 'evacuate'}]},
            listed(('s-large', 'large', 8, 16 * GB, 80),
                   ('s-small', 'small', 2, 4 * GB, 20)))
        evacuation = answer['evacuation']
        self.assertEqual((2, 2, True), (evacuation['servers'],
                                        evacuation['placed'],
                                        evacuation['fits']))
        # h2 and h3 have the same free RAM, but h3's free GPUs keep it
        # for GPU servers (PCIWeigher): h2; and h2 again, its move
        # counting no I/O operation there.
        self.assertEqual([('s-large', 'h2'), ('s-small', 'h2')],
                         [(m['server'], m['to'])
                          for m in evacuation['moves']])
        # After: h1 out, h2 holds both (12 GiB left): 2 large on h3.
        large = self.flavor(answer, 'large')
        self.assertEqual({'total': 4, 'available': 2}, large['after'])
        self.assertEqual({'total': 16, 'available': 11},
                         self.flavor(answer, 'small')['after'])

    def test_a_server_no_host_takes(self):
        answer = self.answer(
            {'drain': [{'hosts': ['h1'], 'servers': 'evacuate'}],
             'remove': [{'hosts': ['h2']}]},
            listed(('s1', 'large', 8, 16 * GB, 80),
                   ('s2', 'large', 8, 16 * GB, 80),
                   ('s3', 'large', 8, 16 * GB, 80)))
        evacuation = answer['evacuation']
        self.assertFalse(evacuation['fits'])
        self.assertEqual(['s1', 's2'],
                         [m['server'] for m in evacuation['moves']])
        self.assertEqual(['s3'],
                         [m['server'] for m in evacuation['not_placed']])
        self.assertEqual('MEMORY_MB', evacuation['not_placed'][0]['limit'])
        self.assertIn('hosts h1 keep the servers no host takes',
                      answer['notes'])

    def test_a_server_of_a_changed_flavor_moves_as_it_booted(self):
        # Its flavor's record says 2 vCPUs now; the server holds 6.
        answer = self.answer(
            {'drain': [{'hosts': ['h1'], 'servers': 'evacuate'}]},
            listed(('s1', 'small', 6, 30 * GB, 20)))
        self.assertEqual('h2', answer['evacuation']['moves'][0]['to'])
        self.assertEqual('small', answer['evacuation']['moves'][0]['flavor'])
        # The flavor made for it is in no list.
        self.assertFalse(any(f['id'].startswith('whatif-evacuated')
                             for f in answer['results']['flavors']))
        # h2 keeps 2 GiB: no small (4 GiB) there, 8 on h3.
        self.assertEqual({'total': 16, 'available': 8},
                         self.flavor(answer, 'small')['after'])

    def test_added_gpu_host_and_new_flavor(self):
        answer = self.answer({
            'add': [{'like': 'h3'}],
            'flavors': [{'name': 'g4', 'vcpus': 4, 'ram': 1024, 'disk': 1,
                         'extra_specs': {'pci_passthrough:alias':
                                         'A100:2'}}]})
        g4 = self.flavor(answer, 'g4')
        self.assertTrue(g4['added'])
        self.assertEqual({'total': 2, 'available': 2}, g4['after'])
        a100 = answer['results']['gpus'][0]
        self.assertEqual(('A100', 2, 4), (a100['type'],
                                          a100['before']['total'],
                                          a100['after']['total']))

    def test_too_many_servers_to_evacuate(self):
        client = type('Client', (), {'get_all': lambda self, *a, **k: [{}]
                                     * (docs.MAX_EVACUATED + 1)})()
        answers = worker.Whatif.__new__(worker.Whatif)
        snapshot = cloud()
        exc = self.assertRaises(
            checks.InvalidRequest, answers.compute, None, snapshot,
            parse({'drain': [{'hosts': ['h1'], 'servers': 'evacuate'}]}),
            client)
        self.assertIn('evacuates at most', str(exc))

    def test_unknown_host_is_invalid(self):
        answers = worker.Whatif.__new__(worker.Whatif)
        self.assertRaises(checks.InvalidRequest, answers.compute, None,
                          cloud(), parse({'drain': [{'hosts': ['x']}]}),
                          None)


class TestOrderIsTheSelectors(sets.CheckTestCase):

    def test_hosts_in_order_given(self):
        snapshot = cloud()
        applied = whatif.apply(snapshot, wr.WhatIf(drain=(
            wr.Drain(wr.Selector(hosts=('h2', 'h1')), wr.EVACUATE),)))
        self.assertEqual(['h2', 'h1'], applied.evacuated)


class TestBorrowedFits(sets.CheckTestCase):
    """The refresh's group fits, reused: the same figures as computed."""

    def figures(self, report):
        return [(f.flavor.id, f.total, f.available, f.zones, f.limited_by,
                 f.excluded, f.per_host.columns()) for f in report.flavors]

    def test_a_drain_takes_rows_of_the_refresh(self):
        snapshot = model.Snapshot('placement', sample_cloud.many_flavors(12),
                                  sample_cloud.many_hosts(80))
        options = engine.Options()
        base = vector_fit.Fits()
        engine.compute(snapshot, options, base)
        # The hosts are of one shape: one group, which the drained,
        # removed or changed hosts leave; added hosts join it (computed).
        for body, reused in (
                ({'drain': [{'hosts': ['cmp%03d' % i
                                       for i in range(0, 80, 7)]}]}, True),
                ({'remove': [{'availability_zone': 'az1'}]}, True),
                ({'change': [{'hosts': ['cmp001'],
                              'allocation_ratio': {'VCPU': 2}}]}, True),
                ({'remove': [{'availability_zone': 'az1'}],
                  'add': [{'like': 'cmp003', 'count': 3}]}, False)):
            changed = whatif.apply(snapshot, parse(body)).snapshot
            borrowed = whatif.Borrowed(base)
            self.assertEqual(
                self.figures(engine.compute(changed, options)),
                self.figures(engine.compute(changed, options, borrowed)),
                body)
            self.assertEqual(reused, borrowed.borrowed > 0, body)

    def test_rows_whose_usage_changed_are_computed(self):
        snapshot = model.Snapshot('placement', sample_cloud.many_flavors(4),
                                  sample_cloud.many_hosts(10))
        options = engine.Options()
        base = vector_fit.Fits()
        engine.compute(snapshot, options, base)
        changed = whatif.moved(snapshot, {}, {'cmp002'})
        borrowed = whatif.Borrowed(base)
        self.assertEqual(
            self.figures(engine.compute(changed, options)),
            self.figures(engine.compute(changed, options, borrowed)))
        self.assertGreater(borrowed.computed, 0)
