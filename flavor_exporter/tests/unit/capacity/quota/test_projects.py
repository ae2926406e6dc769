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
"""Tenant aggregates, quota headroom and startable, per project."""

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.filters import instance_caps
from flavor_exporter.capacity.filters import tenancy
from flavor_exporter.capacity import model
from flavor_exporter.capacity.quota import projects
from flavor_exporter.capacity.quota import quota
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity.test_engine import compute_host
from flavor_exporter.tests.unit.capacity.test_engine import flavor
from flavor_exporter.worker import projects as worker_projects

HOST_FILTER = tenancy.TenantIsolation(host_filter=True)
REQUEST_FILTER = tenancy.TenantIsolation(request_filter=True)
REQUIRED = tenancy.TenantIsolation(request_filter=True, required=True)


def cloud():
    """a (open, az1), b (filter_tenant_id=p1,p2, az1), c (p3 only, az2).

    16 VCPUs each, a 4-VCPU flavor: 4 per host.
    """
    dedicated = {'filter_tenant_id': 'p1,p2'}
    third = {'filter_tenant_id2': 'p3'}
    hosts = [compute_host('a', 'az1'),
             compute_host('b', 'az1', aggregates=[('ab', dedicated)]),
             compute_host('c', 'az2', aggregates=[('ac', third)])]
    aggregates = [model.Aggregate('ab', dedicated),
                  model.Aggregate('ac', third),
                  model.Aggregate('empty', {'filter_tenant_id': 'p4'})]
    return hosts, aggregates


def report(isolation, flavors=None, **options):
    hosts, aggregates = cloud()
    snapshot = model.Snapshot('placement', flavors or [flavor('f')], hosts,
                              aggregates=aggregates)
    return engine.compute(snapshot, engine.Options(tenancy=isolation,
                                                   **options))


def legacy(instances=-1, cores=-1, ram=-1, used=(0, 0, 0), **kwargs):
    return quota.ProjectQuota(
        quota.DB, limits={'instances': instances, 'cores': cores,
                          'ram': ram},
        in_use=dict(zip(quota.LEGACY, used)), **kwargs)


def one(isolation, project, quota_reading=None, flavors=None):
    """{flavor name: its entry} of the project's document."""
    found = worker_projects.document(
        quota.Counting(), report(isolation, flavors), project,
        quota_reading or quota.ProjectQuota(quota.NOOP), isolation)
    return {f['name']: f for f in found['flavors']}


class TestCloudWide(base.BaseTestCase):

    def test_off_counts_every_host(self):
        result = report(tenancy.OFF).flavors[0]
        self.assertEqual((12, 12), (result.total, result.available))
        self.assertEqual([0, 0], result.reserved)

    def test_host_filter_reserves_named_hosts(self):
        result = report(HOST_FILTER).flavors[0]
        # Only a is open to a project named nowhere.
        self.assertEqual((4, 4), (result.total, result.available))
        self.assertEqual([8, 8], result.reserved)
        self.assertEqual({'az1': [4, 4], 'az2': [0, 0]}, result.zones)

    def test_request_filter_alone_reserves_nothing(self):
        # Projects named in aggregates are kept to them; everybody else
        # may still use every host.
        result = report(REQUEST_FILTER).flavors[0]
        self.assertEqual((12, 12), (result.total, result.available))
        self.assertEqual([0, 0], result.reserved)

    def test_required_excludes_hosts_of_no_tenant_aggregate(self):
        result = report(REQUIRED).flavors[0]
        self.assertEqual((0, 0), (result.total, result.available))
        self.assertEqual([8, 8], result.reserved)
        self.assertEqual(1, result.excluded[tenancy.NO_PROJECT])


class TestProjectHosts(base.BaseTestCase):

    def test_host_filter(self):
        self.assertEqual(8, one(HOST_FILTER, 'p1')['f']['available'])
        self.assertEqual(8, one(HOST_FILTER, 'p3')['f']['available'])
        other = one(HOST_FILTER, 'p9')['f']
        self.assertEqual(4, other['available'])
        self.assertEqual(
            {'reserved for other projects (filter_tenant_id)': 2},
            other['excluded_hosts'])

    def test_request_filter_keeps_named_projects_to_their_hosts(self):
        self.assertEqual(4, one(REQUEST_FILTER, 'p3')['f']['available'])
        # "p1,p2" is one value: get_by_metadata does not split it.
        self.assertEqual(12, one(REQUEST_FILTER, 'p1')['f']['available'])
        self.assertEqual(12, one(REQUEST_FILTER, 'p9')['f']['available'])
        # An aggregate without hosts confines its project to nothing.
        self.assertEqual(0, one(REQUEST_FILTER, 'p4')['f']['available'])

    def test_required(self):
        self.assertEqual(0, one(REQUIRED, 'p9')['f']['available'])
        self.assertEqual(4, one(REQUIRED, 'p3')['f']['available'])

    def test_both_filters(self):
        both = tenancy.TenantIsolation(host_filter=True,
                                       request_filter=True)
        self.assertEqual(4, one(both, 'p3')['f']['available'])
        self.assertEqual(8, one(both, 'p1')['f']['available'])
        self.assertEqual(4, one(both, 'p9')['f']['available'])

    def test_private_flavors_only_when_shared(self):
        private = model.Flavor('id-p', 'p', vcpus=4, ram=4096, disk=10,
                               is_public=False, projects=('p1',))
        flavors = [flavor('f'), private]
        self.assertEqual({'f', 'p'}, set(one(tenancy.OFF, 'p1', None,
                                             flavors)))
        self.assertEqual({'f'}, set(one(tenancy.OFF, 'p2', None, flavors)))


class TestInstanceCaps(base.BaseTestCase):

    def test_a_project_meets_the_caps_too(self):
        # Every host capped at 3 instances: 3 of the 4 a host fits.
        capped = report(HOST_FILTER, instance_caps=instance_caps.Caps(
            num_instances_filter=True, max_instances_per_host=3))
        found = worker_projects.document(
            quota.Counting(), capped, 'p1', quota.ProjectQuota(quota.NOOP),
            HOST_FILTER)['flavors'][0]
        self.assertEqual(6, found['available'])
        self.assertEqual({'az1': 6, 'az2': 0}, {
            zone: figures['available']
            for zone, figures in found['availability_zones'].items()})


class TestStartable(base.BaseTestCase):

    def test_quota_limits(self):
        # 16 cores, 4 used: 3 more 4-VCPU instances of the 12 that fit.
        found = one(tenancy.OFF, 'p1', legacy(cores=16, used=(1, 4, 0)))
        f = found['f']
        self.assertEqual((12, 3, 3), (f['available'],
                                      f['quota']['headroom'],
                                      f['startable']))
        self.assertEqual(('cores', 'quota'),
                         (f['quota']['limited_by'],
                          f['startable_limited_by']))

    def test_capacity_limits_and_unlimited(self):
        f = one(HOST_FILTER, 'p9', legacy())['f']
        self.assertIsNone(f['quota']['headroom'])
        self.assertEqual((4, 'capacity'), (f['startable'],
                                           f['startable_limited_by']))

    def test_per_zone(self):
        f = one(HOST_FILTER, 'p1', legacy(instances=5, used=(0, 0, 0)))['f']
        self.assertEqual({'az1': {'total': 8, 'available': 8,
                                  'startable': 5},
                          'az2': {'total': 0, 'available': 0,
                                  'startable': 0}},
                         f['availability_zones'])
        self.assertEqual(5, f['startable'])


class TestParts(base.BaseTestCase):
    """What changes with each refresh, and what with a quota reading."""

    def test_flavors_alike_share_a_footprint(self):
        flavors = [flavor('a'), flavor('b'),
                   model.Flavor('c', 'c', vcpus=8, ram=4096, disk=10)]
        result = report(tenancy.OFF, flavors)
        of_flavor, prints = projects.footprints(result)
        self.assertEqual(2, len(prints))
        self.assertEqual(of_flavor['id-a'], of_flavor['id-b'])
        self.assertNotEqual(of_flavor['id-a'], of_flavor['c'])
        # Without a quota system every flavor counts the same.
        of_flavor, prints = projects.footprints(
            result, quota.Counting(quota.NOOP))
        self.assertEqual(1, len(prints))

    def test_patterns_are_few(self):
        default, named = projects.patterns(report(HOST_FILTER), HOST_FILTER)
        self.assertEqual({'p1', 'p2', 'p3', 'p4', 'p1,p2'}, set(named))
        # p1 and p2 may use the same hosts; p4 the open ones only, as
        # every project no aggregate names.
        self.assertEqual(named['p1'], named['p2'])
        self.assertEqual(default, named['p4'])
        self.assertEqual(3, len({default, *named.values()}))
        self.assertEqual((set(), 0), (projects.named_projects(
            report(tenancy.OFF), tenancy.OFF), 0))

    def test_headroom_per_footprint(self):
        result = report(tenancy.OFF, [flavor('a'), flavor('b')])
        _, prints = projects.footprints(result)
        found = projects.headrooms(legacy(cores=16, used=(1, 4, 0)),
                                   prints)
        self.assertEqual([(3, 'cores')],
                         [(h.instances, h.limited_by) for h in found])
