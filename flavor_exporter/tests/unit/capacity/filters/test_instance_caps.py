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
"""Instances per host: NumInstancesFilter, AggregateNumInstancesFilter."""

import dataclasses

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.filters import instance_caps
from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity import model
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity.test_engine import compute_host
from flavor_exporter.tests.unit.capacity.test_engine import flavor

BOTH = instance_caps.Caps(num_instances_filter=True,
                          aggregate_num_instances_filter=True,
                          max_instances_per_host=6)
AGGREGATE = instance_caps.Caps(aggregate_num_instances_filter=True,
                               max_instances_per_host=6)


def host(name, instances=0, **cap):
    found = compute_host(name, vcpus=64, aggregates=[
        ('capped-%s' % name, {'max_instances_per_host': str(v)})
        for v in cap.get('caps', ())])
    return dataclasses.replace(found, num_instances=instances)


class TestHostCap(base.BaseTestCase):

    def test_no_filter_no_cap(self):
        self.assertIsNone(instance_caps.host_cap(host('a', caps=[2]),
                                                 instance_caps.NONE))

    def test_num_instances_filter_takes_the_option(self):
        caps = instance_caps.Caps(num_instances_filter=True,
                                  max_instances_per_host=7)
        self.assertEqual(7, instance_caps.host_cap(host('a', caps=[2]),
                                                   caps))

    def test_aggregate_filter_takes_the_smallest_value(self):
        self.assertEqual(3, instance_caps.host_cap(host('a', caps=[3, 9]),
                                                   AGGREGATE))
        # None on the host's aggregates: the option.
        self.assertEqual(6, instance_caps.host_cap(host('a'), AGGREGATE))
        # One that is not a number: Nova falls back to the option.
        unreadable = host('a', caps=['lots', 2])
        self.assertEqual(6, instance_caps.host_cap(unreadable, AGGREGATE))

    def test_both_filters_the_smaller(self):
        self.assertEqual(6, instance_caps.host_cap(host('a', caps=[9]),
                                                   BOTH))
        self.assertEqual(2, instance_caps.host_cap(host('a', caps=[2]),
                                                   BOTH))


class TestCounted(base.BaseTestCase):

    def test_the_cap_bounds_and_names_itself(self):
        capped = dataclasses.replace(host('a', instances=1), max_instances=4)
        request = engine.request_mod.build_request(flavor('f', vcpus=1), {})
        self.assertEqual((3, fit.INSTANCES), fit.fit(request, capped))
        self.assertEqual(4, fit.fit(request, capped, empty=True)[0])
        # Full: as many instances as the cap, or more (the cap lowered).
        full = dataclasses.replace(capped, num_instances=5)
        self.assertEqual(0, fit.fit(request, full)[0])

    def test_fast_path_equals_the_reference(self):
        hosts = [host('a%d' % i, instances=i, caps=[4] if i % 3 else [])
                 for i in range(9)]
        hosts.append(host('b', instances=2, caps=[1, 8]))
        flavors = [flavor('small', vcpus=1, ram=512),
                   flavor('large', vcpus=16, ram=16384)]
        snapshot = model.Snapshot('placement', flavors, hosts)
        options = engine.Options(instance_caps=BOTH)
        fast = {c.flavor.name: (c.total, c.available, c.limited_by,
                                [(h.host, h.total, h.available, h.limited_by)
                                 for h in c.hosts])
                for c in engine.compute(snapshot, options).flavors}
        reference = {c.flavor.name: (c.total, c.available, c.limited_by,
                                     [(h.host, h.total, h.available,
                                       h.limited_by) for h in c.hosts])
                     for c in engine.reference_compute(snapshot,
                                                       options).flavors}
        self.assertEqual(reference, fast)
        total, available, limited_by, _ = fast['small']
        # a0..a8: caps 6 (i % 3 == 0) or 4, less the instances held;
        # b: 1.
        self.assertEqual((6 * 3 + 4 * 6 + 1, sum(
            max(0, (6 if i % 3 == 0 else 4) - i) for i in range(9)),
            fit.INSTANCES), (total, available, limited_by))
        # Without the filters the same hosts take 64 VCPUs' worth each.
        plain = engine.compute(snapshot, engine.Options()).flavors
        self.assertEqual(10 * 64, {c.flavor.name: c for c in plain}[
            'small'].total)


class TestUnrestrictedZones(base.BaseTestCase):
    """A boot into a zone no aggregate names is not restricted."""

    def report(self, hosts, aggregates=()):
        snapshot = model.Snapshot('placement', [flavor('f')], hosts,
                                  aggregates=list(aggregates))
        return engine.compute(snapshot, engine.Options())

    def zoned(self, name, zone='az1', **kwargs):
        # As the worker makes hosts: the zone of the zone aggregate.
        aggregate = ('zone-' + zone, {'availability_zone': zone})
        return compute_host(name, zone=zone, aggregates=[aggregate],
                            **kwargs)

    def test_the_default_zone_takes_the_cloud(self):
        # d is in no zone aggregate: "nova" is offered, and a boot into it
        # may land on a and b too.
        report = self.report([self.zoned('a'), self.zoned('b'),
                              compute_host('d', zone='nova', up=False)])
        self.assertEqual(['nova'], report.unrestricted_zones)
        f = report.flavors[0]
        self.assertEqual({'az1': [8, 8], 'nova': [8, 8]}, f.zones)

    def test_not_offered_without_an_enabled_service_in_it(self):
        report = self.report([self.zoned('a'),
                              compute_host('d', zone='nova', enabled=False)])
        self.assertEqual([], report.unrestricted_zones)
        self.assertEqual([0, 0], report.flavors[0].zones['nova'])
        report = self.report([self.zoned('a')])
        self.assertNotIn('nova', report.flavors[0].zones)

    def test_named_by_an_aggregate_it_is_that_aggregate(self):
        report = self.report([self.zoned('a'), self.zoned('n', zone='nova')])
        self.assertEqual([], report.unrestricted_zones)
        self.assertEqual({'az1': [4, 4], 'nova': [4, 4]},
                         report.flavors[0].zones)

    def test_the_reference_agrees(self):
        hosts = [self.zoned('a'), compute_host('d', zone='nova')]
        snapshot = model.Snapshot('placement', [flavor('f')], hosts)
        fast = engine.compute(snapshot, engine.Options()).flavors[0]
        reference = engine.reference_compute(
            snapshot, engine.Options()).flavors[0]
        self.assertEqual(reference.zones, fast.zones)
        self.assertEqual({'az1': [4, 4], 'nova': [8, 8]}, fast.zones)
