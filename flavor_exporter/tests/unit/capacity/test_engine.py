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

import fixtures

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request import request
from flavor_exporter.tests import base

Inv = model.Inventory


def compute_host(name, zone='nova', vcpus=16, used_vcpus=0, traits=(),
                 aggregates=(), enabled=True, up=True):
    root = model.Provider('rp-' + name, name + '.example.org',
                          inventories={
                              'VCPU': Inv(vcpus, max_unit=vcpus),
                              'MEMORY_MB': Inv(65536, reserved=512),
                              'DISK_GB': Inv(1000)},
                          usages={'VCPU': used_vcpus},
                          traits=frozenset(traits))
    return model.Host(name, root.name, enabled=enabled, up=up,
                      availability_zone=zone, providers=[root],
                      aggregates=[model.Aggregate(n, m)
                                  for n, m in aggregates])


def flavor(name, vcpus=4, ram=4096, disk=10, **specs):
    return model.Flavor('id-' + name, name, vcpus=vcpus, ram=ram, disk=disk,
                        extra_specs={k.replace('__', ':'): v
                                     for k, v in specs.items()})


def compute(flavors, hosts, **options):
    snapshot = model.Snapshot('placement', flavors, hosts)
    return {c.flavor.name: c for c in
            engine.compute(snapshot, engine.Options(**options)).flavors}


class TestEngine(base.BaseTestCase):

    def test_zones_and_limits(self):
        hosts = [compute_host('a', 'az1'),
                 compute_host('b', 'az2', used_vcpus=8)]
        result = compute([flavor('f')], hosts)['f']
        # VCPU ratio 1.0 here: 16 / 4 = 4 per host; b has 8 used -> 2.
        self.assertEqual((8, 6), (result.total, result.available))
        self.assertEqual({'az1': [4, 4], 'az2': [4, 2]}, result.zones)
        self.assertEqual('VCPU', result.limited_by)
        self.assertEqual(['a', 'b'], [h.host for h in result.hosts])

    def test_zones_without_capacity_are_listed_with_zero(self):
        hosts = [compute_host('a', 'az1'),
                 compute_host('b', 'az2', vcpus=2)]
        result = compute([flavor('f')], hosts)['f']
        self.assertEqual({'az1': [4, 4], 'az2': [0, 0]}, result.zones)
        self.assertEqual({'does not fit': 1}, result.excluded)

    def test_aggregate_extra_specs(self):
        hosts = [compute_host('a', aggregates=[('ssd', {'ssd': 'true'})]),
                 compute_host('b')]
        flavors = [flavor('ssd', aggregate_instance_extra_specs__ssd='true')]
        self.assertEqual(4, compute(flavors, hosts)['ssd'].total)
        self.assertEqual(
            8, compute(flavors, hosts,
                       aggregate_instance_extra_specs=False)['ssd'].total)

    def test_required_root_traits(self):
        hosts = [compute_host('a', traits={'COMPUTE_SECURITY_TPM_2_0'}),
                 compute_host('b')]
        req = request.ResourceRequest(
            groups=[request.RequestGroup({'VCPU': 4})],
            root_required=frozenset({'COMPUTE_SECURITY_TPM_2_0'}))
        self.assertIsNone(engine._exclusion(hosts[0], req, engine.Options(),
                                            {}))
        self.assertEqual('compute node lacks required traits',
                         engine._exclusion(hosts[1], req, engine.Options(),
                                           {}))

    def test_disabled_trait_down_and_disabled_services(self):
        hosts = [compute_host('a', traits={'COMPUTE_STATUS_DISABLED'}),
                 compute_host('b', enabled=False),
                 compute_host('c', up=False),
                 compute_host('d')]
        result = compute([flavor('f')], hosts)['f']
        self.assertEqual(4, result.total)
        self.assertEqual({'compute service disabled': 2,
                          'compute service down': 1}, result.excluded)

    def test_skipped_and_disabled_flavors(self):
        flavors = [flavor('old DEPRECATED'), flavor('legacy-x'),
                   flavor('keep')]
        flavors.append(model.Flavor('off', 'off', 1, 1, 1, disabled=True))
        names = compute(flavors, [compute_host('a')],
                        skip_patterns=('DEPRECATED', '^legacy-'))
        self.assertEqual(['keep'], list(names))

    def test_invalid_flavor_is_reported_with_no_numbers(self):
        result = compute([flavor('bad', hw__cpu_policy='maybe')],
                         [compute_host('a')])['bad']
        self.assertIsNone(result.request)
        self.assertIn('hw:cpu_policy', result.error)
        self.assertEqual([], result.hosts)

    def test_groups_summed_against_max_unit(self):
        # VCPU max_unit 8 on host a: two groups of 6 never land there.
        hosts = [compute_host('a'), compute_host('b')]
        hosts[0].providers[0].inventories['VCPU'] = Inv(16, max_unit=8)
        specs = {'resources1__VCPU': '6', 'resources2__VCPU': '6',
                 'group_policy': 'none'}
        result = compute([flavor('f', vcpus=12, **specs)], hosts,
                         aggregate_instance_extra_specs=False)['f']
        self.assertEqual((1, 1), (result.total, result.available))
        self.assertEqual({'does not fit': 1}, result.excluded)
        self.assertEqual([], result.request.unsupported)

    def test_counts_it_cannot_prove_maximal_are_flagged(self):
        # No assignment may be tried: the count stops at 0, below the
        # bound of the groups taken alone.
        self.useFixture(fixtures.MockPatchObject(fit, '_SEARCH_BUDGET', 0))
        specs = {'resources1__VCPU': '3', 'resources__VCPU': '2'}
        result = compute([flavor('f', **specs)], [compute_host('a')])['f']
        self.assertEqual(0, result.total)
        self.assertEqual([engine.UNCERTAIN], result.request.unsupported)


class TestUnreadableHosts(base.BaseTestCase):

    def test_excluded_from_every_flavor_with_the_reason(self):
        broken = model.Host('b', 'b.example.org', availability_zone='nova',
                            unreadable='resource provider b: answered 500')
        hosts = [compute_host('a'), broken, compute_host('c')]
        snapshot = model.Snapshot('placement', [flavor('f'), flavor('g', 2)],
                                  hosts)
        options = engine.Options()
        for report in (engine.compute(snapshot, options),
                       engine.reference_compute(snapshot, options)):
            self.assertEqual({'b': 'resource provider b: answered 500'},
                             report.unreadable)
            for result in report.flavors:
                self.assertEqual({engine.UNREADABLE: 1}, result.excluded)
                self.assertEqual(['a', 'c'], [h.host for h in result.hosts])
            self.assertEqual(8, report.flavors[0].total)

    def test_unreadable_host_is_not_grouped_with_a_readable_one(self):
        # Same (empty) shape otherwise: a host without providers.
        hosts = [model.Host('x', 'x'), model.Host('y', 'y', unreadable='?')]
        result = compute([flavor('f')], hosts)['f']
        self.assertEqual({'no resource provider': 1, engine.UNREADABLE: 1},
                         result.excluded)


class TestSourceNotes(base.BaseTestCase):

    def notes(self, specs, observable=None, pools=(), aliases=None):
        req = request.build_request(flavor('f', **specs), aliases or {})
        return engine.source_notes(req, observable, set(pools))

    def test_placement_sees_every_class(self):
        self.assertEqual([], self.notes({'resources__VGPU': '1'}))

    def test_class_the_source_cannot_see(self):
        seen = frozenset(['VCPU', 'MEMORY_MB', 'DISK_GB'])
        self.assertEqual([], self.notes({}, observable=seen))
        self.assertEqual(
            ['CUSTOM_FPGA, VGPU: not observable by this source (it sees '
             'DISK_GB, MEMORY_MB, VCPU); not counted, use the placement '
             'source'],
            self.notes({'resources__VGPU': '1',
                        'resources__CUSTOM_FPGA': '1'}, observable=seen))

    def test_pinned_flavor_counted_through_the_fallback(self):
        seen = frozenset(['VCPU', 'MEMORY_MB', 'DISK_GB'])
        self.assertEqual(['PCPU: not observable by this source; counted '
                          'through the VCPU fallback query only'],
                         self.notes({'hw__cpu_policy': 'dedicated'},
                                    observable=seen))

    def test_alias_not_configured(self):
        # Counted from the aggregates: exact, so nothing is unsupported;
        # counting_notes says how it was counted.
        counted = request.build_request(
            flavor('f', pci_passthrough__alias='V100:1'), {})
        self.assertEqual([], engine.source_notes(counted, None, {'V100'}))
        self.assertEqual(["PCI alias 'V100': GPUs counted from GPU host "
                          "aggregates (gpu_count, gpu_type); name it in "
                          "[pci] alias to count PCI devices reported to "
                          "Placement instead"],
                         engine.counting_notes(counted, {'V100'}))
        self.assertEqual([], engine.counting_notes(counted, {'A100'}))
        self.assertEqual(["PCI alias 'V100' is not in [pci] alias and no "
                          "GPU host aggregate offers it: nothing can be "
                          "counted"],
                         self.notes({'pci_passthrough__alias': 'V100:1'},
                                    pools=['A100']))


class TestTypeAffinity(base.BaseTestCase):
    """AggregateTypeAffinityFilter: instance_type names flavors."""

    def test_hosts_take_the_flavors_named(self):
        named = [('only-f', {'instance_type': 'f, other'})]
        hosts = [compute_host('a', aggregates=named),
                 compute_host('b', aggregates=[('free', {'rack': '4'})])]
        flavors = [flavor('f'), flavor('g')]
        for compute_ in (engine.compute, engine.reference_compute):
            report = compute_(model.Snapshot('placement', flavors, hosts),
                              engine.Options(type_affinity=True))
            found = {c.flavor.name: c for c in report.flavors}
            # 16 vCPUs / 4 = 4 per host; g may not use a.
            self.assertEqual(8, found['f'].total)
            self.assertEqual(4, found['g'].total)
            self.assertEqual({engine.TYPE_AFFINITY: 1}, found['g'].excluded)
            # Without the filter both count everywhere.
            report = compute_(model.Snapshot('placement', flavors, hosts),
                              engine.Options())
            self.assertEqual([8, 8], [c.total for c in report.flavors])

    def test_cloud_lines_on_every_flavor(self):
        report = engine.compute(
            model.Snapshot('placement', [flavor('f')], [compute_host('a')]),
            engine.Options(cloud_lines=('MetricsFilter ...',)))
        self.assertEqual(['MetricsFilter ...'],
                         report.flavors[0].request.unsupported)
