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
"""The policy enforcer of the API (oslo.policy)."""

import time

from oslo_config import cfg
from oslo_policy import opts
from oslo_policy import policy

from flavor_exporter._i18n import _
from flavor_exporter.common import config
from flavor_exporter.common import exceptions
from flavor_exporter import policies

# Where an option's value came from when an operator set it.
_SET = (cfg.Locations.user, cfg.Locations.command_line,
        cfg.Locations.environment)


def check_policy_file(conf):
    """exceptions.InvalidOption when a policy file named cannot be found.

    oslo.policy falls back on the defaults in code without a word when
    [oslo_policy] policy_file does not exist, which is right for the
    default name and wrong for a file an operator named: its rules would
    silently not apply. Not with [DEFAULT] auth_strategy = noauth:
    without authentication no policy is enforced.
    """
    if conf.auth_strategy == 'noauth':
        return
    opts.set_defaults(conf)
    location = conf.get_location('policy_file', 'oslo_policy')
    name = conf.oslo_policy.policy_file
    if location.location in _SET and not conf.find_file(name):
        raise exceptions.InvalidOption(_(
            '%(where)s: [oslo_policy] policy_file %(name)s does not exist '
            '(a relative name is looked for beside the configuration '
            'files); create it (etc/flavor-exporter/policy.yaml.sample '
            'has the defaults) or remove the option to use the defaults') % {
                'where': location.detail or _('configuration'),
                'name': name})


class RememberedDecisions:
    """oslo.policy's enforce(), each decision kept for up to a second.

    oslo.policy looks for a changed policy file in every configuration
    directory and reads the signature of every check on each enforce():
    about 100 us per rule, two or three rules per request, where serving
    the document costs 10 us (doc/source/performance.rst). A caller's
    credentials and a rule decide the answer; the same caller asks again
    and again (a portal, Prometheus). Forgetting every decision each
    second keeps an edited policy file in effect within a second.
    """

    #: Seconds a decision is kept.
    KEEP = 1.0
    #: Decisions kept at most (distinct callers x rules within KEEP).
    LIMIT = 4096

    def __init__(self, enforcer, clock=time.monotonic):
        self._enforcer = enforcer
        self._clock = clock
        self._decided = {}
        self._forget_at = float('-inf')

    def enforce(self, rule, target, creds):
        """Whether creds pass rule for target; False on a scope refusal."""
        now = self._clock()
        if now >= self._forget_at or len(self._decided) >= self.LIMIT:
            # Rebound, not cleared: threads reading the old one finish.
            self._decided = {}
            self._forget_at = now + self.KEEP
        key = (rule, tuple(sorted(target.items())), tuple(sorted(
            (name, tuple(value) if isinstance(value, list) else value)
            for name, value in creds.items())))
        decided = self._decided.get(key)
        if decided is None:
            try:
                decided = bool(self._enforcer.enforce(rule, target, creds))
            except policy.InvalidScope:
                decided = False
            self._decided[key] = decided
        return decided


def make_enforcer(conf):
    """The API's enforcer: oslo.policy's, its decisions remembered."""
    check_policy_file(conf)
    enforcer = policy.Enforcer(conf)
    enforcer.register_defaults(policies.list_rules())
    return RememberedDecisions(enforcer)


def get_enforcer():
    """The enforcer of this deployment, for the oslopolicy-* commands."""
    config.parse_args([])
    check_policy_file(config.CONF)
    enforcer = policy.Enforcer(config.CONF)
    enforcer.register_defaults(policies.list_rules())
    return enforcer
