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
"""flavor-exporter-api: serve the API in processes sized to the machine.

This command parses the configuration, checks that the port is free (one
line and exit status 1 if not), then serves the WSGI application with
granian (flavor_exporter.wsgi.server): [api] workers processes of [api]
threads threads each. Each process builds the application after the
fork, so each has its own cache connections.

The WSGI module flavor_exporter.wsgi.api serves the same application under
uWSGI or mod_wsgi, as devstack runs OpenStack's APIs (etc/uwsgi/,
etc/apache2/).
"""

import os
import sys

from oslo_log import log

from flavor_exporter._i18n import _
from flavor_exporter.api import app
from flavor_exporter.api import auth
from flavor_exporter.cmd import start
from flavor_exporter.wsgi import server

LOG = log.getLogger(__name__)

PROG = 'flavor-exporter-api'

DESCRIPTION = _(
    'Serve the flavor capacity REST API (/v3/flavors/, the seed\'s '
    '/v2/flavors/, the legacy /gpus/flavors, /metrics, /healthcheck) in '
    '[api] workers processes, from what flavor-exporter-worker publishes '
    'to memcached.')


def check(conf):
    """Authentication can start as set, and serves only whom it may."""
    auth.check(conf)
    auth.check_exposure(conf)


def workers(conf):
    return conf.api.workers or os.cpu_count() or 1


@start.command
def main(argv):
    conf, _ = start.configure(PROG, argv, DESCRIPTION, check)
    start.check_port(PROG, conf)
    LOG.info('Serving on %s:%d with %d processes of %d threads',
             conf.api.host_ip, conf.api.port, workers(conf),
             conf.api.threads)
    server.serve(server.granian(conf, workers(conf), PROG),
                 lambda: app.setup_app(conf))
    return 0


if __name__ == '__main__':
    sys.exit(main())
