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
"""The API's WSGI application, wired once per process.

Requests pass, outermost first:

1. request_id: the request's id, on its answer and its log lines, so
   outermost: every answer below carries it, refusals and CORS
   preflights included;
2. http_proxy_to_wsgi, with ``[oslo_middleware]
   enable_proxy_headers_parsing``: the scheme, host and prefix a
   TLS-terminating proxy forwarded, before anything makes a URL;
3. cors, with ``[cors] allowed_origin``: outside authentication, as in
   ironic and placement, since a browser's preflight carries no token and
   a script must be allowed to read the error answers too;
4. request limits (size, UTF-8), before anything parses the request;
5. authentication (keystone strategy only; the table's public routes
   skip it);
6. the dispatcher, which routes every request with the route table
   (dispatch.py): published documents from the queries, pages through
   Pecan, /healthcheck through oslo.middleware.

The two optional layers are left out when unconfigured, rather than run
as no-ops that read their option per request; neither makes a WebOb
request and response for a request it has nothing to do with, which
would cost more than serving a published document does
(doc/source/performance.rst, middleware/).

setup_app() creates the cache client, so call it in the process that
serves (after a fork), as uWSGI's lazy-apps and ApiService.start() do.
"""

import pecan

from flavor_exporter.api import auth
from flavor_exporter.api import cold_start
from flavor_exporter.api.controllers import root
from flavor_exporter.api import dispatch
from flavor_exporter.api import healthcheck
from flavor_exporter.api import hooks
from flavor_exporter.api.middleware import cors
from flavor_exporter.api.middleware import proxy_headers
from flavor_exporter.api.middleware import request_id
from flavor_exporter.api.middleware import request_limits
from flavor_exporter.api import policy
from flavor_exporter.api import queries as queries_mod
from flavor_exporter.api import routes
from flavor_exporter.common import clouds
from flavor_exporter.common import config
from flavor_exporter.publication import reader as reader_mod


def stale_after(conf):
    """Age in seconds past which published data is called stale."""
    return conf.api.stale_after or 2 * conf.worker.refresh_interval


def make_queries(conf, backend=None):
    """The process's queries.Queries, over every cloud of [DEFAULT] clouds.

    backend: the cache backend, by default the one [document_cache]
    describes; the clouds share it.
    """
    readers = {}
    for cloud in clouds.configured(conf):
        readers[cloud.name] = reader_mod.Reader.from_conf(conf, cloud,
                                                          backend)
        backend = readers[cloud.name].backend
    on_cold = {}
    if conf.api.compute_on_miss:
        on_cold = {name: cold_start.SingleFlight(
            cold_start.ask_worker(reader, conf.api.compute_on_miss_timeout),
            conf.api.retry_after) for name, reader in readers.items()}
    return queries_mod.Queries(
        readers, clouds.default(conf).name,
        conf.api.generation_check_interval, stale_after(conf),
        on_cold=on_cold)


def make_pages(queries, conf):
    """The Pecan application answering the table's PAGE routes."""
    return pecan.make_app(
        root.RootController(queries, stale_after(conf)),
        hooks=[hooks.JsonErrorHook(conf.api.retry_after)],
        force_canonical=False,
        guess_content_type_from_ext=False,
        debug=False)


def make_dispatcher(conf, backend=None, router=None):
    """The application behind authentication: routes, policy, answers."""
    queries = make_queries(conf, backend)
    # Policies apply to authenticated callers only: noauth reads it all.
    enforcer = (policy.make_enforcer(conf)
                if conf.auth_strategy == 'keystone' else None)
    return dispatch.Dispatcher(
        queries, make_pages(queries, conf),
        {'healthcheck': healthcheck.middleware(conf, queries)},
        enforcer, conf.api.retry_after, router)


def setup_app(conf=None, backend=None):
    """The API's WSGI application.

    conf: the (global) CONF, already parsed; backend: the cache backend,
    by default the one [document_cache] describes.
    """
    conf = conf or config.CONF
    router = routes.Router()
    app = auth.wrap(make_dispatcher(conf, backend, router), conf, router)
    app = request_limits.RequestLimits(app)
    if conf.cors.allowed_origin:
        app = cors.CORS(app, conf)
    if conf.oslo_middleware.enable_proxy_headers_parsing:
        app = proxy_headers.HTTPProxyToWSGI(app, conf)
    return request_id.RequestId(app, conf)
