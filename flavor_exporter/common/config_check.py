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

check_urls() reads the URLs of the services the worker reaches besides
the cloud's APIs (Nova's message bus, its cell databases) as the worker
will, so that one it cannot use stops the command at start: found in
the worker's forked process, it would end the process, and the launcher
would start it again, and again, a traceback each time.
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


# Why a URL that splits into parts may still not be read, shown instead
# of the parser's message, which can quote part of a password.
_HOST_OR_PORT = _('its host or port cannot be read: a port is a number, '
                  'and / ? # @ : in a user name or password must be '
                  'percent-encoded (%2F %3F %23 %40 %3A)')


def _where(conf, option, group):
    return conf.get_location(option, group).detail or _('configuration')


def transport_url_problem(conf, url):
    """Why oslo.messaging cannot use url, or None."""
    # Imported here: only a worker given a bus needs oslo.messaging.
    import oslo_messaging
    try:
        parsed = oslo_messaging.TransportURL.parse(conf, url)
    except oslo_messaging.InvalidTransportURL:
        return _('not a transport URL; write DRIVER://USER:PASSWORD@HOST:'
                 'PORT/VIRTUAL_HOST (rabbit://... for RabbitMQ), or remove '
                 'the option to poll alone')
    except ValueError:
        return _HOST_OR_PORT
    drivers = {entry.name: entry for entry in importlib.metadata.entry_points(
        group='oslo.messaging.drivers')}
    if parsed.transport not in drivers:
        return _('oslo.messaging has no %(driver)r driver; use one of '
                 '%(known)s, or remove the option to poll alone') % {
                     'driver': parsed.transport,
                     'known': ', '.join(sorted(drivers))}
    try:
        drivers[parsed.transport].load()
    except ImportError as exc:
        return _('its driver needs the Python package %s; install it '
                 'where flavor-exporter runs') % (exc.name or exc)
    return None


def database_url_problem(url):
    """Why SQLAlchemy cannot use url, or None."""
    # Imported here: only a worker given cell databases needs it.
    import sqlalchemy
    try:
        parsed = sqlalchemy.engine.make_url(url)
        dialect = parsed.get_dialect()
    except sqlalchemy.exc.NoSuchModuleError:
        return _('SQLAlchemy has no such dialect; Nova\'s databases are '
                 'mysql+pymysql://USER:PASSWORD@HOST/DATABASE')
    except sqlalchemy.exc.ArgumentError:
        return _('not an SQLAlchemy URL; write mysql+pymysql://USER:'
                 'PASSWORD@HOST/DATABASE')
    except ValueError:
        return _HOST_OR_PORT
    try:
        # import_dbapi since SQLAlchemy 2.0, dbapi before.
        (getattr(dialect, 'import_dbapi', None) or dialect.dbapi)()
    except ImportError as exc:
        return _('%(driver)s needs the Python package %(module)s; '
                 'install it where flavor-exporter runs') % {
                     'module': exc.name or exc,
                     'driver': parsed.drivername}
    return None


def check_urls(conf, groups):
    """ConfigMistake for a bus or cell database URL of groups unusable.

    groups: the configuration groups of the clouds the command reads.
    The message names the file, group and option, never the URL: it
    holds a password.
    """
    for group in groups:
        url = conf[group].notification_transport_url
        problem = url and transport_url_problem(conf, url)
        if problem:
            raise ConfigMistake(_(
                '%(file)s: [%(group)s] notification_transport_url: '
                '%(problem)s') % {
                    'file': _where(conf, 'notification_transport_url',
                                   group),
                    'group': group, 'problem': problem})
        urls = conf[group].cell_database_connections
        for number, url in enumerate(urls, 1):
            problem = database_url_problem(url)
            if problem:
                raise ConfigMistake(_(
                    '%(file)s: [%(group)s] cell_database_connections, '
                    'URL %(number)d of %(count)d: %(problem)s') % {
                        'file': _where(conf, 'cell_database_connections',
                                       group),
                        'group': group, 'number': number,
                        'count': len(urls), 'problem': problem})
