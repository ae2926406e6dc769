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
from flavor_exporter.capacity import model
from flavor_exporter.capacity import projects
from flavor_exporter.capacity import quota
from flavor_exporter.capacity import tenancy
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity.test_engine import compute_host
from flavor_exporter.tests.unit.capacity.test_engine import flavor

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


def report(isolation, flavors=None):
    hosts, aggregates = cloud()
    snapshot = model.Snapshot('placement', flavors or [flavor('f')], hosts,
                              aggregates=aggregates)
    return engine.compute(snapshot, engine.Options(tenancy=isolation))


def legacy(instances=-1, cores=-1, ram=-1, used=(0, 0, 0), **kwargs):
    return quota.ProjectQuota(
        quota.DB, limits={'instances': instances, 'cores': cores,
                          'ram': ram},
        in_use=dict(zip(quota.LEGACY, used)), **kwargs)


def one(isolation, project, quota_reading=None, flavors=None):
    found = projects.compute(report(isolation, flavors), project,
                             quota_reading, isolation)
    return {f.capacity.flavor.name: f for f in found.flavors}


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
        self.assertEqual(8, one(HOST_FILTER, 'p1')['f'].available)
        self.assertEqual(8, one(HOST_FILTER, 'p3')['f'].available)
        other = one(HOST_FILTER, 'p9')['f']
        self.assertEqual(4, other.available)
        self.assertEqual(
            {'reserved for other projects (filter_tenant_id)': 2},
            other.excluded)

    def test_request_filter_keeps_named_projects_to_their_hosts(self):
        self.assertEqual(4, one(REQUEST_FILTER, 'p3')['f'].available)
        # "p1,p2" is one value: get_by_metadata does not split it.
        self.assertEqual(12, one(REQUEST_FILTER, 'p1')['f'].available)
        self.assertEqual(12, one(REQUEST_FILTER, 'p9')['f'].available)
        # An aggregate without hosts confines its project to nothing.
        self.assertEqual(0, one(REQUEST_FILTER, 'p4')['f'].available)

    def test_required(self):
        self.assertEqual(0, one(REQUIRED, 'p9')['f'].available)
        self.assertEqual(4, one(REQUIRED, 'p3')['f'].available)

    def test_both_filters(self):
        both = tenancy.TenantIsolation(host_filter=True,
                                       request_filter=True)
        self.assertEqual(4, one(both, 'p3')['f'].available)
        self.assertEqual(8, one(both, 'p1')['f'].available)
        self.assertEqual(4, one(both, 'p9')['f'].available)

    def test_private_flavors_only_when_shared(self):
        private = model.Flavor('id-p', 'p', vcpus=4, ram=4096, disk=10,
                               is_public=False, projects=('p1',))
        flavors = [flavor('f'), private]
        self.assertEqual({'f', 'p'}, set(one(tenancy.OFF, 'p1', None,
                                             flavors)))
        self.assertEqual({'f'}, set(one(tenancy.OFF, 'p2', None, flavors)))


class TestStartable(base.BaseTestCase):

    def test_quota_limits(self):
        # 16 cores, 4 used: 3 more 4-VCPU instances of the 12 that fit.
        found = one(tenancy.OFF, 'p1', legacy(cores=16, used=(1, 4, 0)))
        f = found['f']
        self.assertEqual((12, 3, 3), (f.available, f.headroom.instances,
                                      f.startable))
        self.assertEqual(('cores', projects.QUOTA),
                         (f.headroom.limited_by, f.limited_by))

    def test_capacity_limits_and_unlimited(self):
        f = one(HOST_FILTER, 'p9', legacy())['f']
        self.assertIsNone(f.headroom.instances)
        self.assertEqual((4, projects.CAPACITY), (f.startable,
                                                  f.limited_by))

    def test_per_zone(self):
        f = one(HOST_FILTER, 'p1', legacy(instances=5, used=(0, 0, 0)))['f']
        self.assertEqual({'az1': [8, 8], 'az2': [0, 0]}, f.zones)
        self.assertEqual(5, f.startable)
