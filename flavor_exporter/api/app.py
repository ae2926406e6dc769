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
"""The API's WSGI application: Pecan, the healthcheck, authentication.

Requests pass, outermost first: authentication (keystone strategy only;
public routes skip it), then /healthcheck (oslo.middleware), then Pecan.
setup_app() creates the cache client, so call it in the process that
serves (after a fork), as uWSGI's lazy-apps and ApiService.start() do.
"""

import pecan

from flavor_exporter.api import auth
from flavor_exporter.api import cold_start
from flavor_exporter.api.controllers import root
from flavor_exporter.api import documents
from flavor_exporter.api import healthcheck
from flavor_exporter.api import hooks
from flavor_exporter.api import pecan_compat
from flavor_exporter.common import config
from flavor_exporter.common import store as store_mod

HEALTHCHECK_PATH = '/healthcheck'


class Mount:
    """Sends one exact path to its own WSGI app, the rest to app."""

    def __init__(self, app, path, mounted):
        self._app = app
        self._path = path
        self._mounted = mounted

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO') == self._path:
            return self._mounted(environ, start_response)
        return self._app(environ, start_response)


def make_reader(conf, store):
    on_cold = None
    if conf.api.compute_on_miss:
        on_cold = cold_start.SingleFlight(
            cold_start.WorkerRefresh(conf, store), conf.api.retry_after)
    return documents.DocumentReader(
        store, conf.api.generation_check_interval, config.stale_after(),
        on_cold=on_cold)


def make_pecan_app(reader, conf):
    pecan_compat.install()
    controller = root.RootController(reader, conf.api.retry_after,
                                     config.stale_after())
    return pecan.make_app(
        controller,
        hooks=[hooks.ReadOnlyHook(),
               hooks.JsonErrorHook(conf.api.retry_after)],
        # /gpus/flavors and /gpus/flavors/ are one resource, not a
        # redirect; flavor names such as "m1.large" are not extensions.
        force_canonical=False,
        guess_content_type_from_ext=False,
        debug=False)


def setup_app(conf=None, store=None):
    """The API's WSGI application.

    conf: the (global) CONF, already parsed; store: a DocumentStore,
    by default the one [cache] describes.
    """
    conf = conf or config.CONF
    if store is None:
        store = store_mod.DocumentStore.from_conf(conf)
    reader = make_reader(conf, store)
    app = make_pecan_app(reader, conf)
    app = Mount(app, HEALTHCHECK_PATH,
                healthcheck.middleware(conf, reader))
    return auth.wrap(app, conf)
