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

"""The oracle: flavor-exporter's numbers equal what Nova really does.

For every flavor of every scenario, ``available`` must equal the number of
servers Nova starts before NoValidHost, and ``total`` the same count on the
scenario's cloud with its servers deleted. Each scenario gets a cloud of
its own, since the oracle boots and deletes servers.
"""

import glob
import json
import os
import uuid

from flavor_exporter.capacity.filters import tenancy
from flavor_exporter.conf import quota as quota_conf
from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.worker import hypervisors_source
from flavor_exporter.worker import openstack
from flavor_exporter.worker import placement_source
from flavor_exporter.worker import projects
from flavor_exporter.worker import quotas
from flavor_exporter.worker import refresh
from testcloud import cloud_venv
from testcloud import keystone_limits
from testcloud import oracle
from testcloud import placement_view
from testcloud import scenario as scenario_mod

# nova.conf [DEFAULT] options that [capacity] holds under their names.
_CAPACITY_OPTIONS = ('cpu_allocation_ratio', 'ram_allocation_ratio',
                     'disk_allocation_ratio', 'reserved_host_memory_mb',
                     'reserved_host_disk_mb', 'reserved_host_cpus',
                     'default_availability_zone')


class OracleTests:
    """The oracle test, for a TestCase that names scenario and sources.

    A mixin, so that it is not collected without a scenario.
    """

    scenario = None
    sources = ('placement', 'hypervisors')
    #: Flavors whose numbers depend on what Placement does not hold (NUMA
    #: cells): each must say so in its unsupported lines, and Nova may
    #: boot fewer than reported, never more.
    unmodelled = ()
    #: Whether the cloud runs with Keystone.
    keystone = False

    def setUp(self):
        super().setUp()
        self.spec = scenario_mod.load(self.scenario)
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            self.scenario, keystone=self.keystone)).cloud
        self.conn = self.cloud.connection()
        self.flags(group='pci', alias=[json.dumps(alias) for alias
                                       in self.spec.pci_aliases])
        nova_defaults = self.spec.config.get('DEFAULT', {})
        self.flags(group='capacity', **{
            name: value for name, value in nova_defaults.items()
            if name in _CAPACITY_OPTIONS})
        for group, options in fe_fixtures.mirrored_options(
                self.spec).items():
            self.flags(group=group, **options)
        if self.cloud.cell_database:
            # As a deployer opts in to NUMA-aware counts.
            self.flags(group='openstack', cell_database_connections=[
                self.cloud.cell_database])

    def report(self, source_name):
        client = openstack.CloudClient(self.conn)
        source = (placement_source.PlacementSource(self.conf)
                  if source_name == 'placement'
                  else hypervisors_source.HypervisorsSource(self.conf))
        refresher = refresh.Refresher(self.conf, client=client,
                                      source=source)
        return {c.flavor.name: c for c in refresher.compute().flavors}

    def reports(self):
        return {name: self.report(name) for name in self.sources}

    def mismatches(self, reports, field):
        """Boot every flavor until NoValidHost; list what disagrees."""
        found = []
        first = reports[self.sources[0]]
        for name, capacity in sorted(first.items()):
            self.assertIsNone(capacity.error, name)
            booted = oracle.boot_until_no_valid_host(self.conn, name)
            for source, report in reports.items():
                reported = getattr(report[name], field)
                if name in self.unmodelled:
                    if not report[name].request.unsupported:
                        found.append('%s: %s has no unsupported line'
                                     % (name, source))
                    if booted > reported:
                        found.append('%s: %s says %s=%d, Nova booted %d'
                                     % (name, source, field, reported,
                                        booted))
                elif reported != booted:
                    found.append('%s: %s says %s=%d, Nova booted %d'
                                 % (name, source, field, reported, booted))
        return found

    def test_numbers_match_nova(self):
        reports = self.reports()
        problems = self.mismatches(reports, 'available')
        if self.spec.servers:
            oracle.delete_servers(self.conn, oracle.all_servers(self.conn))
            # With its servers gone the cloud is empty: what boots now is
            # what the first refresh had to call total.
            problems += self.mismatches(reports, 'total')
            emptied = self.reports()
            for source, report in emptied.items():
                for name, capacity in report.items():
                    if capacity.available != capacity.total:
                        problems.append('%s: %s empty cloud available %d '
                                        '!= total %d' % (
                                            name, source,
                                            capacity.available,
                                            capacity.total))
        else:
            for source, report in reports.items():
                for name, capacity in report.items():
                    if capacity.total != capacity.available:
                        problems.append('%s: %s total %d != available %d '
                                        'on an idle cloud' % (
                                            name, source, capacity.total,
                                            capacity.available))
        self.assertEqual([], problems)


class TestPredecessorOracle(OracleTests, base.TestCase):
    scenario = 'predecessor'


class TestMixedGpuOracle(OracleTests, base.TestCase):
    scenario = 'mixed_gpu'
    # Per-host ratios and reservations live in Placement only.
    sources = ('placement',)


class TestSetChecksOracle(OracleTests, base.TestCase):
    """The set checks' cloud (test_set_checks) counts per flavor too."""

    scenario = 'set_checks'
    # cpu-b's VCPU allocation ratio lives in Placement only.
    sources = ('placement',)


class TestWhatifOracle(OracleTests, base.TestCase):
    """The what-if cloud (test_whatif) counts per flavor as it is."""

    scenario = 'whatif'


class TestVgpuOracle(OracleTests, base.TestCase):
    scenario = 'vgpu'
    # VGPU children exist in Placement only.
    sources = ('placement',)


class TestDisabledHostOracle(OracleTests, base.TestCase):
    scenario = 'disabled_host'


class TestDownHostOracle(OracleTests, base.TestCase):
    scenario = 'down_host'


class TestLargeCloudOracle(OracleTests, base.TestCase):
    scenario = 'large50'


class TestPcpuOracle(OracleTests, base.TestCase):
    scenario = 'pcpu'
    # PCPU inventory and NUMA topologies exist in Placement only.
    sources = ('placement',)


class TestUnitLimitsOracle(OracleTests, base.TestCase):
    scenario = 'unit_limits'
    # Inventory limits other than the totals exist in Placement only.
    sources = ('placement',)


class TestPinnedRamOvercommitOracle(OracleTests, base.TestCase):
    """The NUMA cell's memory caps pinned guests; Placement would say 7."""

    scenario = 'pcpu_ram_overcommit'
    sources = ('placement',)


class TestUsagesTwoWaysOracle(OracleTests, base.TestCase):
    scenario = 'usages_two_ways'
    sources = ('placement',)


class TestPciInPlacementOracle(OracleTests, base.TestCase):
    """PCI devices in Placement, beside another service's provider.

    As Cyborg or an operator would, a child provider with the class of the
    A100 alias is put under a GPU host and under a host without devices.
    Placement offers it; Nova 29 refuses it in PciPassthroughFilter (no
    PCI pool of the host maps to it), Nova 34 already in Placement (PCI
    groups require OWNER_NOVA). Counting it would make pci.a100.* higher.
    """

    scenario = 'pci_placement'
    sources = ('placement',)

    def setUp(self):
        super().setUp()
        rps = placement_view.providers(self.conn)
        for host in ('pgpu-2.example.org', 'cpu-1'):
            self._foreign_child(rps[host]['uuid'], 'fpga-' + host)

    def _foreign_child(self, parent, name):
        created = self.conn.placement.post('/resource_providers', json={
            'name': name, 'parent_provider_uuid': parent},
            microversion='1.20')
        self.assertEqual(200, created.status_code, created.text)
        provider = created.json()
        resp = self.conn.placement.put(
            '/resource_providers/%s/inventories' % provider['uuid'], json={
                'resource_provider_generation': provider['generation'],
                'inventories': {'CUSTOM_PCI_10DE_20B0': {'total': 2}}},
            microversion='1.20')
        self.assertEqual(200, resp.status_code, resp.text)


class TestGpuTypesOracle(OracleTests, base.TestCase):
    """Aggregate-counted PCI, PCI in Placement and VGPU in one cloud.

    The V100 computes do not report PCI to Placement and the scheduler
    does not ask it for PCI devices, as while a cloud moves its devices
    into Placement; test_cloud_gpu_types checks the GPU figures there.
    """

    scenario = 'gpu_types'
    # PCI in Placement and VGPU children exist in Placement only.
    sources = ('placement',)


class TestVtpmOracle(OracleTests, base.TestCase):
    scenario = 'vtpm'
    # TPM traits exist in Placement only.
    sources = ('placement',)


class TestSchedulerRulesOracle(OracleTests, base.TestCase):
    """Isolated aggregates, and a request taking nothing from the root.

    Before issue 19 the engine counted plain on both hosts (4, Nova 2)
    and vgpu.only on the VGPU children (2, Nova 0).
    """

    scenario = 'scheduler_rules'
    # VGPU children and traits exist in Placement only.
    sources = ('placement',)


class TestTenantProjectsOracle(OracleTests, base.TestCase):
    """A host reserved for proj-b: the admin's servers never land there.

    The cloud-wide numbers leave it out (it is counted as reserved);
    test_projects boots as each project.
    """

    scenario = 'tenant_projects'


class TestQuotaFromPlacementOracle(OracleTests, base.TestCase):
    scenario = 'quota_from_placement'
    # resources:VCPU overrides exist in Placement's terms only.
    sources = ('placement',)


class TestKeystoneLimitsOracle(OracleTests, base.TestCase):
    """Nova's quotas in Keystone: unified limits, on every release.

    The admin project, which the oracle boots as, gets limits no boot
    reaches; the other projects boot until Nova refuses them.
    """

    scenario = 'keystone_limits'
    #: Every project's, unless its own say otherwise.
    REGISTERED = {'servers': 6, 'class:VCPU': 40,
                  'class:MEMORY_MB': 100000, 'class:DISK_GB': 100000}
    #: {project: (its own limits, {flavor: (startable, limited by)})}.
    PROJECTS = {
        'p-servers': ({'servers': 3}, {'small': (3, 'servers'),
                                       'large': (3, 'servers')}),
        'p-vcpu': ({'class:VCPU': 8}, {'small': (4, 'class:VCPU'),
                                       'large': (1, 'class:VCPU')}),
        'p-ram': ({'class:MEMORY_MB': 5000},
                  {'small': (2, 'class:MEMORY_MB'),
                   'large': (1, 'class:MEMORY_MB')}),
        # The registered limits: 6 servers, 40 / 8 = 5 large.
        'p-default': ({}, {'small': (6, 'servers'),
                           'large': (5, 'class:VCPU')}),
    }

    # Nova reads the limits in Keystone.
    keystone = True

    def setUp(self):
        super().setUp()
        self.flags(group='quota', driver=quota_conf.UNIFIED_DRIVER)
        self.flags(group='capacity', nova_release=cloud_venv.selected())
        self.limits = keystone_limits.Admin(self.cloud)
        self.limits.registered_limits(self.REGISTERED)
        self.limits.project_limits(self.conn.current_project_id, {
            name: 100000 for name in self.REGISTERED})

    def test_each_project_starts_its_startable(self):
        client = openstack.CloudClient(self.conn)
        refresher = refresh.Refresher(
            self.conf, client=client,
            source=placement_source.PlacementSource(self.conf))
        report = refresher.compute()
        for name, (limits, expected) in self.PROJECTS.items():
            password = name + '-secret'
            project_id = self.limits.project(name, password)
            if limits:
                self.limits.project_limits(project_id, limits)
            document = projects.compute(self.conf, report, client,
                                        project_id, tenancy.OFF)
            found = {f['name']: (f['startable'],
                                 f['quota']['limited_by'])
                     for f in document['flavors']}
            self.assertEqual(expected, found, name)
            self.assertEqual('unified_limits',
                             document['quota']['system'])
            member = self.limits.member(name, password)
            for flavor, (startable, _) in expected.items():
                started, why = oracle.boot_until_refused(
                    member, flavor, self.conn)
                self.assertEqual((startable, 'quota'), (started, why),
                                 (name, flavor))
        # A project Keystone does not know: Nova says so (400), and the
        # API answers 404 from it.
        error = self.assertRaises(
            quotas.ProjectUnknown, quotas.QuotaReader(self.conf).read,
            client, uuid.uuid4().hex)
        self.assertIn('know no project', str(error))


class TestNumaOracle(OracleTests, base.TestCase):
    """Guest NUMA topologies on hosts of two and four NUMA cells.

    Before issue 29 every flavor here carried a "not modelled" line and
    Placement's count.
    """

    scenario = 'numa'
    # PCPU inventory exists in Placement only.
    sources = ('placement',)


class TestCapsAndZonesOracle(OracleTests, base.TestCase):
    """Instance caps per host, and a default zone Nova does not restrict.

    Before issue 29 the engine said 60 small servers fit (RAM alone, and
    a host whose aggregate names other flavors; Nova starts 5), and 0 for
    the zone "nova" (a down host; Nova starts 5 there: it restricts
    nothing).
    """

    scenario = 'caps_and_zones'
    ZONES = ('az-a', 'az-b', 'nova')

    def zone_mismatches(self, reports):
        found = []
        for name in sorted(reports[self.sources[0]]):
            for zone in self.ZONES:
                booted = oracle.boot_until_no_valid_host(
                    self.conn, name, availability_zone=zone)
                for source, report in reports.items():
                    # A zone a flavor has no figures in fits none of it.
                    reported = report[name].zones.get(zone, [0, 0])[1]
                    if reported != booted:
                        found.append('%s in %s: %s says %d, Nova booted %d'
                                     % (name, zone, source, reported,
                                        booted))
        return found

    def test_each_zone_starts_what_it_says(self):
        self.assertEqual([], self.zone_mismatches(self.reports()))
        # With n-1 disabled, no enabled compute is in "nova": Nova refuses
        # the zone (400), and the service has only n-1's figures there.
        oracle.disable_compute(self.conn, 'n-1')
        self.assertEqual([], self.zone_mismatches(self.reports()))


class TestDefragOracle(OracleTests, base.TestCase):
    """defrag.yaml: four hosts with 4 of 16 vCPUs free; frag.big fits none.

    test_defrag makes the plan that starts two with Nova.
    """

    scenario = 'defrag'


class TestEveryScenarioHasAnOracle(base.BaseTestCase):

    def test_every_scenario_file(self):
        # A scenario without an oracle test here would not be checked on
        # every release (tox -e functional-2024.1 runs this module).
        files = {os.path.splitext(os.path.basename(path))[0] for path in
                 glob.glob(os.path.join(scenario_mod.SCENARIO_DIR,
                                        '*.yaml'))}
        tested = {cls.scenario for cls in globals().values()
                  if isinstance(cls, type) and issubclass(cls, OracleTests)
                  and cls.scenario}
        self.assertEqual(sorted(files), sorted(tested))
