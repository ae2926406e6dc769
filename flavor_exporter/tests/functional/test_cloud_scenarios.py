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

"""The scenario files parse and mean what they say (no cloud started)."""

import glob
import os

from flavor_exporter.tests import base
from testcloud import scenario

SHIPPED = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(
    os.path.join(scenario.SCENARIO_DIR, '*.yaml')))


class ScenarioFilesTest(base.BaseTestCase):

    def test_required_scenarios_are_shipped(self):
        for name in ('predecessor', 'mixed_gpu', 'vgpu', 'pci_placement',
                     'disabled_host', 'down_host', 'large50'):
            self.assertIn(name, SHIPPED)

    def test_every_shipped_scenario_parses(self):
        for name in SHIPPED:
            loaded = scenario.load(name)
            self.assertEqual(name, loaded.name)
            self.assertTrue(loaded.hosts)
            self.assertIn('PciPassthroughFilter', loaded.enabled_filters)

    def test_predecessor(self):
        pred = scenario.load('predecessor')
        gpu1 = pred.host('gpu1')
        self.assertEqual('gpu1.denbi.example.org', gpu1.node)
        self.assertEqual((scenario.PciDevice('10de', '1db4', 2),),
                         gpu1.pci_devices)
        gpu = [a for a in pred.aggregates if a.name == 'GPU V100'][0]
        self.assertEqual({'gpu': 'True', 'gpu_count': '2',
                          'gpu_type': 'V100'}, gpu.metadata)
        flavor = pred.flavor('de.NBI 2 GPU V100 large')
        self.assertEqual('V100:2', flavor.extra_specs['pci_passthrough:alias'])
        self.assertFalse(pred.flavor('de.NBI private GPU').is_public)

    def test_large50_expands_counted_hosts(self):
        hosts = scenario.load('large50').hosts
        self.assertEqual(50, len(hosts))
        self.assertEqual('c01', hosts[0].name)
        self.assertEqual('c01.example.org', hosts[0].node)
        self.assertEqual('g10', hosts[-1].name)


class ScenarioValidationTest(base.BaseTestCase):

    HOST = {'name': 'h', 'vcpus': 4, 'memory_mb': 4096, 'local_gb': 10}

    def test_unknown_key_is_an_error(self):
        host = dict(self.HOST, vpcus=4)
        self.assertRaisesRegex(scenario.ScenarioError, 'vpcus',
                               scenario.parse, {'hosts': [host]})

    def test_missing_key_is_an_error(self):
        host = dict(self.HOST)
        del host['vcpus']
        self.assertRaisesRegex(scenario.ScenarioError, 'vcpus',
                               scenario.parse, {'hosts': [host]})

    def test_unknown_host_in_aggregate(self):
        self.assertRaisesRegex(
            scenario.ScenarioError, 'unknown host nope', scenario.parse,
            {'hosts': [self.HOST],
             'aggregates': [{'name': 'a', 'hosts': ['nope']}]})

    def test_unknown_flavor_in_servers(self):
        self.assertRaisesRegex(
            scenario.ScenarioError, 'unknown flavor', scenario.parse,
            {'hosts': [self.HOST], 'servers': [{'flavor': 'nope'}]})

    def test_defaults(self):
        parsed = scenario.parse({'hosts': [self.HOST],
                                 'flavors': [{'name': 'f', 'vcpus': 1,
                                              'ram': 512}]})
        self.assertEqual('h', parsed.hosts[0].node)
        self.assertEqual(scenario.DEFAULT_FILTERS, parsed.enabled_filters)
        self.assertFalse(parsed.pci_in_placement)
        flavor = parsed.flavor('f')
        self.assertEqual((0, 0, 0, True), (flavor.disk, flavor.ephemeral,
                                           flavor.swap, flavor.is_public))

    def test_preloaded_flavors_need_default_flavors(self):
        data = {'hosts': [self.HOST], 'servers': [{'flavor': 'm1.tiny'}]}
        self.assertRaisesRegex(scenario.ScenarioError, 'unknown flavor',
                               scenario.parse, data)
        data['default_flavors'] = True
        self.assertTrue(scenario.parse(data).default_flavors)

    def test_duplicate_host_names(self):
        self.assertRaisesRegex(scenario.ScenarioError, 'unique',
                               scenario.parse,
                               {'hosts': [self.HOST, self.HOST]})
