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
"""One line per failure, with its root cause and what to do next."""


from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
import webtest

from flavor_exporter.api import app
from flavor_exporter.common import failures
from flavor_exporter.publication import cache
from flavor_exporter.tests import base
from testcloud import loopback


def closed_port():
    """A loopback port nothing listens on (connections are refused)."""
    return loopback.free_port()


class TestExplain(base.BaseTestCase):

    def test_refused_connection_through_keystoneauth(self):
        # A real keystoneauth session against a port nothing listens on:
        # the chain it raises is the one the worker meets.
        url = 'http://127.0.0.1:%d/v3' % closed_port()
        try:
            ks_session.Session().get(url)
        except ks_exc.ConnectFailure as exc:
            line = failures.explain(exc)
        self.assertNotIn('\n', line)
        self.assertIn(url, line)
        # The root cause once, even where the message repeats it.
        self.assertEqual(1, line.count('Connection refused'), line)
        self.assertTrue(line.endswith(
            '; check that the service is up and reachable from this host'),
            line)

    def test_cache_error(self):
        line = failures.explain(cache.CacheError('memcached set: refused'))
        self.assertEqual('memcached set: refused; check that memcached runs '
                         'and is reachable at [document_cache] '
                         'memcache_servers', line)

    def test_a_sentence_is_continued_by_its_hint(self):
        class CloudNotFound(Exception):
            pass
        line = failures.explain(CloudNotFound('Cloud nope was not found.'),
                                again=False)
        self.assertEqual('Cloud nope was not found; run with --debug for '
                         'the traceback', line)

    def test_unexpected_error_names_its_type(self):
        try:
            {}['id']
        except KeyError as exc:
            line = failures.explain(exc)
        self.assertEqual("KeyError: 'id'; the next refresh tries again; "
                         "run with --debug for the traceback", line)

    def test_missing_auth_url(self):
        line = failures.explain(ks_exc.MissingRequiredOptions([]))
        self.assertIn('set them in [openstack], or in clouds.yaml', line)

    def test_hints_name_the_cloud_group_read(self):
        line = failures.explain(ks_exc.Unauthorized('401'), 'cloud:west')
        self.assertTrue(line.endswith(
            '; check the credentials in [cloud:west], or in clouds.yaml or '
            'the OS_* variables'), line)

    def test_one_shot_work_is_not_retried(self):
        line = failures.explain(RuntimeError('boom'), again=False)
        self.assertEqual('RuntimeError: boom; run with --debug for the '
                         'traceback', line)


class TestMemcachedDown(base.BaseTestCase):
    """Real pymemcache against a port where no memcached listens."""

    def setUp(self):
        super().setUp()
        self.backend = cache.MemcachedBackend(
            ['127.0.0.1:%d' % closed_port()], socket_timeout=1.0,
            dead_retry=60)
        self.addCleanup(self.backend.close)

    def test_get_does_not_name_the_key(self):
        # The message may end up in a 503 body: no internal key names.
        error = self.assertRaises(cache.CacheError, self.backend.get,
                                  'flavor-exporter/secret-part-name')
        self.assertNotIn('secret-part-name', str(error))
        self.assertIn('Connection refused', str(error))

    def test_set_while_marked_down_is_not_called_too_large(self):
        values = {'k%d' % i: b'x' for i in range(3)}
        self.assertRaises(cache.CacheError, self.backend.set_many,
                          values, 60)
        # pymemcache now fails the keys of the server it marked down,
        # without an exception.
        error = self.assertRaises(cache.CacheError, self.backend.set_many,
                                  values, 60)
        self.assertEqual('memcached did not store 3 of 3 items (its server '
                         'does not answer)', str(error))
        self.assertNotIn('-I', str(error))
        self.assertNotIn('k0', str(error))


class TestResponsesWithMemcachedDown(base.TestCase):
    """What clients read when memcached does not answer: no cache keys."""

    def test_no_key_names(self):
        backend = cache.MemcachedBackend(['127.0.0.1:%d' % closed_port()])
        self.addCleanup(backend.close)
        self.flags(group='document_cache', key_prefix='secret-prefix')
        client = webtest.TestApp(app.setup_app(self.conf, backend))
        for path in ('/v3/flavors/', '/v3/flavors/g1', '/gpus/flavors',
                     '/v3/status', '/healthcheck', '/metrics'):
            response = client.get(path, expect_errors=True)
            self.assertNotIn('secret-prefix', response.text, path)
        response = client.get('/v3/flavors/', expect_errors=True)
        self.assertEqual(503, response.status_int)
        self.assertIn('Connection refused', response.text)
