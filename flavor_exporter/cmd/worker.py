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

"""flavor-exporter-worker: refresh the cache periodically, or once."""

import sys

from oslo_config import cfg
from oslo_log import log
from oslo_service import service

from flavor_exporter._i18n import _
from flavor_exporter.cmd import start
from flavor_exporter.common import clouds
from flavor_exporter.common import config
from flavor_exporter.common import config_check
from flavor_exporter.publication import publisher
from flavor_exporter.worker import leadership
from flavor_exporter.worker import refresh
from flavor_exporter.worker import service as worker_service

LOG = log.getLogger(__name__)

PROG = 'flavor-exporter-worker'

DESCRIPTION = _(
    'Read Nova and Placement every [worker] refresh_interval seconds, '
    'compute how many instances of each flavor fit, and publish the '
    'result to memcached for flavor-exporter-api. With --run-once, '
    'refresh once and exit.')

CLI_OPTS = [
    cfg.BoolOpt('run-once', default=False,
                help='Refresh once (every cloud of [DEFAULT] clouds), '
                     'then exit: 0 when new data was published for each, '
                     '1 otherwise.'),
]


@start.command
def main(argv):
    config.CONF.register_cli_opts(CLI_OPTS)
    conf, options = start.configure(PROG, argv, DESCRIPTION, check)
    if conf.run_once:
        return run_once(conf, options)
    launcher = service.ServiceLauncher(conf, restart_method='mutate')
    launcher.launch_service(worker_service.for_clouds(conf, options))
    return launcher.wait()


def check(conf):
    """The engine options, once coordination and the URLs are usable.

    Checked here, in the parent: a child that dies of a bad URL is
    started again by the launcher, a traceback each time, for ever.
    """
    leadership.check_backend_url(conf)
    config_check.check_urls(
        conf, [cloud.group for cloud in clouds.configured(conf)])
    return refresh.engine_options(conf)


def run_once(conf, options):
    """Refresh every cloud once; 0 when each published new data."""
    status = 0
    backend = None
    for cloud in clouds.configured(conf):
        cloud_publisher = publisher.Publisher.from_conf(conf, cloud, backend)
        backend = cloud_publisher.backend
        refresher = refresh.Refresher(conf, cloud_publisher, options=options,
                                      cloud=cloud)
        # The failure is this command's one line, not a log line too.
        if not refresher.refresh(log_failure=False):
            sys.stderr.write('%s: %s%s\n' % (PROG, cloud.log_prefix, _(
                'the refresh failed, nothing was published: %s')
                % refresher.last_error))
            status = 1
    return status


if __name__ == '__main__':
    sys.exit(main())
