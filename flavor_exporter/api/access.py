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
"""What one caller may read, decided once per request.

With ``[DEFAULT] auth_strategy = keystone`` or ``http_basic`` the caller
was authenticated (auth.py); the policies (flavor_exporter.policies)
decide what the caller's roles and project may read. A user of the HTTP
Basic user file has no roles and no project: its user id is its name
(``user_id:NAME`` in a rule). Without authentication (``noauth``,
loopback deployments) everything is readable.
"""

from oslo_context import context
from oslo_log import log

from flavor_exporter.api import errors

LOG = log.getLogger(__name__)

ENVIRON_KEY = 'flavor_exporter.access'


class Access:
    """The caller's rights; unrestricted when enforcer is None."""

    def __init__(self, enforcer=None, environ=None):
        self._enforcer = enforcer
        self.project_id = None
        self.user_id = None
        if enforcer is not None:
            # With the request's ids (middleware/request_id.py) from the
            # environ; it replaces the thread's context, so the request's
            # later log lines name the caller as well.
            caller = context.RequestContext.from_environ(environ)
            self.project_id = caller.project_id
            self.user_id = caller.user_id
            self._credentials = caller.to_policy_values()

    def may(self, rule, target=None):
        """Whether policy rule allows the caller.

        target: what the route names, e.g. {'project_id': ...}. The
        enforcer remembers its decisions (policy.RememberedDecisions).
        """
        if self._enforcer is None:
            return True
        return self._enforcer.enforce(rule, target or {}, self._credentials)

    def require(self, rule, target=None):
        if not self.may(rule, target):
            LOG.debug('Policy %s refused project %s', rule, self.project_id)
            raise errors.Forbidden(
                'Your role does not allow this (policy %s). Ask an '
                'administrator for a system reader token.' % rule)


#: Every caller without authentication (noauth).
UNRESTRICTED = Access()


def private_flavors(document):
    """{flavor id: frozenset of project ids, or None} of an ACCESS document."""
    return {flavor_id: None if projects is None else frozenset(projects)
            for flavor_id, projects in document.items()}


def may_see(private, flavor_id, project_id):
    """Whether a project's member may see flavor_id."""
    if flavor_id not in private:
        return True
    projects = private[flavor_id]
    return projects is not None and project_id in projects
