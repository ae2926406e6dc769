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

from flavor_exporter.capacity.quota import quota
from flavor_exporter.common import clouds
from flavor_exporter.conf import quota as quota_conf
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.worker import openstack
from flavor_exporter.worker import projects
from flavor_exporter.worker import quotas


class QuotaClient:
    """Nova's os-quota-sets/{project}/detail; counts the calls.

    Projects whose id starts with "bogus" are unknown to Keystone: Nova
    answers 400, as identity.verify_project_id makes it.
    """

    def __init__(self):
        self.calls = []
        self.answer = {'quota_set': {
            'instances': {'limit': 2, 'in_use': 0},
            'cores': {'limit': -1, 'in_use': 0},
            'ram': {'limit': -1, 'in_use': 0}}}
        self.failing = None

    def get(self, service, path, microversion=None, params=None):
        self.calls.append(path)
        if self.failing:
            raise self.failing
        if '/bogus' in path:
            raise openstack.CloudError(
                'compute GET %s answered 400: {"badRequest": {"message": '
                '"Project ID %s is not a valid project."}}'
                % (path, path.split('/')[2]), status=400)
        return self.answer


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
        # Keystone's project list: test_known_projects.py.
        self.flags(group='projects', list_interval=0)
        self.store = publisher.Publisher.from_conf(
            self.conf, backend=cache.MemoryBackend())
        self.refresher = Refresher()
        self.clock = Clock()
        self.answers = projects.ProjectAnswers(
            self.conf, self.store, self.refresher,
            clouds.default(self.conf), clock=self.clock)
        self.addCleanup(self.answers.close)

    def ask(self, *project_ids):
        for project_id in project_ids:
            self.store.project_requests.ask(project_id, 60)

    def part(self, project_id):
        fields, body = self.store.reader.project(project_id)
        return fields, json.loads(body) if body else None

    def test_answers_and_may_be_asked_again(self):
        self.ask('p1', 'p2')
        self.assertTrue(self.answers.waiting())
        self.assertEqual(2, self.answers.answer())
        fields, part = self.part('p1')
        self.assertEqual(self.clock(), fields[pub.QUOTA_READ_AT])
        _, prints, identity = projects.footprints(
            quota.Counting(), self.refresher.last_report)
        self.assertEqual(identity, part['footprints'])
        self.assertEqual(len(prints), len(part['headroom']))
        # Every flavor of the sample has 2 left: the instances limit.
        self.assertEqual({(2, 'instances')}, {
            (instances, by) for instances, by, _ in part['headroom']})
        self.assertEqual(2, len(self.refresher.client.calls))
        # Answered: a question finds it unasked.
        self.assertEqual('asked', self.store.project_requests.ask('p1', 60))

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

    def test_a_refresh_makes_no_new_part(self):
        self.ask('p1')
        self.answers.answer()
        before = self.part('p1')
        self.refresher.last_report = sample.report()
        self.clock.now += 60
        self.answers.after_refresh()
        self.assertEqual(before, self.part('p1'))
        self.assertEqual(1, len(self.refresher.client.calls))

    def test_new_flavors_make_new_parts_without_calls(self):
        self.ask('p1')
        self.answers.answer()
        self.refresher.last_report = sample.report(
            sample.flavors() + sample.many_flavors(3))
        self.clock.now += 60
        self.answers.after_refresh()
        fields, part = self.part('p1')
        self.assertEqual(self.clock(), fields[pub.COMPUTED_AT])
        self.assertEqual(projects.footprints(
            quota.Counting(), self.refresher.last_report)[2],
            part['footprints'])
        self.assertEqual(1, len(self.refresher.client.calls))

    def test_forgotten_after_nobody_asks(self):
        self.ask('p1')
        self.answers.answer()
        self.clock.now += self.conf.projects.forget_after + 1
        self.answers.after_refresh()
        self.assertEqual({}, self.answers._known)

    def test_bounded_per_poll_in_the_order_asked(self):
        self.flags(group='projects', max_per_poll=3)
        self.ask(*['p%d' % i for i in range(10)])
        self.assertEqual(3, self.answers.answer())
        self.assertEqual(['/os-quota-sets/p%d/detail' % i for i in (0, 1, 2)],
                         sorted(self.refresher.client.calls))
        self.assertEqual(3, self.answers.answer())
        self.assertEqual(3, self.answers.answer())
        self.assertEqual(1, self.answers.answer())

    def test_no_report_yet(self):
        self.refresher.last_report = None
        self.ask('p1')
        self.assertEqual(0, self.answers.answer())
        self.refresher.last_report = sample.report()
        self.assertEqual(1, self.answers.answer())

    def test_an_unknown_project_costs_one_call_per_max_age(self):
        self.ask('bogus1')
        self.answers.answer()
        fields, part = self.part('bogus1')
        self.assertIsNone(part)
        problem = fields[pub.PROBLEM]
        self.assertEqual(pub.UNKNOWN_PROJECT, problem[pub.PROBLEM_KIND])
        self.assertIn('know no project bogus1', problem[pub.REASON])
        self.assertEqual(self.clock() + self.conf.projects.max_age,
                         problem[pub.RETRY_AT])
        for _ in range(5):
            self.clock.now += 10
            self.ask('bogus1')
            self.answers.answer()
        self.assertEqual(1, len(self.refresher.client.calls))
        self.clock.now += self.conf.projects.max_age
        self.ask('bogus1')
        self.answers.answer()
        self.assertEqual(2, len(self.refresher.client.calls))

    def test_bogus_ids_do_not_starve_a_real_project(self):
        # 60 made-up ids, then a real one: each costs one call, once,
        # and the real one is answered within two looks.
        self.ask(*['bogus%d' % i for i in range(60)])
        self.ask('p1')
        self.answers.answer()
        self.answers.answer()
        self.assertIsNotNone(self.part('p1')[1])
        self.assertEqual(61, len(self.refresher.client.calls))
        # Asked again and again, they cost nothing more.
        self.ask(*['bogus%d' % i for i in range(60)])
        self.answers.answer()
        self.answers.answer()
        self.assertEqual(61, len(self.refresher.client.calls))
        self.assertEqual({'answered': 1, 'unknown': 60, 'unreadable': 0,
                          'queued': 0, 'reading': None, 'last_error': None,
                          'known_projects': {
                              'mode': 'off', 'listed': None,
                              'listed_at': None, 'seconds': None,
                              'complete': None, 'last_error': None}},
                         self.store.reader.project_status())

    def test_a_reading_that_hangs_is_in_the_status(self):
        seen = []

        def hang(*args, **kwargs):
            seen.append(self.store.reader.project_status())
            raise openstack.CloudError('compute GET /os-quota-sets/p1/detail'
                                       ' failed: Read timed out')
        self.refresher.client.get = hang
        self.ask('p1')
        self.answers.answer()
        self.assertEqual({'projects': 1,
                          'since': pub.iso_from_epoch(self.clock())},
                         seen[0]['reading'])
        status = self.store.reader.project_status()
        self.assertIsNone(status['reading'])
        self.assertIn('Read timed out', status['last_error']['message'])

    def test_failures_back_off(self):
        self.refresher.client.failing = openstack.CloudError(
            'compute GET /os-quota-sets/p1/detail answered 500: oops',
            status=500)
        tried_at = []
        for _ in range(60):
            self.ask('p1')
            if self.answers.answer() and self.refresher.client.calls and \
                    len(self.refresher.client.calls) > len(tried_at):
                tried_at.append(self.clock())
            self.clock.now += 1
        # At 0, then 10, 20 (+40 is past the minute) seconds later.
        self.assertEqual([0, 10, 30], [t - tried_at[0] for t in tried_at])
        problem = self.part('p1')[0][pub.PROBLEM]
        self.assertEqual(pub.QUOTA_UNREADABLE, problem[pub.PROBLEM_KIND])
        self.assertIn('answered 500: oops', problem[pub.REASON])
        status = self.store.reader.project_status()
        self.assertEqual('p1', status['last_error']['project_id'])
        # Mended: the next try publishes it, and the problem is gone.
        self.refresher.client.failing = None
        self.clock.now = tried_at[-1] + 40
        self.ask('p1')
        self.answers.answer()
        fields, part = self.part('p1')
        self.assertNotIn(pub.PROBLEM, fields)
        self.assertIsNotNone(part)

    def test_a_problem_keeps_the_last_good_answer(self):
        self.ask('p1')
        self.answers.answer()
        self.clock.now += self.conf.projects.max_age
        self.refresher.client.failing = openstack.CloudError('timed out')
        self.ask('p1')
        self.answers.answer()
        fields, part = self.part('p1')
        self.assertIsNotNone(part)
        self.assertEqual(pub.QUOTA_UNREADABLE,
                         fields[pub.PROBLEM][pub.PROBLEM_KIND])

    def test_an_answer_without_a_limit_is_unreadable(self):
        for broken in ({}, {'quota_set': {}},
                       {'quota_set': {'instances': {'limit': 5,
                                                    'in_use': 0}}}):
            self.refresher.client.answer = broken
            self.clock.now += 1000
            self.ask('p1')
            self.answers.answer()
            problem = self.part('p1')[0][pub.PROBLEM]
            self.assertEqual(pub.QUOTA_UNREADABLE,
                             problem[pub.PROBLEM_KIND])
            self.assertIn('Nova always reports them', problem[pub.REASON])


class KeystoneClient:
    """os-quota-sets, Placement /usages at 1.38 and Keystone's limits."""

    def __init__(self):
        self.calls = []
        self.limits = {'limits': [{'resource_name': 'class:VCPU',
                                   'resource_limit': 10}]}

    def get(self, service, path, microversion=None, params=None):
        self.calls.append((service, path))
        if service == 'compute':
            return {'quota_set': {
                name: {'limit': -1, 'in_use': 2 if name == 'instances'
                       else 0} for name in ('instances', 'cores', 'ram')}}
        if service == 'placement':
            return {'usages': {
                'INSTANCE': {'consumer_count': 2, 'VCPU': 6,
                             'MEMORY_MB': 4096},
                'MIGRATION': {'consumer_count': 1, 'VCPU': 2}}}
        if path == '/services':
            return {'services': [{'id': 'nova-svc'}]}
        if path == '/limits':
            return self.limits
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

    def test_a_limits_answer_without_its_list_is_unreadable(self):
        self.flags(group='quota', driver=quota_conf.UNIFIED_DRIVER)
        client = KeystoneClient()
        client.limits = {}
        reader = quotas.QuotaReader(self.conf, clock=Clock())
        error = self.assertRaises(quotas.QuotaUnreadable, reader.read,
                                  client, 'p1')
        self.assertIn("no 'limits' list", str(error))
        # No project limits at all is a list, empty: the registered ones.
        client.limits = {'limits': []}
        self.assertEqual({}, reader.read(client, 'p1').limits)


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
