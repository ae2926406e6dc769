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
"""Find mistakes in the configuration files that oslo.config lets pass.

oslo.config ignores an option it does not know (a misspelling reads as the
default, silently) and checks a value only when the value is first read,
which may be hours into a run, with a message that names neither the group
nor the file. check() reads the files the way oslo.config does, right after
parsing, and says in one line which file, group and option are wrong.

What is known: every option of the namespaces the sample configuration is
generated from (conf.opts.SAMPLE_NAMESPACES),
whatever the command registered, and the options of the keystoneauth plugin
an auth group names. A section that is none of those and resembles none
belongs to another program sharing the file: it is left alone.
"""

import difflib
import importlib.metadata
import os

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

from flavor_exporter._i18n import _
from flavor_exporter.conf import clouds as clouds_conf
from flavor_exporter.conf import opts as conf_opts

# The sample configuration's namespaces: the options a file may set.
NAMESPACES = conf_opts.SAMPLE_NAMESPACES

# Groups whose options also depend on their auth_type (keystoneauth),
# besides every [cloud:NAME].
AUTH_GROUPS = ('openstack', 'keystone_authtoken')

DEFAULT = 'DEFAULT'


class ConfigMistake(ValueError):
    """A configuration file sets something flavor-exporter cannot use."""


def config_files(conf):
    """The files oslo.config read, in its order (--config-dir included)."""
    files = list(conf.config_file or [])
    for directory in conf.config_dir or []:
        files += sorted(os.path.join(directory, name)
                        for name in os.listdir(directory)
                        if name.endswith('.conf'))
    return files


def _is_group(conf, name):
    """Whether name of conf is a group (else an option of [DEFAULT])."""
    try:
        return isinstance(conf[name], cfg.ConfigOpts.GroupAttr)
    except cfg.ConfigFileValueError:
        return False  # an option whose value invalid_values will name


def _names(opt):
    names = {opt.dest}
    for deprecated in opt.deprecated_opts:
        if deprecated.name:
            names.add(deprecated.name.replace('-', '_'))
    return names


def _add(known, group, opts):
    names = known.setdefault(group or DEFAULT, set())
    for opt in opts:
        names.update(_names(opt))


def known_options(conf):
    """{group: option names} a configuration file may set."""
    known = {}
    for namespace in NAMESPACES:
        for entry in importlib.metadata.entry_points(
                group='oslo.config.opts', name=namespace):
            for group, opts in entry.load()():
                _add(known, getattr(group, 'name', group), opts)
    # What the command registered (its command line options included).
    known.setdefault(DEFAULT, set()).update(
        name for name in conf if not _is_group(conf, name))
    for name in conf:
        if _is_group(conf, name):
            known.setdefault(name, set()).update(conf[name])
    return known


def _plugin_options(auth_type):
    """Option names of keystoneauth plugin auth_type, None if unknown."""
    try:
        return {opt.dest for opt in
                ks_loading.get_auth_plugin_conf_options(auth_type)}
    except ks_exc.NoMatchingPlugin:
        return None


def read(path):
    """{section: {option: [values]}} of one file, as oslo.config reads."""
    sections = {}
    cfg.ConfigParser(path, sections).parse()
    return sections


def _did_you_mean(word, candidates):
    close = difflib.get_close_matches(word, sorted(candidates), n=1,
                                      cutoff=0.75)
    return close[0] if close else None


def unknown(path, sections, known):
    """(mistakes, foreign sections) of one file's sections.

    A mistake is a ConfigMistake message; a foreign section one that is
    not ours and resembles none of ours.
    """
    mistakes, foreign = [], []
    for section, options in sections.items():
        is_cloud = section.startswith(clouds_conf.GROUP_PREFIX)
        if is_cloud and section not in known:
            mistakes.append(
                _('%(file)s: [%(section)s] is the group of no cloud; add '
                  '%(name)s to [DEFAULT] clouds or remove the section')
                % {'file': path, 'section': section,
                   'name': section[len(clouds_conf.GROUP_PREFIX):]})
            continue
        if section not in known:
            guess = _did_you_mean(section, known)
            if guess:
                mistakes.append(
                    _('%(file)s: unknown section [%(section)s]; did you '
                      'mean [%(guess)s]?')
                    % {'file': path, 'section': section, 'guess': guess})
            else:
                foreign.append(section)
            continue
        names = set(known[section])
        if section in AUTH_GROUPS or is_cloud:
            auth_type = options.get('auth_type', [None])[-1]
            if auth_type:
                plugin = _plugin_options(auth_type)
                if plugin is None:
                    continue  # keystoneauth says what is wrong with it
                names |= plugin
            else:
                names |= _plugin_options('password')
        for option in options:
            if option in names:
                continue
            guess = _did_you_mean(option, names)
            hint = (_('; did you mean "%s"?') % guess if guess else
                    _('; see flavor-exporter.conf.sample for the options '
                      'of [%s]') % section)
            mistakes.append(
                _('%(file)s: [%(section)s] has no option "%(option)s"'
                  '%(hint)s') % {'file': path, 'section': section,
                                 'option': option, 'hint': hint})
    return mistakes, foreign


def invalid_values(conf, where):
    """Read every registered option; ConfigMistake for a bad value.

    where: {(group, option): file that sets it}.
    """
    for group, names in [(None, [n for n in conf
                                 if not _is_group(conf, n)])] + [
            (n, list(conf[n])) for n in conf if _is_group(conf, n)]:
        values = conf[group] if group else conf
        for name in names:
            try:
                values[name]
            except cfg.ConfigFileValueError as exc:
                reason = str(exc).rpartition(' is not valid: ')[2]
                raise ConfigMistake(
                    _('%(file)s: [%(group)s] %(option)s is not valid: '
                      '%(reason)s; fix the value or remove the line for '
                      'the default') % {
                        'file': where.get((group or DEFAULT, name),
                                          _('configuration')),
                        'group': group or DEFAULT, 'option': name,
                        'reason': reason}) from None


def check(conf):
    """Raise ConfigMistake on the first mistake; foreign sections.

    Returns [(file, section, {option: [raw values]})] of the sections
    that belong to another program. Call right after conf was parsed.
    """
    known = known_options(conf)
    where = {}
    foreign = []
    for path in config_files(conf):
        sections = read(path)
        for section, options in sections.items():
            for option in options:
                where[(section, option)] = path
        mistakes, others = unknown(path, sections, known)
        if mistakes:
            raise ConfigMistake(mistakes[0])
        foreign += [(path, s, sections[s]) for s in others]
    invalid_values(conf, where)
    return foreign
