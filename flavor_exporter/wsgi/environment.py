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
"""Which configuration files the WSGI application reads.

A WSGI server owns the command line, so the files are named in the
environment, as nova's WSGI entry point does it:

- ``OS_FLAVOR_EXPORTER_CONFIG_DIR``: a directory, default
  /etc/flavor-exporter;
- ``OS_FLAVOR_EXPORTER_CONFIG_FILES``: ``;``-separated file names in that
  directory (absolute paths are taken as they are), default
  flavor-exporter.conf.

A file named explicitly must exist (an empty list means none); the
default one may be absent, and the service then runs on defaults.
environment() gives both variables for a list of files, for a WSGI server
started from Python (flavor-exporter-api itself parses its command line).
"""

import os

CONFIG_DIR_ENV = 'OS_FLAVOR_EXPORTER_CONFIG_DIR'
CONFIG_FILES_ENV = 'OS_FLAVOR_EXPORTER_CONFIG_FILES'
DEFAULT_CONFIG_DIR = '/etc/flavor-exporter'
DEFAULT_CONFIG_FILES = 'flavor-exporter.conf'


def config_files(environ=None):
    """The configuration files environ names; RuntimeError if missing."""
    environ = os.environ if environ is None else environ
    directory = environ.get(CONFIG_DIR_ENV) or DEFAULT_CONFIG_DIR
    names = environ.get(CONFIG_FILES_ENV)
    explicit = names is not None
    if not explicit:
        names = DEFAULT_CONFIG_FILES
    paths = [os.path.join(directory, name.strip())
             for name in names.split(';') if name.strip()]
    missing = [path for path in paths if not os.path.isfile(path)]
    if not explicit:
        return [path for path in paths if path not in missing]
    if missing:
        raise RuntimeError('%s names configuration files that do not '
                           'exist: %s' % (CONFIG_FILES_ENV,
                                          ', '.join(missing)))
    return paths


def environment(files):
    """The variables that make the application read files (absolute)."""
    return {CONFIG_DIR_ENV: '/',
            CONFIG_FILES_ENV: ';'.join(os.path.abspath(f) for f in files)}
