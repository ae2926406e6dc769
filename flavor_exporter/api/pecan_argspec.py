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
"""Pecan's argument introspection, remembered per function.

Pecan 1.8 asks ``pecan.util.getargspec`` for a controller's signature
several times per request (five times for a RestController GET: routing,
argument binding, invocation), and each call runs
``inspect.getfullargspec`` and builds a new namedtuple *class*
(``pecan.compat.getargspec``). That was three quarters of what stock
Pecan added to a request here (doc/source/performance.rst). A function's
signature never changes while the process runs, so the answer is kept per
function: the first request pays for it, the others read a dict.

install() replaces the name in each Pecan module that imported it; it
is called by app.setup_app() and is idempotent. Remove this module once
Pecan memoises the signature itself: tests/unit/api/test_pecan_argspec.py
fails then, saying so.
"""

import threading

from pecan import core
from pecan import decorators
from pecan import rest
from pecan import routing
from pecan import util

#: The modules that bound ``getargspec`` at import time.
_USERS = (util, core, decorators, rest, routing)
_lock = threading.Lock()
#: Pecan's own function, kept for the test that tells when to drop this.
stock_getargspec = util.getargspec


def _remembered(stock):
    signatures = {}

    def getargspec(method):
        # A bound method is a new object on every attribute access; its
        # function is not, and has the same signature (self included).
        key = getattr(method, '__func__', method)
        found = signatures.get(key)
        if found is None:
            found = signatures[key] = stock(method)
        return found
    getargspec.remembers = signatures
    return getargspec


def install():
    """Make Pecan remember signatures; True if this call did it."""
    with _lock:
        if getattr(util.getargspec, 'remembers', None) is not None:
            return False
        remembered = _remembered(stock_getargspec)
        for module in _USERS:
            if getattr(module, 'getargspec', None) is stock_getargspec:
                module.getargspec = remembered
        return True
