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

Requests pass, outermost first: request limits (size, UTF-8), read-only
(GET and HEAD), authentication (keystone strategy only; public routes
skip it), then /healthcheck (oslo.middleware), then Pecan.
setup_app() creates the cache client, so call it in the process that
serves (after a fork), as uWSGI's lazy-apps and ApiService.start() do.
"""

import pecan

from flavor_exporter.api import auth
from flavor_exporter.api import cold_start
from flavor_exporter.api.controllers import root
from flavor_exporter.api import healthcheck
from flavor_exporter.api import hooks
from flavor_exporter.api.middleware import hot_documents
from flavor_exporter.api.middleware import read_only
from flavor_exporter.api.middleware import request_limits
from flavor_exporter.api import pecan_compat
from flavor_exporter.api import reader as reader_mod
from flavor_exporter.common import clouds
from flavor_exporter.common import config
from flavor_exporter.common import policy
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


def stale_after(conf):
    """Age in seconds past which published data is called stale."""
    return conf.api.stale_after or 2 * conf.worker.refresh_interval


def make_reader(conf, store, refresh=None):
    """A cloud's Reader; refresh fills a cold cache if allowed."""
    on_cold = None
    if conf.api.compute_on_miss and refresh is not None:
        on_cold = cold_start.SingleFlight(refresh, conf.api.retry_after)
    return reader_mod.Reader(store, conf.api.generation_check_interval,
                             stale_after(conf), on_cold=on_cold)


def make_readers(conf, store=None, on_miss=None):
    """The process's CloudReaders: a Reader per cloud of [DEFAULT] clouds.

    store: the default cloud's DocumentStore, by default made from conf;
    the clouds' stores share one cache client.
    """
    default = clouds.default(conf)
    backend = store.backend if store is not None else None
    readers = {}
    for cloud in clouds.configured(conf):
        if cloud == default and store is not None:
            cloud_store = store
        else:
            cloud_store = store_mod.DocumentStore.from_conf(conf, cloud,
                                                            backend)
            backend = cloud_store.backend
        refresh = None
        if on_miss is not None and conf.api.compute_on_miss:
            refresh = on_miss(cloud_store, cloud)
        readers[cloud.name] = make_reader(conf, cloud_store, refresh)
    return reader_mod.CloudReaders(readers, default.name)


def make_pecan_app(readers, conf):
    pecan_compat.install()
    controller = root.RootController(readers, conf.api.retry_after,
                                     stale_after(conf))
    # Policies apply to authenticated callers only: noauth reads it all.
    enforcer = (policy.make_enforcer(conf)
                if conf.auth_strategy == 'keystone' else None)
    return pecan.make_app(
        controller,
        hooks=[hooks.ReadOnlyHook(),
               hooks.AccessHook(enforcer),
               hooks.JsonErrorHook(conf.api.retry_after)],
        # /gpus/flavors and /gpus/flavors/ are one resource, not a
        # redirect; flavor names such as "m1.large" are not extensions.
        force_canonical=False,
        guess_content_type_from_ext=False,
        debug=False)


def setup_app(conf=None, store=None, on_miss=None):
    """The API's WSGI application.

    conf: the (global) CONF, already parsed; store: the default cloud's
    DocumentStore, by default the one [document_cache] describes;
    on_miss(store, cloud): the refresh to run on a cold cache when [api]
    compute_on_miss is set (the entry points pass the worker's; the API
    does not import it).
    """
    conf = conf or config.CONF
    readers = make_readers(conf, store, on_miss)
    app = make_pecan_app(readers, conf)
    if conf.auth_strategy != 'keystone':
        app = hot_documents.HotDocuments(app, readers)
    app = Mount(app, HEALTHCHECK_PATH,
                healthcheck.middleware(conf, readers))
    app = auth.wrap(app, conf)
    return request_limits.RequestLimits(read_only.ReadOnly(app))
