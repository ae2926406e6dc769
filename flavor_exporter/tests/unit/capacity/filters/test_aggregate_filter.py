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
"""Aggregate metadata matching, case by case as Nova's filter decides.

The operator cases mirror nova's own tests of
nova.scheduler.filters.extra_specs_ops and of
AggregateInstanceExtraSpecsFilter.
"""

from flavor_exporter.capacity.filters import aggregate_filter
from flavor_exporter.capacity import model
from flavor_exporter.tests import base


class TestSpecMatches(base.BaseTestCase):

    def _check(self, value, requirement, expected):
        self.assertIs(expected,
                      aggregate_filter.spec_matches(value, requirement),
                      '%r vs %r' % (value, requirement))

    def test_plain_value_is_equality(self):
        self._check('1', '1', True)
        self._check('1', '2', False)
        self._check('true', 'true', True)
        self._check('true', 'True', False)

    def test_plain_value_compares_whole_requirement(self):
        # No operator: the whole string, spaces included.
        self._check('a b', 'a b', True)
        self._check('a', 'a b', False)

    def test_empty_requirement(self):
        self._check('', '', True)
        self._check('x', '', False)

    def test_equals_means_at_least(self):
        self._check('123', '= 123', True)
        self._check('124', '= 123', True)
        self._check('122', '= 123', False)
        self._check('12.5', '= 12.1', True)

    def test_numeric_operators(self):
        self._check('123', '== 123', True)
        self._check('123.0', '== 123', True)
        self._check('124', '== 123', False)
        self._check('124', '!= 123', True)
        self._check('123', '!= 123', False)
        self._check('124', '>= 123', True)
        self._check('122', '>= 123', False)
        self._check('122', '<= 123', True)
        self._check('124', '<= 123', False)

    def test_numeric_operator_on_non_number_fails(self):
        # Nova raises ValueError out of the filter; no host passes.
        self._check('abc', '>= 1', False)
        self._check('1', '== abc', False)

    def test_string_operators(self):
        self._check('abc', 's== abc', True)
        self._check('abd', 's== abc', False)
        self._check('abd', 's!= abc', True)
        self._check('abc', 's!= abc', False)
        self._check('abc', 's< abd', True)
        self._check('abd', 's< abc', False)
        self._check('abc', 's<= abc', True)
        self._check('abd', 's<= abc', False)
        self._check('abd', 's> abc', True)
        self._check('abc', 's> abd', False)
        self._check('abc', 's>= abc', True)
        self._check('abc', 's>= abd', False)

    def test_string_compare_is_lexical(self):
        self._check('10', 's< 9', True)
        self._check('10', '< 9', False)  # '<' is no operator: equality

    def test_operator_uses_next_word_only(self):
        self._check('abc', 's== abc def', True)

    def test_operator_without_operand_fails(self):
        self._check('abc', 's==', False)
        self._check('1', '>=', False)

    def test_in_is_substring(self):
        self._check('12311321', '<in> 11', True)
        self._check('12311321', '<in> 12311321', True)
        self._check('12310321', '<in> 11', False)
        self._check('abc', '<in>', False)

    def test_all_in(self):
        self._check('aes mmx', '<all-in> aes mmx', True)
        self._check('aes mmx', '<all-in> aes', True)
        self._check('aes', '<all-in> aes mmx', False)
        # Substrings, as Nova's "val in x" on a string.
        self._check('aesni', '<all-in> aes', True)
        self._check('aes', '<all-in>', False)

    def test_or(self):
        self._check('12', '<or> 11 <or> 12', True)
        self._check('13', '<or> 11 <or> 12', False)
        self._check('11', '<or> 11', True)
        self._check('12', '<or> 11 <or> 12 <or>', True)
        self._check('13', '<or> 11 <or> 12 <or>', False)

    def test_or_skips_every_other_word_whatever_it_is(self):
        # Nova pops a value, then pops a "keyword" without checking it.
        self._check('12', '<or> 11 12 13', False)
        self._check('13', '<or> 11 12 13', True)

    def test_or_without_values_fails(self):
        # Nova raises IndexError here; no host passes.
        self._check('x', '<or>', False)

    def test_none_value(self):
        self._check(None, '<or> a', False)
        self._check(None, '<all-in> a', False)
        self._check(None, '>= 1', False)
        self._check(None, 's== a', False)
        self._check(None, 'a', False)


class TestAggregateSpecs(base.BaseTestCase):

    def test_scoped_and_unscoped_keys(self):
        specs = {
            'aggregate_instance_extra_specs:gpu': 'true',
            'ssd': 'true',
            'hw:cpu_policy': 'dedicated',
            'resources:VGPU': '1',
            'capabilities:cpu_info:arch': 'x86_64',
            'group_policy': 'none',
        }
        self.assertEqual({'gpu': 'true', 'ssd': 'true',
                          'group_policy': 'none'},
                         aggregate_filter.aggregate_specs(specs))

    def test_only_first_colon_is_the_scope(self):
        self.assertEqual(
            {'a:b': 'x'},
            aggregate_filter.aggregate_specs(
                {'aggregate_instance_extra_specs:a:b': 'x'}))

    def test_scope_must_match_exactly(self):
        self.assertEqual({}, aggregate_filter.aggregate_specs(
            {'aggregate_instance_extra_specs_x:a': '1',
             'Aggregate_instance_extra_specs:a': '1'}))

    def test_empty(self):
        self.assertEqual({}, aggregate_filter.aggregate_specs({}))
        self.assertEqual({}, aggregate_filter.aggregate_specs(None))


class TestHostAggregateMetadata(base.BaseTestCase):

    def test_values_are_split_and_merged(self):
        aggregates = [
            model.Aggregate(name='a', metadata={'gpu_type': 'a100, v100',
                                                'ssd': 'true'}),
            model.Aggregate(name='b', metadata={'gpu_type': 'l4',
                                                'ssd': 'false'}),
            model.Aggregate(name='c', metadata={}),
        ]
        self.assertEqual(
            {'gpu_type': {'a100', 'v100', 'l4'}, 'ssd': {'true', 'false'}},
            aggregate_filter.host_aggregate_metadata(aggregates))

    def test_empty_value_is_kept(self):
        aggregates = [model.Aggregate(name='a', metadata={'k': ''})]
        self.assertEqual({'k': {''}},
                         aggregate_filter.host_aggregate_metadata(aggregates))

    def test_no_aggregates(self):
        self.assertEqual({}, aggregate_filter.host_aggregate_metadata([]))


class TestAggregateMetadataMatches(base.BaseTestCase):

    def _matches(self, specs, *metadata):
        aggregates = [model.Aggregate(name='agg%d' % i, metadata=m)
                      for i, m in enumerate(metadata)]
        return aggregate_filter.aggregate_metadata_matches(
            aggregate_filter.aggregate_specs(specs),
            aggregate_filter.host_aggregate_metadata(aggregates))

    def test_no_specs_pass(self):
        self.assertTrue(self._matches({}))
        self.assertTrue(self._matches({'hw:cpu_policy': 'dedicated'}))

    def test_missing_key_fails(self):
        self.assertFalse(self._matches(
            {'aggregate_instance_extra_specs:gpu': 'true'}))
        self.assertFalse(self._matches(
            {'aggregate_instance_extra_specs:gpu': 'true'}, {'ssd': 'true'}))

    def test_match(self):
        self.assertTrue(self._matches(
            {'aggregate_instance_extra_specs:gpu': 'true'}, {'gpu': 'true'}))
        self.assertFalse(self._matches(
            {'aggregate_instance_extra_specs:gpu': 'true'}, {'gpu': 'False'}))

    def test_one_value_of_any_aggregate_is_enough(self):
        self.assertTrue(self._matches(
            {'aggregate_instance_extra_specs:gpu_type': 'a100'},
            {'gpu_type': 'v100'}, {'gpu_type': 'l4,a100'}))

    def test_all_keys_must_match(self):
        specs = {'aggregate_instance_extra_specs:gpu': 'true',
                 'aggregate_instance_extra_specs:gpu_count': '>= 4'}
        self.assertTrue(self._matches(specs, {'gpu': 'true'},
                                      {'gpu_count': '8'}))
        self.assertFalse(self._matches(specs, {'gpu': 'true',
                                               'gpu_count': '2'}))

    def test_unscoped_key_is_checked(self):
        # Deprecated since Havana but still honoured by the filter.
        self.assertFalse(self._matches({'ssd': 'true'}, {'gpu': 'true'}))
        self.assertTrue(self._matches({'ssd': 'true'}, {'ssd': 'true'}))

    def test_group_policy_is_checked_too(self):
        # A real Nova quirk: group_policy is an unscoped key.
        self.assertFalse(self._matches({'group_policy': 'none'},
                                       {'gpu': 'true'}))

    def test_operators_through_the_filter(self):
        self.assertTrue(self._matches(
            {'aggregate_instance_extra_specs:cpu': '<or> amd <or> intel'},
            {'cpu': 'intel'}))
        self.assertTrue(self._matches(
            {'aggregate_instance_extra_specs:flags': '<all-in> aes avx'},
            {'flags': 'aes avx sse'}))
        self.assertFalse(self._matches(
            {'aggregate_instance_extra_specs:count': '= 4'},
            {'count': '2'}))
