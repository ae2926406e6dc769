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

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.filters import host_reads
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request import request
from flavor_exporter.tests import base


def _request(specs):
    return request.build_request(
        model.Flavor('f', 'f', 1, 512, 1, extra_specs=specs), {})


HOSTS = [model.Host('a', 'a', aggregates=[
    model.Aggregate('cell', {'cell': 'cell01', 'rack': 'r1'}),
    model.Aggregate('ssd', {'ssd': 'true', 'group_policy': 'none'})])]


class TestMetadataKeys(base.BaseTestCase):

    def test_keys_flavors_name_and_that_exist(self):
        requests = [_request({'aggregate_instance_extra_specs:ssd': 'true',
                              'aggregate_instance_extra_specs:gone': 'x'}),
                    _request({'resources1:VCPU': '1',
                              'group_policy': 'none'}),
                    _request({'hw:cpu_policy': 'shared'})]
        # group_policy is unscoped: the filter looks it up too.
        self.assertEqual(frozenset({'ssd', 'group_policy'}),
                         host_reads.metadata_keys(
                             requests, engine.Options(), HOSTS))

    def test_nothing_read_with_the_filter_off(self):
        requests = [_request({'aggregate_instance_extra_specs:ssd': 'true'})]
        self.assertEqual(frozenset(), host_reads.metadata_keys(
            requests, engine.Options(aggregate_instance_extra_specs=False),
            HOSTS))

    def test_host_metadata_of_the_keys_read(self):
        self.assertEqual({'ssd': {'true'}},
                         host_reads.host_metadata(HOSTS[0], {'ssd', 'x'}))
