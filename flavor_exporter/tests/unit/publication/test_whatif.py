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
"""The what-if's contract: bodies read, refused, repeated."""

from flavor_exporter.common import whatif_request as wr
from flavor_exporter.publication import whatif
from flavor_exporter.tests import base

BODY = {
    'drain': [{'hosts': ['c1', 'c2', 'c1'], 'servers': 'evacuate'},
              {'aggregate': 'rack-7'}],
    'add': [{'like': 'gpu-17', 'count': 2, 'aggregates': ['a100'],
             'availability_zone': 'az-gpu'}],
    'remove': [{'availability_zone': 'old'}],
    'change': [{'aggregate': 'general', 'allocation_ratio': {'VCPU': 8},
                'reserved': {'MEMORY_MB': 8192}}],
    'flavors': [{'flavor': 'm1.large', 'vcpus': 8,
                 'extra_specs': {'hw:cpu_policy': None}},
                {'name': 'g.new', 'vcpus': 4, 'ram': 8192, 'disk': 0}]}


class TestParse(base.BaseTestCase):

    def test_every_change(self):
        found = whatif.parse(BODY)
        self.assertEqual((wr.Drain(wr.Selector(hosts=('c1', 'c2')),
                                   wr.EVACUATE),
                          wr.Drain(wr.Selector(aggregate='rack-7'),
                                   wr.STAY)), found.drain)
        self.assertEqual((wr.Add('gpu-17', 2, (), ('a100',), 'az-gpu'),),
                         found.add)
        self.assertEqual((wr.Selector(availability_zone='old'),),
                         found.remove)
        self.assertEqual((wr.HostChange(wr.Selector(aggregate='general'),
                                        (('VCPU', 8.0),),
                                        (('MEMORY_MB', 8192),)),),
                         found.change)
        self.assertEqual(
            (wr.FlavorChange('m1.large', None, (('vcpus', 8),),
                             (('hw:cpu_policy', None),)),
             wr.FlavorChange(None, 'g.new', (('disk', 0), ('ram', 8192),
                                             ('vcpus', 4)))),
            found.flavors)

    def test_canonical_reads_back_as_the_same(self):
        # The API sends the worker the canonical body, which parses alike.
        found = whatif.parse(BODY)
        self.assertEqual(found, whatif.parse(whatif.canonical(found)))
        self.assertEqual(whatif.identity(found),
                         whatif.identity(whatif.parse(
                             whatif.canonical(found))))

    def test_equal_changes_equal_ids(self):
        one = whatif.parse({'drain': [{'hosts': ['a']}]})
        two = whatif.parse({'drain': [{'hosts': ['a'], 'servers': 'stay'}]})
        other = whatif.parse({'drain': [{'hosts': ['a'],
                                         'servers': 'evacuate'}]})
        self.assertEqual(whatif.identity(one), whatif.identity(two))
        self.assertNotEqual(whatif.identity(one), whatif.identity(other))

    def assertRefused(self, body, words):
        exc = self.assertRaises(whatif.InvalidWhatIf, whatif.parse, body)
        self.assertIn(words, str(exc))

    def test_refusals_say_what_to_change(self):
        self.assertRefused([], 'must be a JSON object')
        self.assertRefused({}, 'changes nothing')
        self.assertRefused({'drian': []}, 'unknown key(s) drian')
        self.assertRefused({'drain': [{'hosts': ['a'], 'aggregate': 'x'}]},
                           'exactly one of')
        self.assertRefused({'drain': [{}]}, 'exactly one of')
        self.assertRefused({'drain': [{'hosts': []}]}, 'non-empty list')
        self.assertRefused({'drain': [{'hosts': ['a'], 'servers': 'go'}]},
                           '"stay"')
        self.assertRefused({'add': [{'count': 2}]}, '"like"')
        self.assertRefused({'add': [{'like': 'a', 'count': 0}]},
                           'at least 1')
        self.assertRefused({'add': [{'like': 'a', 'count': 2,
                                     'names': ['x']}]}, 'list of 2 host')
        self.assertRefused({'add': [{'like': 'a', 'count': 2,
                                     'names': ['x', 'x']}]}, 'repeats')
        self.assertRefused({'change': [{'hosts': ['a']}]}, 'changes nothing')
        self.assertRefused({'change': [{'hosts': ['a'], 'allocation_ratio':
                                        {'VCPU': 0}}]}, 'above 0')
        self.assertRefused({'change': [{'hosts': ['a'], 'reserved':
                                        {'VCPU': -1}}]}, 'at least 0')
        self.assertRefused({'flavors': [{'name': 'x', 'vcpus': 1}]},
                           'a new flavor needs')
        self.assertRefused({'flavors': [{'flavor': 'x', 'extra_specs':
                                         {'a': 1}}]}, 'object of strings')
        self.assertRefused({'flavors': [{'flavor': 'x', 'is_public': 1}]},
                           'true or false')

    def test_bounds(self):
        self.assertRefused({'drain': [{'hosts': ['h']}] * 51},
                           'at most 50')
        self.assertRefused({'drain': [{'hosts': ['h%d' % i
                                                 for i in range(1001)]}]},
                           '1001 host names')
        self.assertRefused({'add': [{'like': 'a', 'count': 600}] * 2},
                           '1200 hosts added')


class TestWithoutHosts(base.BaseTestCase):

    def test_names_become_counts_and_moves_lose_hosts(self):
        document = {whatif.WHATIF: {
            'hosts': {'drained': ['a', 'b'], 'added': []},
            'evacuation': {'moves': [{'server': 's', 'from': 'a', 'to': 'c',
                                      'tied_with': ['d'],
                                      'availability_zone': 'z'}],
                           'not_placed': [{'server': 't', 'from': 'b',
                                           'reason': 'r'}]}}}
        hidden = whatif.without_hosts(document)[whatif.WHATIF]
        self.assertEqual({'drained': 2, 'added': 0}, hidden['hosts'])
        self.assertEqual([{'server': 's', 'availability_zone': 'z'}],
                         hidden['evacuation']['moves'])
        self.assertEqual([{'server': 't', 'reason': 'r'}],
                         hidden['evacuation']['not_placed'])
