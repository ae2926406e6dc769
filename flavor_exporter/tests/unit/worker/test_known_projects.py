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
"""Keystone's project list, and the charges the leader settles."""

import threading

import fixtures

from flavor_exporter.common import clouds
from flavor_exporter.publication import cache
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.worker import test_projects
from flavor_exporter.worker import known_projects
from flavor_exporter.worker import openstack
from flavor_exporter.worker import projects

KEYSTONE = 'http://keystone/v3/projects'


class ListingClient(test_projects.QuotaClient):
    """Nova's quota sets, and Keystone's projects a page at a time."""

    def __init__(self, project_ids, page_limit=None, refuse=False):
        super().__init__()
        self.project_ids = list(project_ids)
        self.page_limit = page_limit
        self.refuse = refuse
        self.listed = []
        self.hold = None

    def get(self, service, path, microversion=None, params=None):
        if path != '/projects':
            return super().get(service, path, microversion, params)
        self.listed.append(dict(params))
        if self.hold is not None:
            self.hold.wait(10)
        if self.failing:
            raise self.failing
        if self.refuse:
            raise openstack.CloudError(
                'identity GET /projects answered 403: {"error": {"code": '
                '403, "message": "You are not authorized"}}', status=403)
        start = 0
        if 'marker' in params:
            start = self.project_ids.index(params['marker']) + 1
        size = min(params['limit'], self.page_limit or params['limit'])
        page = self.project_ids[start:start + size]
        more = start + size < len(self.project_ids)
        body = {'projects': [{'id': p, 'name': 'n-' + p} for p in page],
                'links': {'self': KEYSTONE, 'previous': None,
                          'next': None}}
        if more and self.page_limit == params['limit']:
            body['links']['next'] = '%s?limit=%d&marker=%s' % (
                KEYSTONE, size, page[-1])
        elif more:
            body['truncated'] = True
        return body


class TestListIds(base.TestCase):

    def test_every_page(self):
        ids = ['p%03d' % i for i in range(25)]
        client = ListingClient(ids, page_limit=10)
        self.assertEqual((ids, True), known_projects.list_ids(client, 10))
        self.assertEqual([{'limit': 10}, {'limit': 10, 'marker': 'p009'},
                          {'limit': 10, 'marker': 'p019'}], client.listed)

    def test_truncated_without_pages(self):
        # A Keystone with [DEFAULT] list_limit and no pagination.
        client = ListingClient(['p%03d' % i for i in range(25)],
                               page_limit=10)
        client.page_limit = 5
        ids, complete = known_projects.list_ids(client, 10)
        self.assertEqual(5, len(ids))
        self.assertFalse(complete)

    def test_an_answer_without_its_list(self):
        client = ListingClient([])
        client.get = lambda *a, **k: {'error': 'nope'}
        self.assertRaises(openstack.CloudError, known_projects.list_ids,
                          client)


class AnswersTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.flags(group='projects', new_per_client=3, list_interval=300)
        self.store = publisher.Publisher.from_conf(
            self.conf, backend=cache.MemoryBackend())
        self.refresher = test_projects.Refresher()
        self.clock = test_projects.Clock()
        self.answers = projects.ProjectAnswers(
            self.conf, self.store, self.refresher,
            clouds.default(self.conf), clock=self.clock)
        self.addCleanup(self.answers.close)
        self.log = self.useFixture(fixtures.FakeLogger())

    def client(self, *args, **kwargs):
        self.refresher.client = ListingClient(*args, **kwargs)
        return self.refresher.client

    def list_now(self):
        self.answers._listing.list_now(self.refresher.client)

    def ask(self, project_id, client='portal'):
        return self.store.project_requests.ask(
            project_id, 60, client, self.conf.projects.new_per_client,
            self.clock())

    def status(self):
        return self.store.reader.project_status()['known_projects']


class TestKnownProjects(AnswersTestCase):

    def test_listed_projects_are_asked_about_for_free(self):
        self.client(['p%d' % i for i in range(50)])
        self.list_now()
        self.assertEqual({'asked'}, {self.ask('p%d' % i) for i in range(50)})
        self.assertEqual(50, self.answers.answer())
        status = self.status()
        self.assertEqual(('listed', 50, True, None),
                         (status['mode'], status['listed'],
                          status['complete'], status['last_error']))

    def test_listed_once_per_interval_in_a_thread_of_its_own(self):
        client = self.client(['p1'])
        self.answers.answer()
        self.answers._listing._running.result(10)
        self.answers.answer()
        self.assertEqual(1, len(client.listed))
        self.clock.now += 300
        self.answers.answer()
        self.answers._listing._running.result(10)
        self.assertEqual(2, len(client.listed))

    def test_a_hanging_keystone_holds_no_answer(self):
        client = self.client(['p1'])
        client.hold = threading.Event()
        self.addCleanup(client.hold.set)
        self.ask('p1')
        self.assertEqual(1, self.answers.answer())
        self.assertEqual(['/os-quota-sets/p1/detail'], client.calls)
        # Still listing: no second listing meanwhile.
        self.clock.now += 600
        self.answers.answer()
        self.assertEqual(1, len(client.listed))

    def test_never_listed_with_list_interval_zero(self):
        self.flags(group='projects', list_interval=0)
        client = self.client(['p1'])
        self.answers.answer()
        self.assertEqual([], client.listed)
        self.assertEqual('off', self.status()['mode'])

    def test_credentials_that_may_not_list(self):
        client = self.client(['p1'], refuse=True)
        self.list_now()
        self.clock.now += 300
        self.list_now()
        self.assertEqual(2, len(client.listed))
        self.answers.answer()
        status = self.status()
        self.assertEqual('found', status['mode'])
        self.assertIn('403', status['last_error']['message'])
        # Said once, not at every reading.
        self.assertEqual(1, self.log.output.count('may not list'))
        # Every new id is charged, and refunded once found real.
        for i in range(3):
            self.ask('p%d' % i)
        self.assertEqual('busy', self.ask('p9'))
        self.answers.answer()
        self.assertEqual('asked', self.ask('p9'))

    def test_a_cloud_without_keystone_to_list(self):
        # noauth clouds, the test cloud: no identity service answers.
        client = self.client(['p1'])
        client.failing = openstack.CloudError(
            'identity GET /projects answered 404: Not Found', status=404)
        for _ in range(3):
            self.list_now()
            self.clock.now += 300
        self.answers.answer()
        self.assertEqual('found', self.status()['mode'])
        self.assertEqual(1, self.log.output.count('may not list'))
        self.assertNotIn('unreadable', self.log.output)

    def test_a_failing_listing_said_once_per_reason(self):
        client = self.client(['p1'])
        client.failing = openstack.CloudError(
            'identity GET /projects failed: Read timed out')
        for _ in range(3):
            self.list_now()
            self.clock.now += 300
        self.assertEqual(1, self.log.output.count('unreadable'))
        client.failing = openstack.CloudError(
            'identity GET /projects answered 500: oops', status=500)
        self.list_now()
        self.assertEqual(2, self.log.output.count('unreadable'))

    def test_a_failed_listing_keeps_the_last_ids(self):
        client = self.client(['p1'])
        self.list_now()
        client.failing = openstack.CloudError(
            'identity GET /projects failed: Read timed out')
        self.clock.now += 300
        self.list_now()
        status = self.answers.status['known_projects']
        self.assertEqual('listed', status['mode'])
        self.assertIn('timed out', status['last_error']['message'])
        for i in range(5):
            self.assertEqual('asked', self.ask('p1'))
            self.store.project_requests.answered('p1')


class TestSettled(AnswersTestCase):

    def test_a_real_project_is_refunded_an_unknown_one_not(self):
        self.client([], refuse=True)
        self.answers.answer()  # says it settles charges
        self.assertEqual(['asked'] * 3, [self.ask(p) for p in (
            'new1', 'bogus1', 'bogus2')])
        self.assertEqual('busy', self.ask('new2'))
        self.answers.answer()
        # new1 refunded; the two unknown stay charged.
        self.assertEqual(['asked', 'busy'],
                         [self.ask('new2'), self.ask('new3')])
        self.answers.answer()
        # new2 refunded too: room for one more, a third unknown.
        self.assertEqual(['asked', 'busy'],
                         [self.ask('bogus3'), self.ask('new3')])
        self.answers.answer()
        # Three unknown this minute: the share is spent (429), until the
        # next minute, and only this client's.
        self.assertEqual('refused', self.ask('new3'))
        self.assertEqual('asked', self.ask('new3', client='other'))
        self.clock.now += 60
        self.assertEqual('asked', self.ask('new4'))
