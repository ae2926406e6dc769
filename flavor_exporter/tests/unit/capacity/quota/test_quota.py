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
"""Quota headroom in instances, as Nova's two quota systems count it."""

from flavor_exporter.capacity import model
from flavor_exporter.capacity.quota import quota
from flavor_exporter.capacity.request import request
from flavor_exporter.tests import base


def make(vcpus=4, ram=8192, **specs):
    flavor = model.Flavor('f', 'f', vcpus=vcpus, ram=ram, disk=10,
                          extra_specs=specs)
    return flavor, request.build_request(flavor, {})


def legacy(limits, used=None, placement=False):
    return quota.ProjectQuota(quota.DB, limits=limits, in_use=used or {},
                              count_usage_from_placement=placement)


class TestLegacy(base.BaseTestCase):

    def headroom(self, reading, **flavor):
        return quota.headroom(reading, *make(**flavor))

    def test_smallest_named(self):
        found = self.headroom(legacy(
            {'instances': 10, 'cores': 20, 'ram': 81920},
            {'instances': 2, 'cores': 8, 'ram': 16384}))
        # instances 8, cores 12 / 4 = 3, ram 65536 / 8192 = 8.
        self.assertEqual((3, 'cores'), (found.instances, found.limited_by))

    def test_first_named_wins_a_tie(self):
        found = self.headroom(legacy({'instances': 3, 'cores': 12}))
        self.assertEqual((3, 'instances'),
                         (found.instances, found.limited_by))

    def test_unlimited(self):
        found = self.headroom(legacy({'instances': -1, 'cores': -1,
                                      'ram': -1}))
        self.assertIsNone(found.instances)
        self.assertIsNone(found.limited_by)

    def test_over_quota_is_zero(self):
        found = self.headroom(legacy({'ram': 4096}, {'ram': 0}))
        self.assertEqual((0, 'ram'), (found.instances, found.limited_by))

    def test_no_quota_system(self):
        self.assertIsNone(quota.headroom(None, *make()).instances)
        self.assertIsNone(quota.headroom(
            quota.ProjectQuota(quota.NOOP), *make()).instances)

    def test_count_usage_from_placement_adds_the_allocation(self):
        # resources:VCPU=2 allocates 2 though the flavor says 4: the check
        # adds 4 for the next instance, the usage grows by 2 each.
        found = quota.headroom(legacy({'cores': 10}, {'cores': 0},
                                      placement=True),
                               *make(**{'resources:VCPU': '2'}))
        self.assertEqual(4, found.instances)


class TestUnified(base.BaseTestCase):

    def reading(self, limits=None, registered=None, used=None,
                rules=quota.UnifiedRules()):
        return quota.ProjectQuota(quota.UNIFIED, limits=limits or {},
                                  registered=registered or {},
                                  in_use=used or {}, rules=rules)

    def test_project_limit_over_registered(self):
        found = quota.headroom(self.reading(
            {'class:VCPU': 12}, {'servers': 10, 'class:VCPU': 100,
                                 'class:MEMORY_MB': -1,
                                 'class:DISK_GB': -1},
            {'class:VCPU': 4}), *make())
        self.assertEqual((2, 'class:VCPU'),
                         (found.instances, found.limited_by))

    def test_unregistered_class_by_strategy(self):
        registered = {'servers': 5}
        found = quota.headroom(self.reading(registered=registered), *make())
        # require + only servers listed: other classes are not enforced.
        self.assertEqual((5, 'servers'), (found.instances,
                                          found.limited_by))
        self.assertTrue(found.notes)
        strict = quota.UnifiedRules(resource_list=(
            'servers', 'class:VCPU'))
        found = quota.headroom(self.reading(registered=registered,
                                            rules=strict), *make())
        self.assertEqual((0, 'class:VCPU'), (found.instances,
                                             found.limited_by))

    def test_before_2025_1_minus_one_refuses(self):
        old = quota.UnifiedRules(should_enforce=False)
        registered = {'servers': -1, 'class:VCPU': 100,
                      'class:MEMORY_MB': 100000, 'class:DISK_GB': 1000}
        found = quota.headroom(self.reading(registered=registered,
                                            rules=old), *make())
        self.assertEqual((0, 'servers'), (found.instances,
                                          found.limited_by))
