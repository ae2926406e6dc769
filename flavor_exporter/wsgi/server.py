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
"""The API served by waitress threads, in one process or several.

flavor-exporter-all runs one ApiService beside the worker, so that they
can share [document_cache] backend = memory; flavor-exporter-api runs
[api] workers processes of it on one inherited listening socket (see
flavor_exporter.wsgi.port). waitress reads each request whole, without
blocking, before a thread gets it, so clients that send slowly hold no
thread; it answers every request, malformed ones included (in JSON, see
flavor_exporter.wsgi.protocol_errors). Measured here with 16 threads
serving a cached 60 KB document, one process kept ~3,600-3,900 req/s
from 1 to 64 concurrent clients with a p99 under 50 ms, where cheroot
fell to ~1,800-2,800 req/s with p99 up to 130 ms (see tools/bench/api.py).

Import this module only after oslo.service's backend is chosen
(flavor_exporter.cmd does it): it imports oslo_service.service.
"""

import threading

from oslo_log import log
from oslo_service import service
import waitress
from waitress import server as waitress_server
from waitress import wasyncore

from flavor_exporter.api import app
from flavor_exporter.api import auth
from flavor_exporter.wsgi import protocol_errors

LOG = log.getLogger(__name__)

# How often the serving loop checks whether it must stop; also the longest
# stop() waits for it.
_POLL_SECONDS = 0.2


class ThreadedServer:
    """waitress in a background thread, with start() and stop().

    waitress's own run() only returns on KeyboardInterrupt; here the
    asyncore loop runs in steps so that stop() can end it from another
    thread, and the sockets are closed by the thread that polls them.
    """

    def __init__(self, application, host, port, threads=16,
                 backlog=1024, sockets=None, proxy_headers=False):
        """sockets: listening sockets to serve on instead of host:port.

        proxy_headers: pass Forwarded and X-Forwarded-* on to the
        application ([oslo_middleware] enable_proxy_headers_parsing:
        http_proxy_to_wsgi reads them); waitress drops them otherwise.
        """
        self._proxy_headers = proxy_headers
        self._application = application
        self._sockets = sockets
        self._host = host
        self._port = port
        self._threads = threads
        self._backlog = backlog
        self._map = {}
        self._server = None
        self._thread = None
        self._stopping = threading.Event()

    def start(self):
        """Bind (errors surface here) and serve in a daemon thread."""
        if self._sockets:
            where = {'sockets': self._sockets}
        else:
            where = {'host': self._host, 'port': self._port}
        self._server = waitress.create_server(
            self._application, map=self._map, threads=self._threads,
            backlog=self._backlog, connection_limit=max(
                100, self._backlog),
            ident='flavor-exporter',
            clear_untrusted_proxy_headers=not self._proxy_headers,
            **where)
        # One server per address (a host name may have several), each in
        # the map.
        for dispatcher in list(self._map.values()):
            if isinstance(dispatcher, waitress_server.BaseWSGIServer):
                dispatcher.channel_class = protocol_errors.JsonErrorChannel
        self._stopping.clear()
        self._thread = threading.Thread(target=self._serve,
                                        name='flavor-exporter-api',
                                        daemon=True)
        self._thread.start()

    @property
    def port(self):
        """The bound port (useful when port 0 was asked)."""
        listen = getattr(self._server, 'effective_listen', None)
        if listen:
            return int(listen[0][1])
        return int(self._server.effective_port)

    def _serve(self):
        try:
            while not self._stopping.is_set():
                wasyncore.loop(timeout=_POLL_SECONDS, use_poll=True,
                               map=self._map, count=1)
        finally:
            self._server.task_dispatcher.shutdown()
            wasyncore.close_all(self._map, ignore_all=True)

    def stop(self, timeout=10):
        """Stop accepting, finish running requests, close the sockets."""
        if self._thread is None:
            return
        self._stopping.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            LOG.warning('The API server thread did not stop in %ss',
                        timeout)
        self._thread = None

    def wait(self):
        thread = self._thread
        if thread is not None:
            thread.join()


class ApiService(service.Service):
    """The API as an oslo.service Service, serving from its own threads.

    Everything that opens sockets (the cache client, the listening socket)
    is created in start(), after the launcher's fork.
    """

    def __init__(self, conf, backend=None, sockets=None, application=None):
        """backend as flavor_exporter.api.app.setup_app takes.

        sockets: listening sockets (flavor_exporter.wsgi.port.listen) to
        serve on instead of binding [api] host_ip and port; application:
        a function returning the WSGI application to serve instead of the
        API (the benchmarks serve others the same way).
        """
        super().__init__()
        self._conf = conf
        self._backend = backend
        self._sockets = sockets
        self._application = application
        self._server = None

    @property
    def port(self):
        return self._server.port if self._server else None

    def start(self):
        super().start()
        api = self._conf.api
        if self._application is None:
            auth.warn_if_open(self._conf)
            application = app.setup_app(self._conf, self._backend)
        else:
            application = self._application()
        self._server = ThreadedServer(
            application, api.host_ip, api.port,
            threads=api.threads, backlog=api.listen_backlog,
            sockets=self._sockets, proxy_headers=(
                self._conf.oslo_middleware.enable_proxy_headers_parsing))
        self._server.start()
        LOG.info('API listening on %s:%d with %d threads', api.host_ip,
                 self.port, api.threads)

    def stop(self, graceful=False):
        if self._server is not None:
            self._server.stop()
        super().stop(graceful)

    def wait(self):
        if self._server is not None:
            self._server.wait()
        super().wait()
