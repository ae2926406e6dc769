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
"""Match flavor extra specs against host aggregate metadata.

This is what Nova's AggregateInstanceExtraSpecsFilter decides, with the
operators of nova.scheduler.filters.extra_specs_ops. Placement knows nothing
of aggregate metadata, so the engine has to apply it itself.
"""

import operator

SCOPE = 'aggregate_instance_extra_specs'


def _as_float(op):
    def compare(value, wanted):
        return op(float(value), float(wanted))
    return compare


# Operator word -> comparison of (aggregate value, requested word).
_OPERATORS = {
    # '=' is "at least", as for vcpus, not equality.
    '=': _as_float(operator.ge),
    '==': _as_float(operator.eq),
    '!=': _as_float(operator.ne),
    '>=': _as_float(operator.ge),
    '<=': _as_float(operator.le),
    's==': operator.eq,
    's!=': operator.ne,
    's<': operator.lt,
    's<=': operator.le,
    's>': operator.gt,
    's>=': operator.ge,
    '<in>': lambda value, wanted: wanted in value,
}


def aggregate_specs(extra_specs):
    """The extra specs AggregateInstanceExtraSpecsFilter checks.

    Keys in the ``aggregate_instance_extra_specs:`` scope lose the scope;
    keys without any scope (no ':' at all) are checked as they are -
    including ``group_policy``, which this filter really does look up in
    aggregate metadata. Keys of any other scope are ignored. Only the first
    ':' separates the scope, so ``aggregate_instance_extra_specs:a:b``
    checks key ``a:b``.
    """
    wanted = {}
    for key, value in (extra_specs or {}).items():
        scope, sep, rest = key.partition(':')
        if not sep:
            wanted[key] = value
        elif scope == SCOPE:
            wanted[rest] = value
    return wanted


def host_aggregate_metadata(aggregates, keys=None):
    """{key: set of values} over all aggregates of one host.

    As nova.scheduler.filters.utils.aggregate_metadata_get_by_host: every
    value is split on ',' and each part stripped, so ``"a, b"`` counts as
    the two values ``a`` and ``b``. keys: only these keys (a set), or all.
    """
    metadata = {}
    for aggregate in aggregates:
        for key, value in (aggregate.metadata or {}).items():
            if value is None or (keys is not None and key not in keys):
                continue
            values = metadata.setdefault(key, set())
            values.update(part.strip() for part in str(value).split(','))
    return metadata


def spec_matches(value, requirement):
    """Whether one aggregate value satisfies one extra spec value.

    The first word of the requirement may be an operator (see
    ``_OPERATORS``, ``<or>`` and ``<all-in>``); without one the whole
    requirement must equal the value. Operators compare with the next word
    only. Where Nova would raise (a numeric operator on a value that is not
    a number, or ``<or>`` with nothing after it), the host fails to match
    here: in Nova the exception aborts the scheduling request.
    """
    words = requirement.split()
    op = words[0] if words else None
    if op == '<or>':
        # "<or> a <or> b": every other word is a candidate; what stands
        # between them is skipped whatever it is, as Nova does.
        return value is not None and value in words[1::2]
    if op == '<all-in>':
        return (value is not None and len(words) > 1
                and all(word in value for word in words[1:]))
    compare = _OPERATORS.get(op)
    if compare is None:
        return value == requirement
    if value is None or len(words) < 2:
        return False
    try:
        return compare(value, words[1])
    except ValueError:
        return False


def aggregate_metadata_matches(aggregate_specs, metadata_values):
    """Whether a host passes AggregateInstanceExtraSpecsFilter.

    :param aggregate_specs: {key: requirement}, as aggregate_specs() returns
        (ResourceRequest.aggregate_specs).
    :param metadata_values: {key: set of values}, as
        host_aggregate_metadata() returns.

    Every key must be present with at least one value that matches; a host
    without the key fails.
    """
    for key, requirement in aggregate_specs.items():
        values = metadata_values.get(key)
        if not values:
            return False
        if not any(spec_matches(value, requirement) for value in values):
            return False
    return True
