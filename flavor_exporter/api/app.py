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
2. request_log: one line per request, with that id ([api] log_requests);
3. http_proxy_to_wsgi, with ``[oslo_middleware]
   enable_proxy_headers_parsing``: the scheme, host and prefix a
   TLS-terminating proxy forwarded, before anything makes a URL;
4. cors, with ``[cors] allowed_origin``: outside authentication, as in
   ironic and placement, since a browser's preflight carries no token and
   a script must be allowed to read the error answers too;
5. request limits (size, UTF-8), before anything parses the request;
6. the dispatcher, which matches the route in the table (dispatch.py),
   authenticates the caller unless the route is public (auth.py), and
   answers: published documents and pages from resources/, /healthcheck
   through oslo.middleware.

The two optional layers are left out when unconfigured, rather than run
as no-ops that read their option per request; neither makes a WebOb
request and response for a request it has nothing to do with, which
would cost more than serving a published document does
(doc/source/performance.rst, middleware/).

setup_app() creates the cache client, so call it in the process that
serves (after a fork), as uWSGI's lazy-apps and ApiService.start() do.
"""

from flavor_exporter.api import auth
from flavor_exporter.api import cold_start
from flavor_exporter.api import dispatch
from flavor_exporter.api import healthcheck
from flavor_exporter.api.middleware import cors
from flavor_exporter.api.middleware import proxy_headers
from flavor_exporter.api.middleware import request_id
from flavor_exporter.api.middleware import request_limits
from flavor_exporter.api.middleware import request_log
from flavor_exporter.api import policy
from flavor_exporter.api import published
from flavor_exporter.api.resources import checks
from flavor_exporter.api.resources import projects
from flavor_exporter.api import routes
from flavor_exporter.common import clouds
from flavor_exporter.common import config
from flavor_exporter.publication import reader as reader_mod


def stale_after(conf):
    """Age in seconds past which published data is called stale."""
    return conf.api.stale_after or 2 * conf.worker.refresh_interval


def make_published(conf, backend=None):
    """The process's published.Published, every cloud of [DEFAULT] clouds.

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
    data = published.Published(
        readers, clouds.default(conf).name,
        conf.api.generation_check_interval, stale_after(conf),
        conf.api.retry_after, on_cold=on_cold)
    for name, state in data.clouds.items():
        state.projects = projects.ProjectDocuments(
            readers[name], conf.projects, published.REQUEST_TTL,
            threads=conf.api.threads)
        if conf.checks.enabled:
            state.checks = checks.CheckAnswers(readers[name], conf.checks,
                                               threads=conf.api.threads)
    return data


def make_dispatcher(conf, backend=None, router=None):
    """The application behind the outer layers: routes, auth, answers."""
    data = make_published(conf, backend)
    # Policies apply to authenticated callers only: noauth reads it all.
    enforcer = (policy.make_enforcer(conf)
                if conf.auth_strategy != 'noauth' else None)
    return dispatch.Dispatcher(
        data, {routes.HEALTHCHECK: healthcheck.middleware(conf, data)},
        lambda app: auth.authenticated(app, conf), enforcer, router)


def setup_app(conf=None, backend=None):
    """The API's WSGI application.

    conf: the (global) CONF, already parsed; backend: the cache backend,
    by default the one [document_cache] describes.
    """
    conf = conf or config.CONF
    app = request_limits.RequestLimits(make_dispatcher(conf, backend))
    if conf.cors.allowed_origin:
        app = cors.CORS(app, conf)
    if conf.oslo_middleware.enable_proxy_headers_parsing:
        app = proxy_headers.HTTPProxyToWSGI(app, conf)
    app = request_log.RequestLog(app, conf.api.log_requests)
    return request_id.RequestId(app, conf)
