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
"""The worker's refresh, for API processes that fill a cold cache.

With ``[api] compute_on_miss`` the entry points (flavor_exporter.wsgi.api,
flavor-exporter-all) hand this to the API, which never imports the worker.
The refresher, and with it openstacksdk and the capacity engine, is only
imported when compute_on_miss is on, and built on the first cold-cache
request.
"""


class RefreshOnMiss:
    """Callable: one refresh into store; True when it published."""

    def __init__(self, conf, store):
        """Raises config.InvalidOption for a [pci] alias Nova refuses."""
        from flavor_exporter.worker import refresh
        self._refresh = refresh
        self._conf = conf
        self._store = store
        # Checked when the application starts, not at the first miss.
        self._options = refresh.engine_options(conf)
        self._refresher = None

    def __call__(self):
        if self._refresher is None:
            self._refresher = self._refresh.Refresher(
                self._conf, self._store, options=self._options)
        return self._refresher.refresh()
