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

"""flavor-exporter-all: the API and the worker in one process.

For small deployments and the demo; with [document_cache] backend = memory no
memcached is needed, since both halves share the process: granian's one
process (flavor_exporter.wsgi.server) builds the application and starts the
worker's timers beside it, and stops them when it stops.
"""

import sys

from oslo_log import log

from flavor_exporter._i18n import _
from flavor_exporter.api import app
from flavor_exporter.cmd import api as cmd_api
from flavor_exporter.cmd import start
from flavor_exporter.cmd import worker as cmd_worker
from flavor_exporter.worker import service as worker_service
from flavor_exporter.wsgi import server

LOG = log.getLogger(__name__)

PROG = 'flavor-exporter-all'

DESCRIPTION = _(
    'Run the API and the worker in one process: for small deployments '
    'and trials ([document_cache] backend = memory needs no memcached).')


def check(conf):
    """What the worker and the API each check before they start."""
    cmd_api.check(conf)
    return cmd_worker.check(conf)


def _worker_and_app(conf, options):
    """Start the worker's services in this process; the API's application."""
    workers = worker_service.for_clouds(conf, options)
    workers.start()

    def stop():
        workers.stop(graceful=True)
        workers.wait()
    server.on_exit(stop)
    return app.setup_app(conf)


@start.command
def main(argv):
    conf, options = start.configure(PROG, argv, DESCRIPTION, check)
    start.check_port(PROG, conf)
    LOG.info('Serving on %s:%d, the worker beside the API',
             conf.api.host_ip, conf.api.port)
    server.serve(server.granian(conf, 1, PROG),
                 lambda: _worker_and_app(conf, options))
    return 0


if __name__ == '__main__':
    sys.exit(main())
