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

"""engine.compute (host groups, numpy) against engine.reference_compute.

Random small clouds, seeded so that a failure can be replayed: a few host
models each shared by several hosts with their own usages (overcommitted
ones too), nested children with limits and traits, GPU pools, disabled and
down hosts, aggregates, clouds without zones; flavors with numbered groups,
both group policies, traits, PCI aliases in Placement and in pools.
"""

import random

import fixtures

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity.fit import vector_fit
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.publication import render
from flavor_exporter.tests import base

ALIASES = pci_alias.parse_aliases([
    '{"name": "X", "resource_class": "CUSTOM_PCI_X"}',
    '{"name": "P100", "vendor_id": "10de", "product_id": "15f8"}'])
TRAITS = ('CUSTOM_T1', 'CUSTOM_T2', fit.MANAGED_PCI_TRAIT)
CHILD_CLASSES = ('VGPU', 'CUSTOM_PCI_X', 'CUSTOM_X')


def _inventory(rng, total):
    return model.Inventory(
        total, reserved=rng.choice((0, 0, 1)),
        min_unit=rng.choice((1, 1, 1, 2)),
        max_unit=rng.choice((0, total, max(1, total // 2), 3)),
        step_size=rng.choice((1, 1, 1, 2)),
        allocation_ratio=rng.choice((1.0, 1.0, 1.5, 4.0)))


def _traits(rng):
    return frozenset(t for t in TRAITS if rng.random() < 0.3)


def _model(rng):
    """A provider tree template: [(parent index, inventories, traits)]."""
    root = {'VCPU': _inventory(rng, rng.randint(2, 16)),
            'MEMORY_MB': _inventory(rng, rng.choice((4096, 8192))),
            'DISK_GB': _inventory(rng, rng.randint(10, 100))}
    if rng.random() < 0.3:
        root['CUSTOM_X'] = _inventory(rng, rng.randint(1, 8))
    tree = [(None, root, _traits(rng))]
    for _ in range(rng.choice((0, 0, 1, 2, 3))):
        rc = rng.choice(CHILD_CLASSES)
        tree.append((0, {rc: _inventory(rng, rng.randint(1, 6))},
                     _traits(rng)))
    pools = [model.GpuPool('P100', rng.randint(1, 4))
             for _ in range(rng.choice((0, 0, 1)))]
    return tree, pools


def _host(rng, index, template, zones):
    tree, pools = template
    providers = []
    for number, (parent, inventories, traits) in enumerate(tree):
        usages = {rc: rng.randint(0, inv.capacity + 2)
                  if rng.random() < 0.6 else 0
                  for rc, inv in inventories.items()}
        if number == 0 and rng.random() < 0.1:
            traits = traits | {engine.DISABLED_TRAIT}
        providers.append(model.Provider(
            'h%d-p%d' % (index, number), 'h%d-p%d' % (index, number),
            parent_uuid=None if parent is None else 'h%d-p%d' % (index,
                                                                 parent),
            inventories=dict(inventories), usages=usages, traits=traits))
    # Labels most flavors do not read (a cell, a rack per host), one
    # some flavors read, and group_policy, which AggregateInstanceExtra
    # SpecsFilter reads as an unscoped key of flavors that set it.
    aggregates = [model.Aggregate('cell', {'cell': 'cell%d' % rng.randint(
        1, 3), 'rack': 'rack-%d' % index})]
    if rng.random() < 0.3:
        aggregates.append(model.Aggregate('fast', {'fast': rng.choice(
            ('true', 'true, nvme', 'false'))}))
    if rng.random() < 0.2:
        aggregates.append(model.Aggregate('policy', {
            'group_policy': rng.choice(('none', 'isolate'))}))
    if rng.random() < 0.25:
        # isolate_aggregates reads these (when enabled), whatever the
        # flavors.
        aggregates.append(model.Aggregate('isolated', {
            'trait:%s' % rng.choice(TRAITS[:2]): rng.choice(
                ('required', 'required', 'preferred'))}))
    return model.Host(
        'host-%d' % index, 'node-%d' % index,
        enabled=rng.random() > 0.1, up=rng.random() > 0.1,
        availability_zone=rng.choice(zones),
        aggregates=aggregates,
        providers=providers if rng.random() > 0.03 else [],
        gpu_pools=[model.GpuPool(p.gpu_type, p.count,
                                 rng.randint(0, p.count + 1))
                   for p in pools])


def _flavor(rng, index):
    specs = {}
    groups = rng.choice((0, 0, 1, 2, 3))
    for number in range(1, groups + 1):
        rc = rng.choice(('VGPU', 'CUSTOM_X', 'VCPU', 'CUSTOM_PCI_X'))
        specs['resources%d:%s' % (number, rc)] = str(rng.randint(1, 3))
        if rng.random() < 0.2:
            specs['trait%d:%s' % (number, rng.choice(TRAITS))] = (
                rng.choice(('required', 'forbidden')))
    if groups > 1 or rng.random() < 0.2:
        specs['group_policy'] = rng.choice(('none', 'isolate'))
    if rng.random() < 0.2:
        specs['resources:VGPU'] = str(rng.randint(1, 2))
    if rng.random() < 0.2:
        specs['trait:%s' % rng.choice(TRAITS)] = rng.choice(
            ('required', 'forbidden'))
    if rng.random() < 0.15:
        # Nothing from the compute node unless CUSTOM_X is there: Nova
        # keeps no candidate otherwise (fit._root_rule).
        specs.update({'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
                      'resources:DISK_GB': '0'})
        if rng.random() < 0.5:
            specs['resources:CUSTOM_X'] = str(rng.randint(1, 2))
    if rng.random() < 0.25:
        specs['pci_passthrough:alias'] = '%s:%d' % (
            rng.choice(('X', 'P100')), rng.randint(1, 2))
    if rng.random() < 0.1:
        specs['aggregate_instance_extra_specs:fast'] = rng.choice(
            ('true', '<in> nvme'))
    if rng.random() < 0.03:
        specs['aggregate_instance_extra_specs:cell'] = 's>= cell2'
    return model.Flavor('id-%d' % index, 'flavor-%02d' % index,
                        vcpus=rng.randint(1, 4),
                        ram=rng.choice((512, 1024, 2048)),
                        disk=rng.randint(0, 20), extra_specs=specs)


def snapshot(seed):
    rng = random.Random(seed)
    templates = [_model(rng) for _ in range(rng.randint(1, 3))]
    # The sources give every host a zone (the default one at least), so
    # hosts without one come alone: render cannot sort None among names.
    zones = rng.choice((('az1', 'az2'), ('az1',), (None,)))
    hosts = [_host(rng, i, rng.choice(templates), zones)
             for i in range(rng.randint(1, 10))]
    flavors = [_flavor(rng, j) for j in range(12)]
    # Two flavors with the same request share their numbers.
    flavors.append(model.Flavor('id-copy', 'flavor-copy', flavors[0].vcpus,
                                flavors[0].ram, flavors[0].disk,
                                extra_specs=dict(flavors[0].extra_specs)))
    return model.Snapshot('placement', flavors, hosts)


def _view(capacity):
    return (capacity.flavor.name, capacity.total, capacity.available,
            capacity.zones, capacity.excluded, capacity.limited_by,
            capacity.hosts, capacity.error,
            capacity.request.unsupported if capacity.request else None)


class TestFastPathMatchesReference(base.BaseTestCase):

    def test_random_clouds(self):
        one_by_one = self.useFixture(fixtures.MockPatchObject(
            vector_fit, 'fit_hosts', wraps=vector_fit.fit_hosts)).mock
        shapes, reasons = set(), set()
        for seed in range(200):
            # One cloud in four as if AggregateInstanceExtraSpecsFilter
            # were off: then no aggregate label matters.
            # One in three with [capacity]
            # enable_isolated_aggregate_filtering.
            options = engine.Options(
                aliases=ALIASES, aggregate_instance_extra_specs=seed % 4 != 3,
                isolate_aggregates=seed % 3 == 1)
            cloud = snapshot(seed)
            fast = engine.compute(cloud, options)
            slow = engine.reference_compute(cloud, options)
            self.assertEqual([_view(c) for c in slow.flavors],
                             [_view(c) for c in fast.flavors],
                             'seed %d' % seed)
            self.assertEqual(render.documents(slow),
                             render.documents(fast), 'seed %d' % seed)
            for capacity in fast.flavors:
                shapes.add(capacity.limited_by)
                reasons.update(capacity.excluded)
        # The random clouds reach what the test is about: both paths,
        # nested classes, GPU pools, hosts limited by no single class,
        # hosts that aggregate metadata excludes.
        self.assertGreater(one_by_one.call_count, 20)
        self.assertIn('aggregate metadata does not match', reasons)
        self.assertIn(engine.ISOLATED, reasons)
        self.assertTrue({None, 'VGPU', 'CUSTOM_PCI_X', 'VCPU',
                         'GPU_AGGREGATE'} <= shapes, shapes)

    def test_identical_hosts_share_a_group(self):
        cloud = snapshot(7)
        twins = [model.Host('a', 'a', providers=[model.Provider(
            'pa', 'pa', inventories={'VCPU': model.Inventory(8)},
            usages={'VCPU': used})]) for used in (0, 3, 8)]
        cloud.hosts = twins
        fast = engine.compute(cloud, engine.Options(aliases=ALIASES))
        slow = engine.reference_compute(cloud,
                                        engine.Options(aliases=ALIASES))
        self.assertEqual([_view(c) for c in slow.flavors],
                         [_view(c) for c in fast.flavors])


class TestFitsReused(base.BaseTestCase):
    """What a worker's next refresh reuses gives the same numbers."""

    def test_refreshes_with_changing_usages(self):
        options = engine.Options(aliases=ALIASES, isolate_aggregates=True)
        fits = vector_fit.Fits()
        rng = random.Random(3)
        reused = []
        for seed in range(20):
            cloud = snapshot(seed)
            for refresh in range(4):
                providers = [p for h in cloud.hosts for p in h.providers]
                if refresh == 3 and providers:
                    # One host's usage moves: only its group is fitted
                    # again.
                    provider = rng.choice(providers)
                    for rc in provider.inventories:
                        provider.usages[rc] = rng.randint(0, 3)
                computed_before = fits.computed
                fast = engine.compute(cloud, options, fits)
                slow = engine.reference_compute(cloud, options)
                self.assertEqual([_view(c) for c in slow.flavors],
                                 [_view(c) for c in fast.flavors],
                                 'seed %d refresh %d' % (seed, refresh))
                self.assertEqual(render.documents(slow),
                                 render.documents(fast))
                reused.append((refresh, fits.reused, fits.computed,
                               computed_before))
        # Nothing changed: everything reused; the first refresh of a new
        # cloud computes everything.
        for refresh, hits, computed, _ in reused:
            if refresh in (1, 2):
                self.assertEqual(0, computed)
            if refresh == 0:
                self.assertEqual(0, hits)
        self.assertTrue(any(refresh == 3 and hits and computed
                            for refresh, hits, computed, _ in reused))
