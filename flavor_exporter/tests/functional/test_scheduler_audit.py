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
"""The audit of doc/source/admin/scheduler-filters.rst, walked.

Every scheduler filter and request filter of each supported release's
Nova (asked of Nova itself) has an entry there: exact (modelled, with the
test that boots it), flagged (a line on the flavors it concerns: each is
triggered here), or irrelevant (the boot request, not capacity). No
other word is allowed, so nothing can change a number without a line.
"""

import os
import re
import subprocess

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity.test_engine import compute_host
from flavor_exporter.worker import refresh
from testcloud import cloud_venv
from testcloud import scenario as scenario_mod

DOC = os.path.join(cloud_venv.REPO_ROOT, 'doc', 'source', 'admin',
                   'scheduler-filters.rst')
TESTS = os.path.join(cloud_venv.REPO_ROOT, 'flavor_exporter', 'tests')
# A bullet ("* " and its indented lines): "``A``, ``B`` (note) -- **word**".
_BULLET = re.compile(r'^\* .*(?:\n  .*)*', re.M)
_WORD = re.compile(r'\*\*(\w+)\*\*')

# The unit tests of the request filters that flavor features add traits for.
_FEATURES = 'unit/capacity/request/test_flavor_features.py'
#: Where each exact entry is proven: an oracle scenario that runs it
#: (booting until NoValidHost), or the unit tests of its translation.
PROVEN = {
    'ComputeFilter': 'down_host', 'compute_status_filter': 'disabled_host',
    'AggregateInstanceExtraSpecsFilter': 'mixed_gpu',
    'PciPassthroughFilter': 'pci_placement',
    'NUMATopologyFilter': 'numa',
    'AggregateMultiTenancyIsolation': 'tenant_projects',
    'require_tenant_aggregate': 'tenant_projects',
    'AggregateTypeAffinityFilter': 'caps_and_zones',
    'NumInstancesFilter': 'caps_and_zones',
    'AggregateNumInstancesFilter': 'caps_and_zones',
    'map_az_to_placement_aggregate': 'caps_and_zones',
    'isolate_aggregates': 'scheduler_rules',
    'tpm_secret_security_filter': 'vtpm',
    'owner_nova_filter': 'unit/capacity/filters/test_cloud_filters.py',
    'accelerators_filter': _FEATURES,
    'packed_virtqueue_filter': _FEATURES,
    'ephemeral_encryption_filter': _FEATURES,
    'virtio_sound_filter': _FEATURES,
}


def audit():
    """{name: word} of every entry of the page."""
    with open(DOC) as f:
        text = f.read()
    found = {}
    for bullet in _BULLET.findall(text):
        names, dash, rest = ' '.join(bullet.split()).partition(' -- ')
        word = _WORD.search(rest)
        if dash and word:
            for name in re.findall(r'``(\w+)``', names):
                found[name] = word.group(1).lower()
    return found


def lines_of(flavor_specs, options=None, numa=None):
    """The unsupported lines of one flavor on one plain host."""
    host = compute_host('h')
    host.numa = numa
    flavor = model.Flavor('f', 'f', vcpus=2, ram=1024, disk=1,
                          extra_specs=flavor_specs)
    report = engine.compute(model.Snapshot('placement', [flavor], [host]),
                            options or engine.Options())
    return ' '.join(report.flavors[0].request.unsupported)


class TestSchedulerAudit(base.TestCase):

    def nova_filters(self, release):
        out = subprocess.run(
            [cloud_venv.python(release), '-c',
             'from nova.scheduler import filters, request_filter\n'
             'for c in filters.all_filters(): print(c.__name__)\n'
             'for f in request_filter.ALL_REQUEST_FILTERS:'
             ' print(f.__name__)'],
            check=True, capture_output=True, text=True, timeout=300).stdout
        return set(out.split())

    def test_every_filter_of_every_release_is_audited(self):
        found = audit()
        self.assertEqual(set(), set(found.values())
                         - {'exact', 'flagged', 'irrelevant'}, found)
        for release in cloud_venv.supported():
            self.assertEqual(set(), self.nova_filters(release) - set(found),
                             release)

    def test_each_exact_entry_is_proven(self):
        exact = {name for name, word in audit().items() if word == 'exact'}
        self.assertEqual(exact, set(PROVEN))
        for name, where in PROVEN.items():
            if '/' in where:
                self.assertTrue(os.path.exists(os.path.join(TESTS, where)),
                                where)
                continue
            spec = scenario_mod.load(where)
            if name[0].isupper():  # a scheduler filter: the scenario runs it
                self.assertIn(name, spec.enabled_filters, where)

    def test_each_flagged_entry_says_so(self):
        flagged = {name for name, word in audit().items()
                   if word == 'flagged'}
        conf = self.conf
        self.flags(group='capacity', metrics_filter=True,
                   default_schedule_zone='az1')
        numa_on = engine.Options(numa=numa_fit.Rules(enabled=True))
        alias = pci_alias.parse_aliases(
            ['{"name": "a100", "vendor_id": "10de", "product_id": "20b5"}'])
        triggers = {
            'ComputeCapabilitiesFilter': (
                lines_of({'capabilities:cpu_info:arch': 'x86_64'}),
                'ComputeCapabilitiesFilter'),
            'MetricsFilter': (
                lines_of({}, engine.Options(
                    cloud_lines=refresh.cloud_lines(conf))),
                'MetricsFilter'),
            'default_schedule_zone': (
                lines_of({}, engine.Options(
                    cloud_lines=refresh.cloud_lines(conf))),
                'default_schedule_zone'),
        }
        self.assertEqual(set(triggers), flagged)
        for name, (lines, said) in triggers.items():
            self.assertIn(said, lines, name)
        # Entries exact with a flagged part: the part's line.
        self.assertIn('cell_database_connections',
                      lines_of({'hw:numa_nodes': '1'}, numa_on))
        self.assertIn('vPMEM', lines_of({'hw:pmem': 'SMALL'}, numa_on))
        self.assertIn('count 0', lines_of(
            {'pci_passthrough:alias': 'a100:0'},
            engine.Options(aliases=alias)))
        self.assertIn('device profile', lines_of(
            {'accel:device_profile': 'fpga'}))
