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

from flavor_exporter.api import memo
from flavor_exporter.tests import base


class TestMemo(base.BaseTestCase):

    def test_made_once(self):
        cache = memo.Memo()
        make = mock.Mock(return_value='value')
        self.assertEqual('value', cache.get('k', make, len))
        self.assertEqual('value', cache.get('k', make, len))
        make.assert_called_once_with()

    def test_bounded_by_bytes_least_recently_used_first(self):
        cache = memo.Memo(max_bytes=3 * (100 + memo.ENTRY_OVERHEAD))
        for key in 'abc':
            cache.get(key, lambda: 'x' * 100, len)
        cache.get('a', mock.Mock(), len)  # a is used: b is the oldest
        cache.get('d', lambda: 'x' * 100, len)
        self.assertEqual(3, len(cache))
        remade = mock.Mock(return_value='x' * 100)
        cache.get('a', remade, len)
        remade.assert_not_called()
        cache.get('b', remade, len)
        remade.assert_called_once_with()

    def test_bounded_by_entries(self):
        cache = memo.Memo(max_entries=3)
        for i in range(10):
            cache.get(i, lambda: 'v', len)
        self.assertEqual(3, len(cache))

    def test_one_entry_over_the_budget_is_still_served(self):
        cache = memo.Memo(max_bytes=10)
        self.assertEqual('x' * 100, cache.get('big', lambda: 'x' * 100, len))
        self.assertEqual(1, len(cache))

    def test_a_failure_keeps_nothing(self):
        cache = memo.Memo()
        self.assertRaises(ValueError, cache.get, 'k',
                          mock.Mock(side_effect=ValueError), len)
        self.assertEqual(0, len(cache))
