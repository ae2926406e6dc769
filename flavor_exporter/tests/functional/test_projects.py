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

"""What a project can start, against Nova booting as that project.

The tenant_projects cloud: host-3 reserved for proj-b by filter_tenant_id
(AggregateMultiTenancyIsolation) and proj-b kept to it
(limit_tenants_to_placement_aggregate). Quotas are set through Nova's
os-quota-sets API. For each project and flavor, booting as the project
until Nova refuses (403 "Quota exceeded" or NoValidHost) starts exactly
the ``startable`` that flavor-exporter-report --project and the API say.
"""

import time

from flavor_exporter.tests.functional import test_commands
from testcloud import loopback
from testcloud import oracle

TENANT_LINES = ['[capacity]',
                'aggregate_multitenancy_isolation = true',
                'limit_tenants_to_placement_aggregate = true']
#: {project: Nova quota set}; proj-c keeps the cloud's unlimited ones.
QUOTAS = {'proj-a': {'instances': 3}, 'proj-b': {'cores': 4}}
#: {project: {flavor: (startable, limited by, refused by)}}.
EXPECTED = {
    # Hosts 1 and 2 (host-3 is proj-b's): 4 small, 8 tiny; 3 instances.
    'proj-a': {'small': (3, 'quota', 'quota'),
               'tiny': (3, 'quota', 'quota'),
               'private': (3, 'quota', 'quota')},
    # host-3 only: 2 small, 4 tiny; 4 cores.
    'proj-b': {'small': (1, 'quota', 'quota'),
               'tiny': (4, 'quota', 'quota')},
    # Unlimited, hosts 1 and 2.
    'proj-c': {'small': (4, 'capacity', 'no valid host')},
}


class TestProjectsOnTheCloud(test_commands.CommandsTestCase):

    scenario = 'tenant_projects'
    shared = False

    def setUp(self):
        super().setUp()
        self.admin = self.cloud.connection()
        for project, limits in QUOTAS.items():
            oracle.set_quota(self.admin, project, **limits)

    def startable(self, document):
        return {f['name']: (f['startable'], f['startable_limited_by'])
                for f in document['flavors']}

    def test_startable_is_what_nova_starts(self):
        config = self.write_config(lines=TENANT_LINES)
        cloud_wide = {f['name']: f for f in self.report(config)['flavors']}
        # host-3 is reserved for a named project: counted apart.
        self.assertEqual((4, 4, {'total': 2, 'available': 2}),
                         (cloud_wide['small']['total'],
                          cloud_wide['small']['available'],
                          cloud_wide['small']['reserved']))
        reports = {}
        for project in EXPECTED:
            started = time.monotonic()
            reports[project] = self.report(config, '--project', project)
            print('report --project %s: %.1f s' % (
                project, time.monotonic() - started))
        for project, flavors in EXPECTED.items():
            found = self.startable(reports[project])
            for name, (startable, limited_by, _why) in flavors.items():
                self.assertEqual((startable, limited_by), found[name],
                                 (project, name, reports[project]))
        self.assertEqual(
            'instances',
            {f['name']: f for f in reports['proj-a']['flavors']}[
                'small']['quota']['limited_by'])
        self.assertEqual(['dedicated'],
                         reports['proj-b']['tenant_isolation'][
                             'aggregates'])
        # The private flavor is proj-a's alone.
        self.assertNotIn('private', self.startable(reports['proj-c']))
        # The hypervisors source counts the same.
        legacy_config = self.write_config_file(
            'hypervisors.conf', '[openstack]\ncloud = %s\n'
            '[capacity]\nsource = hypervisors\n' % self.cloud.cloud_name,
            self.spec.pci_aliases, lines=TENANT_LINES)
        for project in EXPECTED:
            self.assertEqual(
                self.startable(reports[project]),
                self.startable(self.report(legacy_config, '--project',
                                           project)), project)

        # The API answers the same, through the worker and memcached.
        self.start('flavor-exporter-worker', config)
        self.start('flavor-exporter-api', config)
        loopback.wait_for_port(self.port, timeout=60)
        self.wait_for('/v3/flavors/', timeout=120)
        for project in EXPECTED:
            started = time.monotonic()
            served = self.wait_for('/v3/projects/%s/flavors/' % project,
                                   timeout=60)
            print('first GET of %s: %.1f s' % (
                project, time.monotonic() - started))
            self.assertEqual(self.startable(reports[project]),
                             self.startable(served))
            self.assertEqual(project, served['project_id'])
            self.assertIsNotNone(served['quota_timestamp'])

        # Nova, booting as each project until it refuses.
        for project, flavors in EXPECTED.items():
            member = oracle.as_project(self.admin, project)
            for name, (startable, _limited_by, why) in flavors.items():
                fid = oracle.flavor_id(self.admin, name)
                started, refused = oracle.boot_until_refused(member, fid,
                                                             self.admin)
                self.assertEqual(startable, started, (project, name))
                if why is not None:
                    self.assertEqual(why, refused, (project, name))


class TestQuotaFromPlacement(test_commands.CommandsTestCase):
    """[quota] count_usage_from_placement, as in the cloud's nova.conf."""

    scenario = 'quota_from_placement'
    shared = False

    def test_headroom_counts_the_allocations(self):
        admin = self.cloud.connection()
        oracle.set_quota(admin, 'proj-q', cores=10)
        config = self.write_config(lines=[
            '[quota]', 'count_usage_from_placement = true'])
        flavor = {f['name']: f for f in self.report(
            config, '--project', 'proj-q')['flavors']}['override']
        # Each check adds 4 cores, each instance uses 2: 0, 2, 4, 6 + 4
        # pass, 8 + 4 does not.
        self.assertEqual((4, 'cores'), (flavor['quota']['headroom'],
                                        flavor['quota']['limited_by']))
        self.assertEqual(4, flavor['startable'])
        started, why = oracle.boot_until_refused(
            oracle.as_project(admin, 'proj-q'),
            oracle.flavor_id(admin, 'override'), admin)
        self.assertEqual((4, 'quota'), (started, why))
