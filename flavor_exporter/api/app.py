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

A Pecan application (controllers/, hooks.py) inside oslo.middleware's and
keystonemiddleware's layers, as ironic's. Requests pass, outermost first:

1. request_id: the request's id, on its answer and its log lines, so
   outermost: every answer below carries it, refusals and CORS
   preflights included;
   (unrouted_log: the request line of the answers given before Pecan)
2. http_proxy_to_wsgi, with ``[oslo_middleware]
   enable_proxy_headers_parsing``: the scheme, host and prefix a
   TLS-terminating proxy forwarded, before anything makes a URL;
3. cors, with ``[cors] allowed_origin``: outside authentication, as in
   ironic and placement, since a browser's preflight carries no token and
   a script must be allowed to read the error answers too;
4. request limits (size, UTF-8), before anything parses the request;
5. authentication by ``[DEFAULT] auth_strategy``, but for the public
   routes (auth.py);
6. the request's body, read whole and bounded (request_body.py);
7. Pecan: its hooks (the request log, the caller, policy, the query,
   JSON errors) around the controllers that answer.

The two optional layers are left out when unconfigured, rather than run
as no-ops that read their option per request.

setup_app() creates the cache client, so call it in the process that
serves (after a fork), as uWSGI's lazy-apps and ApiService.start() do.
"""

import pecan
import webob

from flavor_exporter.api import auth
from flavor_exporter.api import cold_start
from flavor_exporter.api.controllers import checks
from flavor_exporter.api.controllers import projects
from flavor_exporter.api.controllers import root
from flavor_exporter.api import healthcheck
from flavor_exporter.api import hooks
from flavor_exporter.api.middleware import cors
from flavor_exporter.api.middleware import proxy_headers
from flavor_exporter.api.middleware import request_body
from flavor_exporter.api.middleware import request_id
from flavor_exporter.api.middleware import request_limits
from flavor_exporter.api.middleware import unrouted_log
from flavor_exporter.api import pecan_argspec
from flavor_exporter.api import policy
from flavor_exporter.api import published
from flavor_exporter.common import clouds
from flavor_exporter.common import config
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import defrag as defrag_docs
from flavor_exporter.publication import reader as reader_mod
from flavor_exporter.publication import whatif as whatif_docs


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
        # Requests read no pointer: a thread of each process does
        # (generations.py).
        state.watcher.watch_in_background()
        state.projects = projects.ProjectDocuments(
            readers[name], conf.projects, published.REQUEST_TTL,
            threads=conf.api.threads)
        if conf.checks.enabled:
            state.checks = checks.CheckAnswers(readers[name], conf.checks,
                                               threads=conf.api.threads)
            state.answers[pub.WHATIF_REQUESTS_NAME] = checks.WorkerAnswers(
                readers[name], conf.checks, pub.WHATIF_REQUESTS_NAME,
                whatif_docs.WHATIF, 'what-if', threads=conf.api.threads)
            state.answers[pub.DEFRAG_REQUESTS_NAME] = checks.WorkerAnswers(
                readers[name], conf.checks, pub.DEFRAG_REQUESTS_NAME,
                defrag_docs.DEFRAG, 'defrag plan', threads=conf.api.threads)
    return data


def make_pecan_app(conf, backend=None, data=None):
    """The Pecan application: controllers and hooks, no middleware.

    data: the published.Published to serve, by default make_published's.
    """
    pecan_argspec.install()
    if data is None:
        data = make_published(conf, backend)
    # Policies apply to authenticated callers only: noauth reads it all.
    enforcer = (policy.make_enforcer(conf)
                if conf.auth_strategy != 'noauth' else None)
    return pecan.Pecan(
        root.RootController(healthcheck.middleware(conf, data)),
        hooks=hooks.make(conf, data, enforcer),
        # /openapi.json is a route, not /openapi in JSON; the paths
        # with and without a final '/' are the same route.
        guess_content_type_from_ext=False, force_canonical=False,
        # WebOb's own: Pecan's wraps every attribute read in a try, for a
        # decoding error the hooks answer (400) and the layers before
        # Pecan refuse (middleware/request_limits.py, request_body.py).
        request_cls=webob.Request)


def setup_app(conf=None, backend=None):
    """The API's WSGI application.

    conf: the (global) CONF, already parsed; backend: the cache backend,
    by default the one [document_cache] describes.
    """
    conf = conf or config.CONF
    app = request_body.RequestBody(make_pecan_app(conf, backend),
                                   conf.api.body_timeout, conf.api.threads)
    app = request_limits.RequestLimits(auth.authenticating(app, conf))
    if conf.cors.allowed_origin:
        app = cors.CORS(app, conf)
    if conf.oslo_middleware.enable_proxy_headers_parsing:
        app = proxy_headers.HTTPProxyToWSGI(app, conf)
    app = unrouted_log.UnroutedLog(app, conf.api.log_requests)
    return request_id.RequestId(app, conf)
