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

from unittest import mock

from flavor_exporter.common import clouds
from flavor_exporter.common import exceptions
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.worker import leadership
from flavor_exporter.worker import openstack


class TestConfigured(base.TestCase):

    def test_one_cloud_by_default_as_before(self):
        self.assertEqual(
            [clouds.Cloud('default', 'openstack', 'flavor-exporter')],
            clouds.configured(self.conf))
        self.assertEqual('', clouds.default(self.conf).log_prefix)

    def test_several_in_their_order_first_is_default(self):
        east, west = self.use_clouds('east', 'west')
        self.assertEqual(('east', 'cloud:east', 'flavor-exporter:east'),
                         tuple(east))
        self.assertEqual('flavor-exporter:west', west.key_prefix)
        self.assertEqual(east, clouds.default(self.conf))
        self.assertEqual('Cloud west: ', west.log_prefix)

    def test_default_cloud_named(self):
        found = self.use_clouds('east', 'west', default='west')
        self.assertEqual(['east', 'west'], [c.name for c in found])
        self.assertEqual('west', clouds.default(self.conf).name)

    def test_default_cloud_of_no_listed_cloud(self):
        error = self.assertRaises(exceptions.InvalidOption, self.use_clouds,
                                  'east', 'west', default='north')
        self.assertEqual('[DEFAULT] default_cloud = north is none of '
                         '[DEFAULT] clouds (east, west)', str(error))

    def test_default_cloud_without_clouds(self):
        self.flags(default_cloud='east')
        self.assertRaisesRegex(exceptions.InvalidOption,
                               r'\[DEFAULT\] clouds is empty',
                               clouds.configured, self.conf)

    def test_names_that_cannot_be_cloud_names(self):
        for bad in ('east/1', '..', '-x', 'a b', 'x' * 64, 'région'):
            self.flags(clouds=[bad])
            error = self.assertRaises(exceptions.InvalidOption,
                                      clouds.register_opts, self.conf)
            self.assertIn('"%s" cannot name a cloud' % bad, str(error))

    def test_a_name_twice(self):
        self.flags(clouds=['east', 'west', 'east'])
        self.assertRaisesRegex(exceptions.InvalidOption, 'names "east" twice',
                               clouds.configured, self.conf)

    def test_cloud_group_has_the_openstack_options(self):
        self.use_clouds('east')
        group = self.conf['cloud:east']
        # The clouds.yaml entry of the cloud's own name, unless set.
        self.assertEqual('east', group.cloud)
        self.assertEqual(60, group.api_timeout)
        self.assertIsNone(group.auth_type)
        self.flags(group='cloud:east', cloud='other', max_concurrency=2)
        self.assertEqual('other', self.conf['cloud:east'].cloud)
        self.assertEqual(8, self.conf.openstack.max_concurrency)


class TestPerCloudParts(base.TestCase):
    """Each cloud has its own connection, cache keys and lock."""

    def test_client_reads_the_cloud_group(self):
        east, west = self.use_clouds('east', 'west')
        self.flags(group='cloud:west', max_concurrency=3, region_name='W')
        with mock.patch('openstack.connect') as connect:
            client = openstack.CloudClient.from_conf(self.conf, west.group)
        self.assertEqual(3, client._max_concurrency)
        self.assertEqual('west', connect.call_args.kwargs['cloud'])
        self.assertEqual('W', connect.call_args.kwargs['region_name'])

    def test_stores_and_locks_apart(self):
        east, west = self.use_clouds('east', 'west')
        self.flags(group='document_cache', backend='memory')
        stores = [publisher.Publisher.from_conf(self.conf, c)
                  for c in (east, west)]
        stores[0].write_status({'cloud': 'east'})
        self.assertEqual({'cloud': 'east'}, stores[0].reader.status())
        self.assertIsNone(stores[1].reader.status())
        self.flags(group='document_cache', backend='memcached')
        names = {leadership.Leadership.from_conf(self.conf, c)._name
                 for c in (east, west)}
        self.assertEqual({b'flavor-exporter-refresh-flavor-exporter:east',
                          b'flavor-exporter-refresh-flavor-exporter:west'},
                         names)
