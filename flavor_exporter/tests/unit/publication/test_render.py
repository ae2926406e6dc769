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
"""The renderer writes what the contract (publication/contract.py) names."""

import json
from unittest import mock

import numpy

from flavor_exporter.capacity import engine
from flavor_exporter.capacity import model
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import render
from flavor_exporter.tests import base
from flavor_exporter.tests import sample_cloud


class TestDocuments(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.docs, self.pointer = sample_cloud.documents()

    def decoded(self, name):
        return json.loads(self.docs[name])

    def test_names_are_the_contracts(self):
        everyone = ['1', 'bad', 'g1', 'g2', 'index']
        expected = ({pub.SEED_LIST, pub.LEGACY_LIST, pub.V3_NAMES,
                     pub.METRICS, pub.ACCESS, pub.UNREADABLE,
                     pub.FOOTPRINTS, pub.PROJECT_PATTERNS,
                     pub.v3_list(), pub.v3_list(True), pub.v3_list(False)}
                    | {pub.v3_flavor(i) for i in everyone}
                    | {pub.v3_flavor_hosts(i) for i in everyone}
                    | {pub.legacy_flavor(i) for i in ('g1', 'g2')}
                    | {pub.hosts_page(0), pub.V3_GPUS, pub.LEGACY_GPUS}
                    | {name(t) for t in ('a100', 'v100') for name in (
                        pub.v3_gpu, pub.v3_gpu_hosts, pub.legacy_gpu)})
        self.assertEqual(expected, set(self.docs))

    def test_every_document_is_encoded_as_the_contract_says(self):
        for name, body in self.docs.items():
            if name != pub.METRICS:
                self.assertEqual(pub.encode(json.loads(body)), body, name)

    def test_fields_the_api_reads(self):
        listed = self.decoded(pub.V3_LIST)
        self.assertIs(False, listed[pub.STALE])
        # The publisher stamps when the content was first seen.
        self.assertEqual(pub.COLLECTED_AT, listed[pub.TIMESTAMP])
        large = {f[pub.ID]: f for f in listed[pub.FLAVORS]}['1']
        self.assertEqual('m1.large', large[pub.NAME])
        self.assertEqual((8, 7), (large[pub.TOTAL], large[pub.AVAILABLE]))
        self.assertEqual({'az1': {pub.TOTAL: 4, pub.AVAILABLE: 3,
                                  pub.FRAGMENTED: 0},
                          'az2': {pub.TOTAL: 4, pub.AVAILABLE: 4,
                                  pub.FRAGMENTED: 0}},
                         large[pub.ZONES])
        self.assertEqual(0, large[pub.FRAGMENTED])
        one = self.decoded(pub.v3_flavor('1'))
        # The one-flavor document: the list's entry, and the detail.
        detail = dict(one[pub.FLAVOR])
        self.assertEqual({'group_policy': None,
                          'request_groups': [{
                              'suffix': '', 'required_traits': [],
                              'forbidden_traits': [],
                              'resources': {'DISK_GB': 40,
                                            'MEMORY_MB': 16384,
                                            'VCPU': 8}}]},
                         {k: detail.pop(k) for k in (
                             'group_policy', 'request_groups')})
        # m1.large fits 3 + 4 now, and the free resources pooled no more.
        self.assertEqual({pub.POOLED: 7}, detail.pop(pub.FRAGMENTATION))
        self.assertEqual(large, detail)
        self.assertNotIn('request_groups', large)
        # What only administrators see is apart.
        hosts = self.decoded(pub.v3_flavor_hosts('1'))
        self.assertEqual({'compute service disabled': 1},
                         hosts[pub.EXCLUDED])
        self.assertEqual({pub.EXCLUDED: {}, pub.POSITION: [],
                          pub.TOTAL: [], pub.AVAILABLE: [],
                          pub.LIMITED_BY: [], pub.LABELS: [],
                          pub.FRAGMENTS: []},
                         self.decoded(pub.v3_flavor_hosts('bad')))
        names = self.decoded(pub.V3_NAMES)
        self.assertEqual('index', names['collection'])

    def test_legacy_shape(self):
        legacy = self.decoded(pub.LEGACY_LIST)
        self.assertEqual([pub.FLAVORS, pub.TIMESTAMP], list(legacy))
        # The publisher stamps when its numbers were first seen.
        self.assertEqual(pub.LEGACY_COLLECTED_AT, legacy[pub.TIMESTAMP])
        self.assertEqual({pub.FLAVOR: legacy[pub.FLAVORS][1],
                          pub.TIMESTAMP: pub.LEGACY_COLLECTED_AT},
                         self.decoded(pub.legacy_flavor('g1')))
        self.assertEqual(
            [{pub.LEGACY_ID: 'g2', 'flavor_name': 'GPU.V100-small',
              pub.AVAILABLE: 2, pub.TOTAL: 2},
             {pub.LEGACY_ID: 'g1', 'flavor_name': 'gpu.a100',
              pub.AVAILABLE: 2, pub.TOTAL: 4}], legacy[pub.FLAVORS])

    def test_gpu_lists_split_the_whole_list(self):
        ids = {gpu: [f[pub.ID] for f in
                     self.decoded(pub.v3_list(gpu))[pub.FLAVORS]]
               for gpu in (None, True, False)}
        self.assertEqual(['g2', 'g1'], ids[True])
        self.assertEqual(sorted(ids[None]), sorted(ids[True] + ids[False]))

    def test_access_lists_the_private_flavors(self):
        flavors = sample_cloud.flavors() + [
            model.Flavor('p1', 'shared', 1, 1, 1, is_public=False,
                         projects=('b', 'a')),
            model.Flavor('p2', 'unknown', 1, 1, 1, is_public=False)]
        docs, _ = sample_cloud.documents(flavors)
        self.assertEqual({'p1': ['b', 'a'], 'p2': None},
                         json.loads(docs[pub.ACCESS]))

    def test_metrics(self):
        text = self.docs[pub.METRICS].decode()
        self.assertIn('flavor_exporter_flavor_available{flavor_id="1",'
                      'flavor_name="m1.large",gpu="false"} 7\n', text)
        self.assertIn('flavor_exporter_flavor_invalid{flavor_id="bad"} 1',
                      text)
        self.assertIn('flavor_exporter_flavor_capacity{flavor_id="1",'
                      'flavor_name="m1.large",gpu="false"} 8\n', text)
        self.assertIn('flavor_exporter_flavor_zone_capacity{flavor_id="g1",'
                      'flavor_name="gpu.a100",availability_zone="az1"} 4\n',
                      text)
        self.assertIn('flavor_exporter_flavor_zone_available{flavor_id="1",'
                      'flavor_name="m1.large",availability_zone="az1"} 3\n',
                      text)
        # Invalid flavors have no capacity samples, only their flag.
        self.assertNotIn('flavor_id="bad",', text)

    def test_metrics_os_capacity_compatible(self):
        # stackhpc/os-capacity's name, labels and meaning (free capacity).
        text = self.docs[pub.METRICS].decode()
        self.assertIn('# TYPE openstack_free_capacity_by_flavor_total gauge',
                      text)
        self.assertIn('openstack_free_capacity_by_flavor_total{'
                      'flavor_name="gpu.a100",public="True"} 2\n', text)

    def test_list_document_is_the_published_list_stamped(self):
        report = sample_cloud.report()
        docs, pointer = render.documents(report)
        for gpu in (None, True, False):
            self.assertEqual(
                pub.stamp(docs[pub.v3_list(gpu)], pub.COLLECTED_AT,
                          pointer[pub.TIMESTAMP]),
                render.list_document(report, gpu))

    def test_gpu_list_document_is_the_published_list_stamped(self):
        report = sample_cloud.report()
        docs, pointer = render.documents(report)
        self.assertEqual(pub.stamp(docs[pub.V3_GPUS], pub.COLLECTED_AT,
                                   pointer[pub.TIMESTAMP]),
                         render.gpu_list_document(report))


class TestGpuDocuments(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.docs, _pointer = sample_cloud.documents()

    def test_types_and_their_hosts_apart(self):
        listed = json.loads(self.docs[pub.V3_GPUS])[pub.GPUS]
        self.assertEqual(['a100', 'v100'], [t[pub.TYPE] for t in listed])
        one = json.loads(self.docs[pub.v3_gpu('v100')])
        self.assertEqual(listed[1], one[pub.GPU])
        self.assertNotIn(pub.HOSTS, one[pub.GPU])
        # Positions into the host index: cmp001 and cmp002.
        self.assertEqual({pub.POSITION: [1, 2], pub.TOTAL: [2, 2],
                          pub.USED: [0, 0], pub.FREE: [2, 2],
                          pub.STRANDED: [0, 2], pub.BLOCKED_BY: [-1, 0],
                          pub.LABELS: ['compute service disabled']},
                         json.loads(self.docs[pub.v3_gpu_hosts('v100')]))

    def test_type_names_cannot_collide_with_their_hosts(self):
        self.assertNotEqual(pub.v3_gpu('a/hosts'), pub.v3_gpu_hosts('a'))
        self.assertEqual('v3/gpu/VGPU%3ACUSTOM_A', pub.v3_gpu('VGPU:CUSTOM_A'))

    def test_legacy_shape(self):
        # The predecessor's first openapi.yaml, schema "GPU".
        self.assertEqual([{'type': 'a100', 'used_slots': 2, 'free_slots': 2,
                           'total_slots': 4},
                          {'type': 'v100', 'used_slots': 0, 'free_slots': 4,
                           'total_slots': 4}],
                         json.loads(self.docs[pub.LEGACY_GPUS]))
        self.assertEqual(json.loads(self.docs[pub.LEGACY_GPUS])[0],
                         json.loads(self.docs[pub.legacy_gpu('a100')]))

    def test_metrics_per_type_and_zone(self):
        text = self.docs[pub.METRICS].decode()
        for line in (
                'flavor_exporter_gpu_devices{gpu_type="v100",'
                'availability_zone="az2"} 4',
                'flavor_exporter_gpu_devices_used{gpu_type="a100",'
                'availability_zone="az1"} 2',
                'flavor_exporter_gpu_devices_free{gpu_type="v100",'
                'availability_zone="az2"} 4',
                'flavor_exporter_gpu_devices_stranded{gpu_type="a100",'
                'availability_zone="az1"} 0',
                'flavor_exporter_gpu_devices_stranded_by{gpu_type="v100",'
                'availability_zone="az2",'
                'blocked_by="compute service disabled"} 2'):
            self.assertIn('\n%s\n' % line, text)
        # Never a series per host.
        self.assertNotIn('cmp00', text)
        self.assertEqual(2, text.count('flavor_exporter_gpu_devices{'))


class TestEncodedHosts(base.BaseTestCase):
    """Per-host documents of unchanged numbers are not encoded again."""

    def test_the_next_refresh_takes_what_did_not_change(self):
        encoded = render.EncodedHosts()
        first, _ = render.documents(sample_cloud.report(), encoded)
        # A new report of the same cloud: new objects, the same numbers.
        with mock.patch.object(render, '_encoded_hosts') as encode:
            again, _ = render.documents(sample_cloud.report(), encoded)
        encode.assert_not_called()
        self.assertEqual(first, again)

    def test_changed_numbers_are_encoded_again(self):
        encoded = render.EncodedHosts()
        render.documents(sample_cloud.report(), encoded)
        hosts = sample_cloud.hosts()
        hosts.pop()
        changed, _ = render.documents(sample_cloud.report(host_list=hosts),
                                      encoded)
        self.assertEqual(changed, render.documents(
            sample_cloud.report(host_list=hosts))[0])

    def test_only_the_last_refresh_is_kept(self):
        encoded = render.EncodedHosts()
        render.documents(sample_cloud.report(), encoded)
        kept = len(encoded._last)
        render.documents(sample_cloud.report(), encoded)
        self.assertEqual(kept, len(encoded._last))


class TestPerHostEncoding(base.BaseTestCase):
    """Per-host documents written column by column: pub.encode's bytes."""

    @staticmethod
    def reference(capacity):
        valid = capacity.request is not None
        positions, totals, available, labels, codes = (
            capacity.per_host.columns() if valid else ([], [], [], [], []))
        return pub.encode({
            pub.POSITION: positions, pub.TOTAL: totals,
            pub.AVAILABLE: available, pub.LIMITED_BY: codes,
            pub.LABELS: labels,
            pub.EXCLUDED: dict(sorted(capacity.excluded.items())),
            pub.FRAGMENTS: render._fragments(capacity)})

    def test_every_flavor_of_the_sample(self):
        kinds = set()
        # The engine's per-group path and its host-by-host reference.
        reference = engine.reference_compute(sample_cloud.snapshot(),
                                             engine.Options())
        for capacity in sample_cloud.report().flavors + reference.flavors:
            kinds.add(type(capacity.per_host).__name__
                      if capacity.request is not None else 'invalid')
            self.assertEqual(self.reference(capacity),
                             render._encoded_hosts(capacity))
            if capacity.request is not None:
                arrays = capacity.per_host.arrays()
                self.assertEqual(
                    list(capacity.per_host.columns()),
                    [a if isinstance(a, list) else a.tolist()
                     for a in arrays])
        # Both ways the engine counts, and a flavor Nova refuses.
        self.assertEqual({'HostNumbers', 'HostRows', 'invalid'}, kinds)

    def test_int_list(self):
        for values in ([], [0], [-1, 0, 1, 9, 10, 65535], [65536, 3],
                       [-2, 5], [123456789012]):
            for array in (values, numpy.array(values, dtype=numpy.int64),
                          numpy.array(values, dtype=numpy.int32)
                          if all(abs(v) < 2 ** 31 for v in values)
                          else values):
                self.assertEqual(pub.encode(values),
                                 render._int_list(array), values)
