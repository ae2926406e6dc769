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
memcached is needed, since both halves share the process.
"""

import sys

from oslo_log import log
from oslo_service import service

from flavor_exporter._i18n import _
from flavor_exporter.api import port
from flavor_exporter.api import server
from flavor_exporter.common import config
from flavor_exporter.common import one_process
from flavor_exporter.worker import on_miss
from flavor_exporter.worker import refresh
from flavor_exporter.worker import service as worker_service

LOG = log.getLogger(__name__)

PROG = 'flavor-exporter-all'

DESCRIPTION = _(
    'Run the API and the worker in one process: for small deployments '
    'and trials ([document_cache] backend = memory needs no memcached).')


def main(argv=None):
    try:
        config.prepare_service(sys.argv[1:] if argv is None else argv,
                               description=DESCRIPTION)
        options = refresh.engine_options(config.CONF)
    except config.CONFIG_ERRORS as exc:
        return config.refuse_to_start(PROG, exc)
    conf = config.CONF
    try:
        # Before the launcher: it would restart a process that cannot
        # bind, and the worker would refresh each time.
        sock = port.listen(conf.api.host_ip, conf.api.port,
                           conf.api.listen_backlog)
    except port.PortInUse as exc:
        sys.stderr.write('%s: %s\n' % (PROG, exc))
        return 1
    launcher = service.ServiceLauncher(conf, restart_method='mutate')
    # One launch_service call per service would fork one process each.
    workers = worker_service.for_clouds(conf, options)
    launcher.launch_service(one_process.OneProcess(
        workers.parts + [server.ApiService(
            conf, sockets=[sock], on_miss=on_miss.factory(conf))]))
    return launcher.wait()


if __name__ == '__main__':
    sys.exit(main())
