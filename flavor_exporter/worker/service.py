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

"""The worker as an oslo.service Service: refresh on a fixed timer."""

from oslo_log import log
from oslo_service import service

from flavor_exporter.common import store
from flavor_exporter.worker import refresh

LOG = log.getLogger(__name__)

# How often the cache is checked for lost data (a memcached restart);
# one cheap get.
CACHE_CHECK_INTERVAL = 10


class WorkerService(service.Service):
    """Keeps the published capacity data fresh.

    options: the engine Options the command made at start with
    refresh.engine_options, which refuses a bad [pci] alias.
    """

    def __init__(self, conf, options):
        super().__init__()
        self._conf = conf
        self._options = options
        self.refresher = None

    def start(self):
        super().start()
        # Clients are made here, after the launcher forked this process:
        # sockets must not be shared with the parent.
        self.refresher = refresh.Refresher(
            self._conf, store.DocumentStore.from_conf(self._conf),
            options=self._options)
        interval = self._conf.worker.refresh_interval
        LOG.info('Refreshing capacity data every %d seconds', interval)
        # stop_on_exception=False: one failed refresh must not end them all.
        self.tg.add_timer_args(interval, self.refresher.refresh,
                               initial_delay=self._conf.worker.initial_delay,
                               stop_on_exception=False)
        self.tg.add_timer_args(CACHE_CHECK_INTERVAL,
                               self.refresher.ensure_published,
                               initial_delay=CACHE_CHECK_INTERVAL,
                               stop_on_exception=False)
