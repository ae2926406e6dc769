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

import json

from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.worker import hypervisors_source
from flavor_exporter.worker import openstack
from flavor_exporter.worker import placement_source
from flavor_exporter.worker import refresh
from testcloud import oracle
from testcloud import scenario as scenario_mod

# nova.conf options that the hypervisors source must be told about.
_CAPACITY_OPTIONS = ('cpu_allocation_ratio', 'ram_allocation_ratio',
                     'disk_allocation_ratio', 'reserved_host_memory_mb',
                     'reserved_host_disk_mb', 'reserved_host_cpus')


class OracleTests:
    """The oracle test, for a TestCase that names scenario and sources.

    A mixin, so that it is not collected without a scenario.
    """

    scenario = None
    sources = ('placement', 'hypervisors')

    def setUp(self):
        super().setUp()
        self.spec = scenario_mod.load(self.scenario)
        self.cloud = self.useFixture(fe_fixtures.Cloud(self.scenario)).cloud
        self.conn = self.cloud.connection()
        self.flags(group='pci', alias=[json.dumps(alias) for alias
                                       in self.spec.pci_aliases])
        nova_defaults = self.spec.config.get('DEFAULT', {})
        self.flags(group='capacity', **{
            name: value for name, value in nova_defaults.items()
            if name in _CAPACITY_OPTIONS})

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
                if reported != booted:
                    found.append('%s: %s says %s=%d, Nova booted %d'
                                 % (name, source, field, reported, booted))
        return found

    def test_numbers_match_nova(self):
        reports = self.reports()
        problems = self.mismatches(reports, 'available')
        if self.spec.servers:
            servers = list(self.conn.compute.servers(all_projects=True))
            oracle.delete_servers(self.conn, [s.to_dict() for s in servers])
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


class TestVgpuOracle(OracleTests, base.TestCase):
    scenario = 'vgpu'
    # VGPU children exist in Placement only.
    sources = ('placement',)


class TestPciInPlacementOracle(OracleTests, base.TestCase):
    scenario = 'pci_placement'
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
