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
"""Memoise Pecan's argspec lookup, its most expensive step per request.

Pecan 1.8's ``pecan.compat.getargspec`` defines a new ``namedtuple``
class on every call, and Pecan calls it several times per request (routing,
argument binding, ``invoke_controller``). Measured on this project's API,
that was about half of the CPU time of a request. A function's argspec
never changes, so it is computed once per function here and reused.

``install()`` replaces ``pecan.compat.getargspec`` and the alias
``pecan.util`` imported from it. Nothing else in Pecan changes. Remove this
module, and its call in ``flavor_exporter.api.app``, once Pecan builds the
namedtuple class once (the unit test of this module says when: it fails
when Pecan no longer needs the fix).
"""

import collections
import inspect
import types
import weakref

import pecan.compat
import pecan.util

ArgSpec = collections.namedtuple('ArgSpec', 'args varargs keywords defaults')

_original = pecan.compat.getargspec
_specs = weakref.WeakKeyDictionary()


def getargspec(func):
    """``pecan.compat.getargspec``, computed once per function.

    Bound methods share the entry of their function: Pecan looks up
    methods of controller instances, and a method's argspec (``self``
    included) is its function's. Other callables are not memoised.
    """
    target = getattr(func, '__func__', func)
    if not isinstance(target, types.FunctionType):
        return _original(func)
    spec = _specs.get(target)
    if spec is None:
        args, varargs, keywords, defaults = (
            inspect.getfullargspec(target)[:4])
        spec = _specs[target] = ArgSpec(args, varargs, keywords, defaults)
    # A fresh list: a caller mutating its copy must not change the memo.
    return ArgSpec(list(spec.args), spec.varargs, spec.keywords,
                   spec.defaults)


def install():
    """Make Pecan use the memoised lookup; idempotent."""
    pecan.compat.getargspec = getargspec
    # pecan.util did "from pecan.compat import getargspec as _getargspec";
    # every other Pecan module goes through pecan.util.getargspec.
    pecan.util._getargspec = getargspec


def uninstall():
    """Restore Pecan's own lookup (benchmarks and tests compare both)."""
    pecan.compat.getargspec = _original
    pecan.util._getargspec = _original


def installed():
    return pecan.util._getargspec is getargspec
