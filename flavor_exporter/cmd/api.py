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

This command parses the configuration, binds [api] host_ip and port (one
line and exit status 1 if it cannot), then runs [api] workers processes
(default twice the CPUs) of the API's server (flavor_exporter.wsgi.server)
with [api] threads threads each, all serving on that one socket. Each
process builds the application after the fork, so each has its own cache
connections.

The server keeps connections alive, holds slow and idle clients without a
thread, bounded by [api] request_timeout, keepalive_timeout and
max_connections, and answers malformed or oversized requests with a JSON
error. tools/bench/api.py measures it against a bare WSGI callable under
uWSGI, the fastest server on these machines, and beside thousands of
slow clients (tools/bench/slow_clients.py); the figures are in
doc/source/performance.rst. The WSGI module flavor_exporter.wsgi.api
still serves under any WSGI server.
"""

import os
import sys

from oslo_log import log
from oslo_service import service

from flavor_exporter._i18n import _
from flavor_exporter.api import auth
from flavor_exporter.cmd import start
from flavor_exporter.wsgi import server

LOG = log.getLogger(__name__)

PROG = 'flavor-exporter-api'

DESCRIPTION = _(
    'Serve the flavor capacity REST API (/v3/flavors/, the legacy '
    '/gpus/flavors, /metrics, /healthcheck) in [api] workers processes, '
    'from what flavor-exporter-worker publishes to memcached.')


def workers(conf):
    return conf.api.workers or 2 * (os.cpu_count() or 1)


def serve(conf, sock, application=None):
    """Run the API's processes on the listening socket sock until stopped.

    application: as server.ApiService takes (the benchmarks pass theirs).
    Returns the launcher's exit status.
    """
    launcher = service.ServiceLauncher(conf, restart_method='mutate')
    launcher.launch_service(
        server.ApiService(conf, sockets=[sock], application=application),
        workers=workers(conf))
    LOG.info('Serving on %s:%d with %d processes of %d threads',
             conf.api.host_ip, sock.getsockname()[1], workers(conf),
             conf.api.threads)
    return launcher.wait()


@start.command
def main(argv):
    conf, _ = start.configure(PROG, argv, DESCRIPTION,
                              auth.check)
    return serve(conf, start.listen(PROG, conf))


if __name__ == '__main__':
    sys.exit(main())
