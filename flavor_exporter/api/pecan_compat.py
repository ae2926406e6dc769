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
"""Take two per-request costs out of Pecan 1.8 that need no recomputing.

1. ``pecan.compat.getargspec`` defines a new ``namedtuple`` class on every
   call, and Pecan calls it several times per request (routing, argument
   binding, ``invoke_controller``): about 70% of the CPU time of a request
   to this API (tools/bench/api.py, stock vs fixed). A function's argspec
   never changes, so it is computed once per function here.
2. ``pecan.routing._detect_custom_path_segments`` runs ``dir()`` on every
   controller a request traverses, before it checks whether it has
   already scanned that controller's class; here the check comes first.

``install()`` replaces those two functions (and the alias ``pecan.util``
imported of the first); nothing else in Pecan changes. Remove this module,
and its call in ``flavor_exporter.api.app``, once Pecan fixes them: its
unit tests fail when Pecan no longer needs either fix.
"""

import collections
import inspect
import types
import weakref

import pecan.compat
import pecan.routing
import pecan.util

ArgSpec = collections.namedtuple('ArgSpec', 'args varargs keywords defaults')

_original = pecan.compat.getargspec
_original_detect = pecan.routing._detect_custom_path_segments
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


def detect_custom_path_segments(obj):
    """Pecan's own, skipped for classes it has already scanned."""
    if obj.__class__ in pecan.routing.__observed_controllers__:
        return
    _original_detect(obj)


def install():
    """Make Pecan use the functions above; idempotent."""
    pecan.compat.getargspec = getargspec
    # pecan.util did "from pecan.compat import getargspec as _getargspec";
    # every other Pecan module goes through pecan.util.getargspec.
    pecan.util._getargspec = getargspec
    pecan.routing._detect_custom_path_segments = detect_custom_path_segments


def uninstall():
    """Restore Pecan's own (benchmarks and tests compare both)."""
    pecan.compat.getargspec = _original
    pecan.util._getargspec = _original
    pecan.routing._detect_custom_path_segments = _original_detect


def installed():
    return pecan.util._getargspec is getargspec
