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
"""How every command starts: a configuration it can run with, a port.

A command that cannot start says why in one line on stderr and exits: 2
for a configuration it cannot run with (config.EXIT_INVALID_CONFIG), 1 for
a port it cannot bind. The operator's next step is to edit a file or free
a port, not to read a traceback.
"""

import functools
import sys

from flavor_exporter.common import config
from flavor_exporter.wsgi import port


class Stop(Exception):
    """The command stops before it started; status is its exit status."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


def command(main):
    """Decorates main(argv=None): a Stop becomes main's exit status."""
    @functools.wraps(main)
    def run(argv=None):
        try:
            return main(sys.argv[1:] if argv is None else argv)
        except Stop as stop:
            return stop.status
    return run


def configure(prog, argv, description, check=None):
    """Parse argv into config.CONF and set up logging.

    check(conf) is what else must hold before the command starts (engine
    options, say): its result is returned with the CONF. Stop(2) after
    one line on stderr when the configuration cannot run.
    """
    try:
        config.prepare_service(argv, description=description)
        checked = check(config.CONF) if check is not None else None
    except config.CONFIG_ERRORS as exc:
        raise Stop(config.refuse_to_start(prog, exc)) from None
    return config.CONF, checked


def check_port(prog, conf):
    """Stop(1) after one line on stderr when [api] host_ip:port is taken.

    Checked before any process starts: the server would restart a process
    that cannot bind, and the worker of flavor-exporter-all would refresh
    each time.
    """
    try:
        port.listen(conf.api.host_ip, conf.api.port,
                    conf.api.listen_backlog).close()
    except port.PortInUse as exc:
        sys.stderr.write('%s: %s\n' % (prog, exc))
        raise Stop(1) from None
