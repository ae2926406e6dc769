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

"""The worker as an oslo.service Service running periodic-task managers.

Nova's pattern (nova/service.py): the Service makes its managers when it
starts, and a dynamic timer per manager calls its run_periodic_tasks,
sleeping until one of its tasks is due again. Three managers, three
timer threads, so that one that blocks holds none of the others:

- manager.RefreshManager: the leadership, refreshes, API processes'
  refresh requests, data the cache lost (and, when the worker listens to
  Nova's notifications, the changes they announce);
- answer_managers.ProjectManager: the projects asked about (a quota API
  may hang);
- answer_managers.CheckManager: the set checks asked for ([checks]
  enabled); answer_managers.RequestManager: the what-ifs, likewise.

Each cloud of [DEFAULT] clouds has its own service, managers, timer
threads and leadership: a cloud that fails or hangs delays no other.
"""

from oslo_log import log
from oslo_service import service

from flavor_exporter.common import clouds
from flavor_exporter.common import one_process
from flavor_exporter.publication import publisher
from flavor_exporter.worker import answer_managers
from flavor_exporter.worker import checks
from flavor_exporter.worker import defrag
from flavor_exporter.worker import demand
from flavor_exporter.worker import leadership
from flavor_exporter.worker import manager
from flavor_exporter.worker import projects
from flavor_exporter.worker import refresh
from flavor_exporter.worker import whatif

LOG = log.getLogger(__name__)


def for_clouds(conf, options):
    """One WorkerService per configured cloud, in one process."""
    return one_process.OneProcess(
        WorkerService(conf, options, cloud)
        for cloud in clouds.configured(conf))


class WorkerService(service.Service):
    """Keeps the published capacity data of one cloud fresh.

    options: the engine Options the command made at start with
    refresh.engine_options, which refuses a bad [pci] alias. cloud: a
    clouds.Cloud, by default the single (or default) one.
    """

    def __init__(self, conf, options, cloud=None):
        super().__init__()
        self._conf = conf
        self._options = options
        self.cloud = cloud or clouds.default(conf)
        # Made in start(), each run by a timer of its own.
        self.manager = None
        self.managers = []
        # Nova's notifications ([openstack] notification_transport_url).
        self.listener = None

    def start(self):
        super().start()
        self.managers = self._managers()
        LOG.info('%sRefreshing capacity data every %d seconds when this '
                 'worker leads', self.cloud.log_prefix,
                 self._conf.worker.refresh_interval)
        for each in self.managers:
            # stop_on_exception=False: the tasks log their own failures
            # (periodic.one_line), and anything else must not end the
            # timer either.
            self.tg.add_dynamic_timer_args(
                self.periodic_tasks, args=[each], stop_on_exception=False)
        if self.listener is not None:
            self.listener.start()
            LOG.info('%sListening to Nova\'s notifications (pool %s): '
                     'changes are published within seconds',
                     self.cloud.log_prefix, self._conf.notifications.pool)

    def _managers(self):
        # Clients are made here, after the launcher forked this process:
        # sockets must not be shared with the parent.
        conf, cloud = self._conf, self.cloud
        cloud_publisher = publisher.Publisher.from_conf(conf, cloud)
        refresher = refresh.Refresher(conf, cloud_publisher,
                                      options=self._options, cloud=cloud)
        answers = projects.ProjectAnswers(conf, cloud_publisher, refresher,
                                          cloud)
        leader = leadership.Leadership.from_conf(conf, cloud)
        url = conf[cloud.group].notification_transport_url
        if url:
            # Imported here: a worker without a bus needs no oslo.messaging.
            from flavor_exporter.worker import notifications
            self.listener = notifications.Listener(
                conf, url, cloud_publisher, cloud.log_prefix)
            self.manager = manager.NotifiedRefreshManager(
                conf, cloud, cloud_publisher, refresher, answers, leader,
                demand.Demand(cloud_publisher, cloud.log_prefix,
                              last_report=lambda: refresher.last_report))
        else:
            self.manager = manager.RefreshManager(
                conf, cloud, cloud_publisher, refresher, answers, leader)
        managers = [self.manager, answer_managers.ProjectManager(
            conf, cloud, answers, self._leads)]
        if conf.checks.enabled:
            managers.append(answer_managers.CheckManager(
                conf, cloud, checks.CheckAnswers(
                    conf, cloud_publisher, refresher, cloud, self._options),
                self._leads))
            # What-ifs take the set checks' path and bounds, in a
            # manager of their own: a second-long what-if holds no check.
            managers.append(answer_managers.RequestManager(
                conf, cloud, whatif.WhatifAnswers(
                    conf, cloud_publisher, refresher, cloud, self._options),
                self._leads))
            # Defrag plans likewise, in a manager of their own: a search
            # of seconds holds no check nor what-if.
            managers.append(answer_managers.RequestManager(
                conf, cloud, defrag.DefragAnswers(
                    conf, cloud_publisher, refresher, cloud, self._options),
                self._leads))
        return managers

    def _leads(self):
        return self.manager.leads

    def periodic_tasks(self, each):
        """Run the tasks of manager each that are due; seconds to wait.

        Nova's Service.periodic_tasks; the tasks need no request context.
        """
        return each.run_periodic_tasks(None)

    def stop(self, graceful=False):
        if self.listener is not None:
            self.listener.stop()
        if self.manager is not None:
            self.manager.leadership.stop()
            self.manager.projects.close()
        super().stop(graceful)
