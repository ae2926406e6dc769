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

from oslo_config import cfg
from oslo_log import log

from flavor_exporter import conf
from flavor_exporter.conf import opts
from flavor_exporter import version

CONF = conf.CONF
PROJECT = 'flavor-exporter'

log.register_options(CONF)
opts.set_defaults()


def parse_args(argv, default_config_files=None, default_config_dirs=None):
    CONF(argv,
         project=PROJECT,
         version=version.version_string(),
         default_config_files=default_config_files,
         default_config_dirs=default_config_dirs)


def prepare_service(argv, default_config_files=None,
                    default_config_dirs=None):
    """Parse argv (without the program name) and configure oslo.log."""
    parse_args(argv, default_config_files, default_config_dirs)
    log.setup(CONF, PROJECT)
    CONF.log_opt_values(log.getLogger(__name__), log.DEBUG)


__all__ = ['CONF', 'cfg', 'parse_args', 'prepare_service']
