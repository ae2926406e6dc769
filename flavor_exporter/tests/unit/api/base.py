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
"""The API under test: a real app over an in-memory store."""

import datetime
import threading
import types

import webtest

from flavor_exporter.api import app
from flavor_exporter.capacity import engine
from flavor_exporter.capacity.fit import vector_fit
from flavor_exporter.capacity import model
from flavor_exporter.common import clouds
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.tests import base
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.worker import checks
from flavor_exporter.worker import defrag
from flavor_exporter.worker import openstack
from flavor_exporter.worker import refresh
from flavor_exporter.worker import whatif


class FlakyBackend(cache.MemoryBackend):
    """MemoryBackend that can fail like an unreachable memcached."""

    def __init__(self):
        super().__init__()
        self.down = False
        self.gets = 0

    def get(self, key):
        self.gets += 1
        if self.down:
            raise cache.CacheError('memcached get: connection refused')
        return super().get(key)

    def gets_replica(self, replica, key):
        return self.get(key), super().gets_replica(replica, key)[1]

    def set_many(self, values, ttl):
        if self.down:
            raise cache.CacheError('memcached set: connection refused')
        super().set_many(values, ttl)

    def cas_replica(self, replica, key, value, token, ttl):
        if self.down:
            raise cache.CacheError('memcached cas: connection refused')
        return super().cas_replica(replica, key, value, token, ttl)

    def flush(self):
        """Forget everything, as a restarted memcached does."""
        self._items.clear()


class SampleQuotas:
    """A QuotaReader of canned readings: {project id: quota or error}."""

    def __init__(self, readings=None):
        self.readings = readings or {}
        self.reads = 0

    def read(self, client, project_id):
        self.reads += 1
        found = self.readings.get(project_id, sample.project_quota())
        if isinstance(found, Exception):
            raise found
        return found


class ApiTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        # Every request sees the latest publication.
        self.flags(group='api', generation_check_interval=0)
        # A project nobody answers for is a 503 at once, not in seconds.
        self.flags(group='projects', wait=0)
        self.backend = FlakyBackend()
        self.store = publisher.Publisher.from_conf(self.conf,
                                                   backend=self.backend)
        # What the worker that answers refresh requests collects: the
        # sample cloud instead of a real one.
        self.source = sample.Source()
        self._app = None

    @property
    def app(self):
        """The WebTest app, built on first use (after the test's flags)."""
        if self._app is None:
            self._app = webtest.TestApp(app.setup_app(self.conf,
                                                      self.backend))
        return self._app

    def answer_refresh_requests(self, store=None):
        """Run a worker's answer to refresh requests until the test ends.

        What [api] compute_on_miss asks for: the worker's real refresh,
        over the sample cloud, whenever an API process asked.
        """
        store = store or self.store
        refresher = refresh.Refresher(self.conf, store, client=object(),
                                      source=self.source)
        stop = threading.Event()

        def answer():
            while not stop.wait(0.01):
                if store.refresh_requests.pending() is not None:
                    store.refresh_requests.clear()
                    refresher.refresh()
        thread = threading.Thread(target=answer, daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(stop.set)

    def publish(self, flavors=None, age=0):
        """Publish the sample cloud collected age seconds ago (its docs).

        flavors: model.Flavor list instead of the sample's flavors.
        """
        collected_at = (datetime.datetime.now(datetime.timezone.utc) -
                        datetime.timedelta(seconds=age))
        served = sample.publish(self.store, flavors, collected_at)
        sample.publish_project(self.store, flavor_list=flavors)
        self.generation = self.store.reader.current()[pub.GENERATION]
        return served

    def forget(self, name):
        """Make the cache lose the stored parts of document name."""
        reader = self.store.reader
        entry = reader.manifest(reader.current())[name]
        for part in entry.part_names():
            del self.backend._items[reader.key(part)]

    def assertJsonError(self, response, code, message=None, legacy=False):
        self.assertEqual(code, response.status_int)
        self.assertEqual('application/json', response.content_type)
        if legacy:
            self.assertEqual(['message'], list(response.json))
            got = response.json['message']
        else:
            self.assertEqual({'code', 'message'},
                             set(response.json['error']))
            self.assertEqual(code, response.json['error']['code'])
            got = response.json['error']['message']
        if message is not None:
            self.assertIn(message, got)
        self.assertNotIn(b'<html', response.body.lower())

    def answer_defrags(self):
        """Run the leading worker's answers to defrag requests until the end.

        Its last report is of four hosts where flavor "frag20" (20 VCPU)
        is fragmented (two fit in az1, three pooled) beside the sample's
        flavors; Nova's server listing is refused, as by a Nova that
        fails: a defrag of frag20 is a 502.
        """
        pointer = self.store.reader.current()
        collected_at = datetime.datetime.fromisoformat(
            pointer[pub.TIMESTAMP].replace('Z', '+00:00'))
        snapshot = sample.snapshot(
            sample.flavors() + [model.Flavor('frag20', 'frag20', vcpus=20,
                                             ram=1024, disk=10)],
            collected_at=collected_at, host_list=sample.many_hosts(4))

        def refused(*args, **kwargs):
            raise openstack.CloudError('compute GET /servers/detail: 503')
        refresher = types.SimpleNamespace(
            last_report=engine.compute(snapshot, engine.Options()),
            last_snapshot=snapshot,
            client=types.SimpleNamespace(get_all=refused, get=refused))
        answers = defrag.DefragAnswers(
            self.conf, self.store, refresher, clouds.default(self.conf),
            engine.Options())
        stop = threading.Event()

        def answer():
            while not stop.wait(0.01):
                answers.answer()
        thread = threading.Thread(target=answer, daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(stop.set)
        return answers

    def answer_whatifs(self):
        """Run the leading worker's answers to what-ifs until the end.

        On the sample snapshot of the data published now; Nova's server
        listing (of hosts evacuated) is refused, as by a Nova that
        fails: a 502.
        """
        pointer = self.store.reader.current()
        collected_at = datetime.datetime.fromisoformat(
            pointer[pub.TIMESTAMP].replace('Z', '+00:00'))
        snapshot = sample.snapshot(collected_at=collected_at)

        def refused(*args, **kwargs):
            raise openstack.CloudError('compute GET /servers/detail: 503')
        fits = vector_fit.Fits()
        refresher = types.SimpleNamespace(
            last_report=engine.compute(snapshot, engine.Options(), fits),
            last_snapshot=snapshot, fits=fits,
            client=types.SimpleNamespace(get_all=refused))
        answers = whatif.WhatifAnswers(
            self.conf, self.store, refresher, clouds.default(self.conf),
            engine.Options())
        stop = threading.Event()

        def answer():
            while not stop.wait(0.01):
                answers.answer()
        thread = threading.Thread(target=answer, daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(stop.set)
        return answers

    def answer_checks(self, readings=None):
        """Run the leading worker's answers to set checks until the end.

        On the sample report of the data published now (publish() first);
        readings: SampleQuotas' {project id: quota or error}. Returns the
        worker's CheckAnswers (its status counts what it answered).
        """
        pointer = self.store.reader.current()
        collected_at = datetime.datetime.fromisoformat(
            pointer[pub.TIMESTAMP].replace('Z', '+00:00'))
        refresher = types.SimpleNamespace(
            last_report=sample.report(collected_at=collected_at),
            client=None)
        answers = checks.CheckAnswers(
            self.conf, self.store, refresher, clouds.default(self.conf),
            engine.Options(), SampleQuotas(readings))
        stop = threading.Event()

        def answer():
            while not stop.wait(0.01):
                answers.answer()
        thread = threading.Thread(target=answer, daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(stop.set)
        return answers
