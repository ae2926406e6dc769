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
"""The leading worker answers the projects asked about, at bounded cost."""

import json

from flavor_exporter.capacity import quota
from flavor_exporter.common import clouds
from flavor_exporter.conf import quota as quota_conf
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.worker import projects
from flavor_exporter.worker import quotas


class QuotaClient:
    """Nova's os-quota-sets/{project}/detail; counts the calls."""

    def __init__(self):
        self.calls = []

    def get(self, service, path, microversion=None, params=None):
        self.calls.append(path)
        return {'quota_set': {
            'instances': {'limit': 2, 'in_use': 0},
            'cores': {'limit': -1, 'in_use': 0},
            'ram': {'limit': -1, 'in_use': 0}}}


class Refresher:

    def __init__(self):
        self.client = QuotaClient()
        self.last_report = sample.report()


class Clock:

    def __init__(self):
        self.now = 1000000.0

    def __call__(self):
        return self.now


class TestAnswers(base.TestCase):

    def setUp(self):
        super().setUp()
        self.store = publisher.Publisher.from_conf(
            self.conf, backend=cache.MemoryBackend())
        self.refresher = Refresher()
        self.clock = Clock()
        self.answers = projects.ProjectAnswers(
            self.conf, self.store, self.refresher,
            clouds.default(self.conf), clock=self.clock)

    def ask(self, *project_ids):
        for project_id in project_ids:
            self.store.project_requests.ask(project_id, self.clock(), 60)

    def document(self, project_id):
        fields, body = self.store.reader.project(project_id)
        return fields, json.loads(body)

    def test_answers_and_clears(self):
        self.ask('p1', 'p2')
        self.assertTrue(self.answers.waiting())
        self.assertEqual(2, self.answers.answer())
        self.assertEqual({}, self.store.project_requests.pending())
        fields, document = self.document('p1')
        self.assertEqual(self.clock(), fields[pub.QUOTA_READ_AT])
        large = {f[pub.NAME]: f for f in document[pub.FLAVORS]}['m1.large']
        self.assertEqual((2, 'instances'), (large[pub.STARTABLE],
                                            large[pub.QUOTA]['limited_by']))
        self.assertEqual(2, len(self.refresher.client.calls))

    def test_quota_read_once_per_max_age(self):
        self.ask('p1')
        self.answers.answer()
        self.clock.now += 10
        self.ask('p1')
        self.answers.answer()
        self.assertEqual(1, len(self.refresher.client.calls))
        self.clock.now += self.conf.projects.max_age
        self.ask('p1')
        self.answers.answer()
        self.assertEqual(2, len(self.refresher.client.calls))

    def test_refresh_republishes_without_calls(self):
        self.ask('p1')
        self.answers.answer()
        self.clock.now += 60
        self.answers.after_refresh()
        fields, _document = self.document('p1')
        self.assertEqual(self.clock(), fields[pub.COMPUTED_AT])
        self.assertEqual(1, len(self.refresher.client.calls))

    def test_forgotten_after_nobody_asks(self):
        self.ask('p1')
        self.answers.answer()
        self.clock.now += self.conf.projects.forget_after + 1
        self.answers.after_refresh()
        self.assertEqual({}, self.answers._known)

    def test_bounded_per_poll(self):
        self.flags(group='projects', max_per_poll=3)
        self.ask(*['p%d' % i for i in range(10)])
        self.assertEqual(3, self.answers.answer())
        self.assertEqual(7, len(self.store.project_requests.pending()))

    def test_no_report_yet(self):
        self.refresher.last_report = None
        self.ask('p1')
        self.assertEqual(0, self.answers.answer())
        self.assertEqual(['p1'], list(self.store.project_requests.pending()))


class KeystoneClient:
    """os-quota-sets, Placement /usages at 1.38 and Keystone's limits."""

    def __init__(self):
        self.calls = []

    def get(self, service, path, microversion=None, params=None):
        self.calls.append((service, path))
        if service == 'compute':
            return {'quota_set': {'instances': {'limit': -1, 'in_use': 2}}}
        if service == 'placement':
            return {'usages': {
                'INSTANCE': {'consumer_count': 2, 'VCPU': 6,
                             'MEMORY_MB': 4096},
                'MIGRATION': {'consumer_count': 1, 'VCPU': 2}}}
        if path == '/services':
            return {'services': [{'id': 'nova-svc'}]}
        if path == '/limits':
            return {'limits': [{'resource_name': 'class:VCPU',
                                'resource_limit': 10}]}
        return {'registered_limits': [
            {'resource_name': 'servers', 'default_limit': 10},
            {'resource_name': 'class:VCPU', 'default_limit': 20},
            {'resource_name': 'class:MEMORY_MB', 'default_limit': -1},
            {'resource_name': 'class:DISK_GB', 'default_limit': -1}]}


class TestUnifiedReading(base.TestCase):

    def test_limits_usage_and_registered_kept(self):
        self.flags(group='quota', driver=quota_conf.UNIFIED_DRIVER)
        client = KeystoneClient()
        reader = quotas.QuotaReader(self.conf, clock=Clock())
        reading = reader.read(client, 'p1')
        self.assertEqual(quota.UNIFIED, reading.system)
        # Usage of every consumer type, summed as Nova sums it.
        self.assertEqual({'servers': 2, 'class:VCPU': 8,
                          'class:MEMORY_MB': 4096}, reading.in_use)
        self.assertEqual({'class:VCPU': 10}, reading.limits)
        self.assertEqual(10, reading.registered['servers'])
        reader.read(client, 'p2')
        # Service and registered limits are read once for all projects.
        self.assertEqual(1, client.calls.count(('identity', '/services')))
        self.assertEqual(1, client.calls.count(
            ('identity', '/registered_limits')))


class TestPublished(base.TestCase):

    def test_superseded_parts_deleted(self):
        backend = cache.MemoryBackend()
        store = publisher.Publisher.from_conf(self.conf, backend=backend)
        first = sample.publish_project(store, 'p1', read_at=1.0)
        before = set(backend._items)
        second = sample.publish_project(store, 'p1', read_at=2.0)
        self.assertNotEqual(first, second)
        self.assertEqual(len(before), len(backend._items))
        self.assertEqual(second, store.reader.project('p1')[1])
