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

from flavor_exporter.common import cache
from flavor_exporter.common import exceptions
from flavor_exporter.common import store
from flavor_exporter.tests import base
from flavor_exporter.worker import on_miss
from flavor_exporter.worker import refresh


class TestRefreshOnMiss(base.TestCase):

    def test_bad_alias_refused_at_start(self):
        self.flags(group='pci', alias=['{"name": "T4"}'])
        self.assertRaises(exceptions.InvalidOption, on_miss.RefreshOnMiss,
                          self.conf, None)

    def test_built_once_on_first_use(self):
        documents = store.DocumentStore(cache.MemoryBackend(), 'test', 0)
        with mock.patch('flavor_exporter.worker.refresh.Refresher') as cls:
            cls.return_value.refresh.return_value = True
            fill = on_miss.RefreshOnMiss(self.conf, documents)
            cls.assert_not_called()
            self.assertTrue(fill())
            self.assertTrue(fill())
        cls.assert_called_once_with(self.conf, documents,
                                    options=refresh.engine_options(
                                        self.conf), cloud=None)
        self.assertEqual(2, cls.return_value.refresh.call_count)

    def test_published_meanwhile_computes_nothing(self):
        # The lock is free because another computation just published.
        documents = store.DocumentStore(cache.MemoryBackend(), 'test', 0)
        with mock.patch('flavor_exporter.worker.refresh.Refresher') as cls, \
                mock.patch.object(documents, 'current',
                                  return_value={'sequence': 1}):
            fill = on_miss.RefreshOnMiss(self.conf, documents)
            self.assertTrue(fill())
        cls.assert_not_called()
        self.assertFalse(documents.locked(on_miss.LOCK))
