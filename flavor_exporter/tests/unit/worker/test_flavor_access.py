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

from flavor_exporter.capacity import model
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.worker import fakes
from flavor_exporter.worker import flavor_access
from flavor_exporter.worker import openstack


def _flavor(flavor_id):
    return model.Flavor(flavor_id, 'f-' + flavor_id, 1, 512, 1,
                        is_public=False)


def _path(flavor_id):
    return '/flavors/%s/os-flavor-access' % flavor_id


def _shared(flavor_id, *projects):
    return {'flavor_access': [{'flavor_id': flavor_id, 'tenant_id': p}
                              for p in projects]}


class TestFlavorAccess(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.now = 1000.0
        self.client = fakes.FakeClient({_path('a'): _shared('a', 'p1'),
                                        _path('b'): _shared('b', 'p2')})
        self.access = flavor_access.FlavorAccess(
            max_age=900, clock=lambda: self.now)

    def projects(self, *ids):
        start = self.client.call_count
        problems = []
        found = self.access.projects(self.client, [_flavor(i) for i in ids],
                                     problems)
        return found, self.client.paths(start), problems

    def test_kept_until_max_age_then_read_again(self):
        self.assertEqual(({'a': ('p1',), 'b': ('p2',)},
                          [_path('a'), _path('b')], []),
                         self.projects('a', 'b'))
        self.now += 899
        self.client.bodies[_path('a')] = _shared('a', 'p1', 'p3')
        self.assertEqual(({'a': ('p1',), 'b': ('p2',)}, [], []),
                         self.projects('a', 'b'))
        self.assertEqual(0, self.access.last_read)
        self.now += 1
        self.assertEqual(({'a': ('p1', 'p3'), 'b': ('p2',)},
                          [_path('a'), _path('b')], []),
                         self.projects('a', 'b'))
        self.assertEqual(2, self.access.last_read)

    def test_a_new_flavor_is_read_at_once(self):
        self.projects('a')
        self.client.bodies[_path('c')] = _shared('c', 'p4')
        self.assertEqual(({'a': ('p1',), 'c': ('p4',)}, [_path('c')], []),
                         self.projects('a', 'c'))

    def test_an_unreadable_list_is_asked_again(self):
        self.client.bodies[_path('a')] = openstack.CloudError('answered 500')
        found, paths, problems = self.projects('a')
        self.assertEqual({'a': None}, found)
        self.assertIn('only admins see it', problems[0])
        self.client.bodies[_path('a')] = _shared('a', 'p1')
        self.assertEqual(({'a': ('p1',)}, [_path('a')], []),
                         self.projects('a'))

    def test_a_deleted_flavor_is_forgotten(self):
        self.projects('a', 'b')
        self.projects('b')
        # Created again with the same id: its list is read anew.
        self.assertEqual([_path('a')], self.projects('a', 'b')[1])

    def test_max_age_0_reads_every_time(self):
        access = flavor_access.FlavorAccess(max_age=0,
                                            clock=lambda: self.now)
        for _ in range(2):
            access.projects(self.client, [_flavor('a')], [])
        self.assertEqual([_path('a')] * 2, self.client.paths())
