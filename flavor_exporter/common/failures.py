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
"""One line per failure: what failed, its root cause, what to do next.

A failed refresh raises through keystoneauth, requests, urllib3 and the
socket, each wrapping the last: six chained tracebacks for one refused
connection. explain() keeps the first message (what we were doing), the
last cause (what actually happened) and a hint for the operator.
"""

from keystoneauth1 import exceptions as ks_exc

from flavor_exporter._i18n import _
from flavor_exporter.common import exceptions


def causes(exc):
    """exc, then what caused it, and so on; each once."""
    seen = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def _hint(chain, group, again):
    for exc in chain:
        if isinstance(exc, ks_exc.MissingRequiredOptions):
            return _('set them in [%s], or in clouds.yaml or the OS_* '
                     'variables') % group
        if isinstance(exc, ks_exc.Unauthorized):
            return _('check the credentials in [%s], or in clouds.yaml or '
                     'the OS_* variables') % group
        if isinstance(exc, ks_exc.DiscoveryFailure):
            return _('check [%s] auth_url (or clouds.yaml) and that '
                     'Keystone is up') % group
        if isinstance(exc, (ks_exc.ConnectFailure, ks_exc.ConnectTimeout,
                            ConnectionError, TimeoutError)):
            return _('check that the service is up and reachable from '
                     'this host')
        if isinstance(exc, exceptions.CacheError):
            return _('check that memcached runs and is reachable at '
                     '[document_cache] memcache_servers')
    if not again:
        return _('run with --debug for the traceback')
    return _('the next refresh tries again; run with --debug for the '
             'traceback')


def _text(exc):
    text = ' '.join(str(exc).split())
    return text or type(exc).__name__


def explain(exc, group='openstack', again=True):
    """One line for exc: its message, its root cause, what to do next.

    group: the option group of the cloud that was read ([openstack] or a
    [cloud:NAME]); again: whether the work is retried on its own (a
    refresh) or not (a one-shot command).
    """
    chain = causes(exc)
    line = _text(exc)
    if not isinstance(exc, Exception) or type(exc).__module__ == 'builtins':
        line = '%s: %s' % (type(exc).__name__, line)
    root = _text(chain[-1])
    if len(chain) > 1 and root not in line:
        line = _('%(message)s (cause: %(root)s)') % {'message': line,
                                                     'root': root}
    # "Cloud nope was not found." ends a sentence the hint continues.
    return '%s; %s' % (line.rstrip('.'), _hint(chain, group, again))
