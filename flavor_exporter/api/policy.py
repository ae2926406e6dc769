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
"""The policy enforcer of the API (oslo.policy).

A policy file is read at start, and a file that cannot be used stops the
API with one line. oslo.policy reads the file again when it changes, on
the next enforce(), and raises there when it no longer parses: every
request would answer 500. Here the files are read again once a second,
apart from the requests, and a file that breaks keeps the rules read
last in force, with one WARNING line until it is fixed.
"""

import contextlib
import logging
import os
import threading
import time

from oslo_config import cfg
from oslo_log import log
from oslo_policy import opts
from oslo_policy import policy

from flavor_exporter._i18n import _
from flavor_exporter.common import config
from flavor_exporter.common import exceptions
from flavor_exporter import policies

LOG = log.getLogger(__name__)

# Where an option's value came from when an operator set it.
_SET = (cfg.Locations.user, cfg.Locations.command_line,
        cfg.Locations.environment)


def check_policy_file(conf):
    """InvalidOption when a policy file named cannot be found or read.

    Read means parsed as rules, each rule too: a file that does not
    parse would answer 500 to every request, a rule that does not would
    deny all it guards. oslo.policy falls back on the defaults in code
    without a word when [oslo_policy] policy_file does not exist, which
    is right for the default name and wrong for a file an operator named:
    its rules would silently not apply. Not with [DEFAULT]
    auth_strategy = noauth: without authentication no policy is
    enforced.
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
    try:
        load(_enforcer(conf))
    except PolicyFileError as exc:
        raise PolicyFileError(_(
            '%(where)s: [oslo_policy] policy file %(error)s; fix it '
            '(etc/flavor-exporter/policy.yaml.sample has the defaults) or '
            'remove it to use the defaults') % {
                'where': location.detail or _('configuration'),
                'error': exc}) from None


class PolicyFileError(exceptions.InvalidOption):
    """The policy files cannot be read as rules; one line saying why."""


class _ParserFailures(logging.Filter):
    """Rules oslo.policy's parser gave up on, kept instead of logged.

    oslo.policy logs a rule it cannot parse with a traceback and denies
    everything it guards: the rule's file is refused instead, in a line.
    """

    def __init__(self):
        super().__init__()
        self.rules = []

    def filter(self, record):
        if record.args and 'understand rule' in str(record.msg):
            self.rules.append(record.args[0] if isinstance(
                record.args, tuple) else record.args)
            return False
        return True


@contextlib.contextmanager
def _parser_failures():
    failures = _ParserFailures()
    logger = logging.getLogger('oslo_policy._parser')
    logger.addFilter(failures)
    try:
        yield failures.rules
    finally:
        logger.removeFilter(failures)


def _files(enforcer):
    """The policy files enforcer reads, for a message."""
    conf = enforcer.conf.oslo_policy
    names = [enforcer.policy_path or conf.policy_file]
    names += [d for d in conf.policy_dirs if enforcer.conf.find_file(d)]
    return ', '.join(names)


def load(enforcer, force=False):
    """Read enforcer's policy files now; PolicyFileError if unusable.

    force: read them even if unchanged. Leaves enforce() reading none:
    only load() does, so a file that breaks is seen here, not by a
    request.
    """
    gone = enforcer.policy_path
    if gone and not os.path.exists(gone):
        # oslo.policy would log an ERROR each time and take the defaults,
        # which may let more callers read than the file did.
        raise PolicyFileError(_('%s does not exist any more') % gone)
    enforcer.use_conf = True
    try:
        with _parser_failures() as unparsed:
            enforcer.load_rules(force_reload=force)
    except Exception as exc:
        # YAML's errors take four lines: one is what is shown.
        raise PolicyFileError(_(
            '%(files)s cannot be read as rules: %(why)s') % {
                'files': _files(enforcer),
                'why': ' '.join(str(exc).split()) or type(exc).__name__}
        ) from None
    finally:
        enforcer.use_conf = False
    if unparsed:
        raise PolicyFileError(_(
            '%(files)s: the rule "%(rule)s" cannot be parsed (oslo.policy '
            'would deny everything it guards)') % {
                'files': _files(enforcer), 'rule': unparsed[0]})


class LastGoodRules:
    """reload(): the policy files read if changed, the last good kept.

    A file that breaks (a YAML error, a rule that does not parse, a file
    gone) leaves the rules read last in force and says so in one
    WARNING line, repeated only if the reason changes; one INFO line
    when the files can be read again.
    """

    def __init__(self, enforcer):
        self._enforcer = enforcer
        # Why the files were refused last; None while they are good.
        self._broken = None

    def reload(self):
        enforcer = self._enforcer
        rules, file_rules = dict(enforcer.rules), dict(enforcer.file_rules)
        try:
            # Forced while broken: oslo.policy remembers the broken file
            # as read, and would not read it again until it changes.
            load(enforcer, force=self._broken is not None)
        except PolicyFileError as exc:
            enforcer.set_rules(rules, overwrite=True, use_conf=False)
            enforcer.file_rules = file_rules
            if str(exc) != self._broken:
                LOG.warning('Policy file %s; the rules read before stay '
                            'in force until it is fixed', exc)
            self._broken = str(exc)
            return
        if self._broken is not None:
            LOG.info('Policy file %s read again: its rules are in force',
                     _files(enforcer))
        self._broken = None


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

    def __init__(self, enforcer, clock=time.monotonic, reload=None):
        # reload: reads the policy files again when the decisions are
        # forgotten (LastGoodRules.reload); None: enforce() does.
        self._enforcer = enforcer
        self._clock = clock
        self._reload = reload
        # The enforcer is not asked while it reads its files: a thread
        # would find them half read.
        self._lock = threading.Lock()
        self._decided = {}
        self._forget_at = float('-inf')

    def enforce(self, rule, target, creds):
        """Whether creds pass rule for target; False on a scope refusal."""
        now = self._clock()
        if now >= self._forget_at or len(self._decided) >= self.LIMIT:
            if self._reload is not None and now >= self._forget_at:
                with self._lock:
                    self._reload()
            # Rebound, not cleared: threads reading the old one finish.
            self._decided = {}
            self._forget_at = now + self.KEEP
        key = (rule, tuple(sorted(target.items())), tuple(sorted(
            (name, tuple(value) if isinstance(value, list) else value)
            for name, value in creds.items())))
        decided = self._decided.get(key)
        if decided is None:
            try:
                with self._lock:
                    decided = bool(self._enforcer.enforce(rule, target,
                                                          creds))
            except policy.InvalidScope:
                decided = False
            self._decided[key] = decided
        return decided


def _enforcer(conf):
    enforcer = policy.Enforcer(conf)
    enforcer.register_defaults(policies.list_rules())
    return enforcer


def make_enforcer(conf):
    """The API's enforcer: oslo.policy's, its decisions remembered.

    PolicyFileError when the policy files cannot be used now.
    """
    check_policy_file(conf)
    enforcer = _enforcer(conf)
    load(enforcer)
    return RememberedDecisions(enforcer,
                               reload=LastGoodRules(enforcer).reload)


def get_enforcer():
    """The enforcer of this deployment, for the oslopolicy-* commands."""
    config.parse_args([])
    check_policy_file(config.CONF)
    enforcer = policy.Enforcer(config.CONF)
    enforcer.register_defaults(policies.list_rules())
    return enforcer
