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
"""Parse the configuration and set up logging, once per process."""

import contextlib
import errno
import io
import re
import sys

from oslo_config import cfg
from oslo_log import log

from flavor_exporter._i18n import _
from flavor_exporter.common import clouds
from flavor_exporter.common import config_check
from flavor_exporter.common import exceptions
from flavor_exporter.common import nova_conf
from flavor_exporter import conf
from flavor_exporter.conf import opts
from flavor_exporter import version

CONF = conf.CONF
PROJECT = 'flavor-exporter'

# The exit status of a command that refuses its configuration: the one
# argparse gives a bad command line, so that both mean "fix how I am run".
EXIT_INVALID_CONFIG = 2

LOG = log.getLogger(__name__)

log.register_options(CONF)
opts.set_defaults()


# What a command may meet while reading its configuration at start.
CONFIG_ERRORS = (cfg.Error, exceptions.InvalidOption,
                 config_check.ConfigMistake)

# Where --help sends people for the options of the configuration files.
EPILOG = ('Most settings are in the configuration file '
          '(/etc/flavor-exporter/flavor-exporter.conf by default; every '
          'option is described in flavor-exporter.conf.sample).')


class ConfigFileUnreadable(exceptions.InvalidOption):
    """A configuration file named that cannot be read as a file."""


class RefusedValue(exceptions.InvalidOption):
    """A command-line value its option's type refuses (--format xml)."""


# What oslo.config writes before SystemExit(1) for such a value.
_REFUSED_VALUE = re.compile(
    r"argument --(?P<option>\S+): Invalid .*?(?:choices=\[(?P<choices>.*)"
    r"\])?\)? value: (?P<value>.*)")


@contextlib.contextmanager
def _refused_values():
    """RefusedValue for what oslo.config refuses with its own message.

    oslo.config writes the message and exits with status 1; argparse's
    usage errors and --help (other statuses) go through as they are.
    """
    written = io.StringIO()
    refused = None
    try:
        with contextlib.redirect_stderr(written):
            yield
    except SystemExit as exc:
        refused = _REFUSED_VALUE.match(written.getvalue().strip())
        if exc.code not in (None, 1) or not refused:
            refused = None
            raise
        choices = refused.group('choices')
        raise RefusedValue(_('--%(option)s %(value)s is not valid; '
                             '%(what)s') % {
            'option': refused.group('option'),
            'value': refused.group('value'),
            'what': _('choose %s') % ' or '.join(
                c.strip(" '") for c in choices.split(','))
            if choices else _('see --help')}) from None
    finally:
        if refused is None:
            sys.stderr.write(written.getvalue())


def parse_args(argv, default_config_files=None, default_config_dirs=None,
               description=None):
    try:
        with _refused_values():
            _parse_args(argv, default_config_files, default_config_dirs,
                        description)
    except OSError as exc:
        # oslo.config answers a missing or unreadable file itself; any
        # other failure to read one (a directory, say) escapes it.
        raise ConfigFileUnreadable(_unreadable(exc)) from None


def _parse_args(argv, default_config_files, default_config_dirs,
                description):
    CONF(argv,
         project=PROJECT,
         version=version.version_string(),
         usage='%(prog)s [options]',
         description=description,
         epilog=EPILOG if description else None,
         default_config_files=default_config_files,
         default_config_dirs=default_config_dirs)


def _unreadable(error):
    if error.errno == errno.EISDIR:
        return _('%s is a directory, not a configuration file; name the '
                 'file with --config-file, or the directory with '
                 '--config-dir (it reads every *.conf file in '
                 'it)') % error.filename
    return _('cannot read the configuration file %(file)s: %(error)s') % {
        'file': error.filename, 'error': error.strerror or error}


def prepare_service(argv, default_config_files=None,
                    default_config_dirs=None, description=None):
    """Parse argv (without the program name) and configure oslo.log.

    description: what the command does, the first thing --help says.
    Raises one of CONFIG_ERRORS when the files have a mistake, unknown
    options included (see flavor_exporter.common.config_check).
    """
    parse_args(argv, default_config_files, default_config_dirs,
               description)
    # The groups of [DEFAULT] clouds exist once the files named them.
    clouds.register_opts(CONF)
    clouds.configured(CONF)
    foreign = config_check.check(CONF)
    log.setup(CONF, PROJECT)
    for path, section, options in foreign:
        pasted = nova_conf.advice(CONF, path, section, options)
        for line in pasted:
            LOG.warning(line)
        if not pasted:
            LOG.info('%s: [%s] is not a flavor-exporter section; ignored',
                     path, section)
    CONF.log_opt_values(LOG, log.DEBUG)


def describe(error):
    """error in one line, with what to do about it."""
    if isinstance(error, cfg.ConfigFilesNotFoundError):
        return _('configuration file not found: %(files)s; create it from '
                 'flavor-exporter.conf.sample or name another with '
                 '--config-file') % {'files': ', '.join(error.config_files)}
    if isinstance(error, cfg.ConfigFileParseError):
        return _('%(file)s is not a valid configuration file: %(msg)s') % {
            'file': error.config_file, 'msg': error.msg}
    if isinstance(error, cfg.ConfigDirNotFoundError):
        return _('configuration directory not found: %s; create it or '
                 'name another with --config-dir') % error.config_dir
    return ' '.join(str(error).split())


def refuse_to_start(prog, error):
    """Say on one line why prog cannot start; the exit status to return.

    One line on stderr, not a traceback: the operator's next step is to
    edit the configuration, not to read our code.
    """
    LOG.debug('%s refused its configuration', prog, exc_info=error)
    sys.stderr.write('%s: %s\n' % (prog, describe(error)))
    return EXIT_INVALID_CONFIG
