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
"""The hot documents' fast path answers as the controllers would."""

import webtest

from flavor_exporter.api import app
from flavor_exporter.api.middleware import hot_documents
from flavor_exporter.tests.unit.api import base

HEADERS = ('Content-Type', 'ETag', 'Last-Modified', 'Content-Length',
           'X-Flavor-Exporter-Stale')


class Refusing:
    """The application behind the fast path: counts what reaches it."""

    def __init__(self, app):
        self.app = app
        self.calls = 0

    def __call__(self, environ, start_response):
        self.calls += 1
        return self.app(environ, start_response)


class TestHotDocuments(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.publish()
        self.behind = Refusing(self.app.app)
        self.fast = webtest.TestApp(hot_documents.HotDocuments(
            self.behind, self.reader()))

    def reader(self):
        return app.make_readers(self.conf, self.store)

    def assertSameAnswer(self, path, **kw):
        slow = self.app.get(path, **kw)
        fast = self.fast.get(path, **kw)
        self.assertEqual(slow.status, fast.status)
        self.assertEqual(slow.body, fast.body)
        for header in HEADERS:
            self.assertEqual(slow.headers.get(header),
                             fast.headers.get(header), header)

    def test_lists_served_without_the_application(self):
        for path in ('/gpus/flavors', '/gpus/flavors/', '/v2/flavors',
                     '/v2/flavors/', '/gpus/flavors/?_=123'):
            self.assertSameAnswer(path)
        self.assertEqual(0, self.behind.calls)

    def test_everything_else_goes_to_the_application(self):
        etag = self.app.get('/v2/flavors/').headers['ETag']
        for path, kw in (('/v2/flavors/?gpu=true', {}),
                         ('/v2/flavors/g1', {}),
                         ('/v2/flavors/', {'headers': {
                             'If-None-Match': etag}, 'status': 304})):
            self.assertSameAnswer(path, **kw)
        self.fast.head('/v2/flavors/')
        self.assertEqual(4, self.behind.calls)

    def test_stale_v2_goes_to_the_application(self):
        self.publish(age=10_000)
        self.assertSameAnswer('/v2/flavors/')
        self.assertSameAnswer('/gpus/flavors')
        self.assertEqual(1, self.behind.calls)

    def test_cold_cache_goes_to_the_application(self):
        self.store = type(self.store)(base.FlakyBackend(), 'empty', 0)
        fast = webtest.TestApp(hot_documents.HotDocuments(
            self.behind, self.reader()))
        # The application (here one that has data) answers instead.
        fast.get('/v2/flavors/')
        self.assertEqual(1, self.behind.calls)
