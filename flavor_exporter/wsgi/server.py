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
"""The API's HTTP server: threads that wait in one epoll, in one process.

flavor-exporter-all runs one ApiService beside the worker, so that they
can share [document_cache] backend = memory; flavor-exporter-api runs
[api] workers processes of it on one inherited listening socket (see
flavor_exporter.wsgi.port).

Every thread of a process waits in the same epoll; each socket is armed
for one event at a time (EPOLLONESHOT), so the thread woken for it owns
it until it arms it again, and serves a whole request alone (see
flavor_exporter.wsgi.connection). Open connections cost a socket and an
entry in epoll, not a thread: thousands of idle or slow clients wait there
while the threads serve the others. Bounds keep them from taking the
process:

- a request must arrive whole within [api] request_timeout of its first
  byte (or of the connection), else it is answered 408 and closed;
- a kept-alive connection idle for [api] keepalive_timeout is closed;
- at [api] max_connections, a new connection sheds the connection idle
  the longest, else the one whose request has been arriving the longest
  (answered 503).

Import this module only after oslo.service's backend is chosen
(flavor_exporter.cmd does it): it imports oslo_service.service.
"""

import os
import resource
import select
import socket
import threading
import time

from oslo_log import log
from oslo_service import service

from flavor_exporter.api import app
from flavor_exporter.api import auth
from flavor_exporter.wsgi import connection as conn_mod

LOG = log.getLogger(__name__)

_ONE = select.EPOLLONESHOT
_READ = select.EPOLLIN | select.EPOLLRDHUP | _ONE
_WRITE = select.EPOLLOUT | _ONE
# How often expired connections are looked for.
_HOUSEKEEPING_SECONDS = 0.5
# File descriptors a process keeps for anything but client connections
# (cache and Keystone connections, logs).
_SPARE_FDS = 256


class Limits:
    """The bounds on clients; see the module's docstring."""

    def __init__(self, request_timeout=10.0, keepalive_timeout=75.0,
                 max_connections=10000):
        self.request_timeout = request_timeout
        self.keepalive_timeout = keepalive_timeout
        self.max_connections = max_connections

    @classmethod
    def from_conf(cls, conf):
        return cls(conf.api.request_timeout, conf.api.keepalive_timeout,
                   conf.api.max_connections)


def _allow_files(count):
    """Raise the open-file limit towards count; the number allowed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < count:
        new = count if hard == resource.RLIM_INFINITY else min(count, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
        soft = new
    return count if soft == resource.RLIM_INFINITY else min(count, soft)


class ThreadedServer:
    """The server's threads in this process, with start() and stop()."""

    def __init__(self, application, host, port, threads=16,
                 backlog=1024, sockets=None, limits=None):
        """sockets: listening sockets to serve on instead of host:port."""
        self._application = application
        self._sockets = list(sockets or [])
        self._own_sockets = not sockets
        self._host = host
        self._port = port
        self._threads = threads
        self._backlog = backlog
        self._limits = limits or Limits()
        self._max_connections = self._limits.max_connections
        self._conns = {}
        self._listeners = {}
        self._epoll = None
        self._wake = None
        self._workers = []
        self._stopping = threading.Event()

    def start(self):
        """Bind (errors surface here) and serve in daemon threads."""
        if self._own_sockets:
            self._sockets = [socket.create_server(
                (self._host, self._port), backlog=self._backlog)]
        self._max_connections = self._connection_bound()
        self._stopping.clear()
        self._epoll = select.epoll()
        # Readable once stop() writes to it, and level-triggered: every
        # thread sees it.
        self._wake = os.pipe()
        self._epoll.register(self._wake[0], select.EPOLLIN)
        for sock in self._sockets:
            sock.setblocking(False)
            address = sock.getsockname()
            self._listeners[sock.fileno()] = (sock, address[:2])
            self._epoll.register(sock.fileno(), select.EPOLLIN | _ONE)
        self._workers = [
            threading.Thread(target=self._run, daemon=True,
                             name='flavor-exporter-api-%d' % i)
            for i in range(self._threads)]
        self._workers.append(threading.Thread(
            target=self._housekeeping, daemon=True,
            name='flavor-exporter-api-housekeeping'))
        for thread in self._workers:
            thread.start()

    def _connection_bound(self):
        wanted = self._limits.max_connections
        allowed = _allow_files(wanted + _SPARE_FDS) - _SPARE_FDS
        if allowed < wanted:
            allowed = max(allowed, 16)
            LOG.warning('[api] max_connections is %d, but the open-file '
                        'limit of this process allows %d client '
                        'connections; raise the limit (ulimit -n, '
                        'LimitNOFILE= in systemd) to serve more.',
                        wanted, allowed)
        return allowed

    @property
    def port(self):
        """The bound port (useful when port 0 was asked)."""
        return int(self._sockets[0].getsockname()[1])

    @property
    def connections(self):
        """Client connections open in this process."""
        return len(self._conns)

    def _run(self):
        poll = self._epoll.poll
        wake = self._wake[0]
        while True:
            for fd, _events in poll(-1, 1):
                if fd == wake:
                    return
                listener = self._listeners.get(fd)
                if listener is not None:
                    self._accept(*listener)
                    continue
                conn = self._conns.get(fd)
                if conn is None:
                    continue
                with conn.lock:
                    # Another thread owns it (an event for a socket that
                    # was closed and whose number was reused): the owner
                    # arms it again when done, and its readiness with it.
                    if conn.owned or conn.closed:
                        continue
                    conn.owned = True
                self._serve(conn)

    def _serve(self, conn):
        try:
            want = conn.serve(self._application)
        except Exception:
            LOG.exception('Unexpected error serving %s', conn.remote[0])
            want = conn_mod.CLOSED
        with conn.lock:
            conn.owned = False
            if want != conn_mod.CLOSED:
                try:
                    self._epoll.modify(conn.fd, _WRITE if want ==
                                       conn_mod.WANT_WRITE else _READ)
                    return
                except (OSError, ValueError):
                    # stop() closed the epoll while this thread served.
                    pass
            self._close(conn)

    def _accept(self, sock, address):
        try:
            client, remote = sock.accept()
            # Taken before the listening socket is armed again: accepts
            # are one at a time, so connections are aged in the order
            # they came, whichever thread gets to build its Connection.
            accepted = time.monotonic()
        except (BlockingIOError, InterruptedError):
            client = None
        except OSError as exc:
            # Out of file descriptors: make room rather than spin on a
            # listening socket that stays readable.
            LOG.debug('accept() failed: %s', exc)
            client = None
            self._shed()
        finally:
            if not self._stopping.is_set():
                self._epoll.modify(sock.fileno(), select.EPOLLIN | _ONE)
        if client is None:
            return
        client.setblocking(False)
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = conn_mod.Connection(client, remote, address, accepted)
        if len(self._conns) >= self._max_connections and not self._shed():
            conn.refuse(503, 'The server has too many connections open; '
                             'retry.')
            conn.close()
            return
        self._conns[conn.fd] = conn
        self._epoll.register(conn.fd, _READ)

    def _shed(self):
        """Close the idlest or the slowest connection; whether one was."""
        idle, slow = None, None
        for conn in list(self._conns.values()):
            if conn.owned:
                continue
            if conn.state == conn_mod.IDLE or conn.state == conn_mod.LINGER:
                if idle is None or conn.since < idle.since:
                    idle = conn
            elif conn.state == conn_mod.READING:
                if slow is None or conn.since < slow.since:
                    slow = conn
        victim = idle or slow
        if victim is None:
            return False
        return self._expire(victim, 503, 'The server has too many '
                            'connections open and closed the slowest; '
                            'retry.')

    def _expire(self, conn, code=None, message=None):
        with conn.lock:
            if conn.owned or conn.closed:
                return False
            conn.expire(code, message)
            self._close(conn)
        return True

    def _close(self, conn):
        """Forget and close conn; call with conn.lock held."""
        # Forgotten before its number is freed: a new socket may get it.
        self._conns.pop(conn.fd, None)
        try:
            self._epoll.unregister(conn.fd)
        except (OSError, ValueError):
            pass
        conn.close()

    def _housekeeping(self):
        limits = self._limits
        deadlines = {conn_mod.READING: limits.request_timeout,
                     conn_mod.WRITING: limits.request_timeout,
                     conn_mod.IDLE: limits.keepalive_timeout,
                     conn_mod.LINGER: conn_mod.LINGER_SECONDS}
        while not self._stopping.wait(_HOUSEKEEPING_SECONDS):
            now = time.monotonic()
            for conn in list(self._conns.values()):
                if conn.owned or now - conn.since <= deadlines[conn.state]:
                    continue
                if conn.state == conn_mod.READING:
                    self._expire(conn, 408, 'The request did not arrive '
                                 'whole within %g seconds.'
                                 % limits.request_timeout)
                else:
                    self._expire(conn)

    def stop(self, timeout=10):
        """Stop accepting, finish running requests, close the sockets."""
        if not self._workers:
            return
        self._stopping.set()
        for fd in self._listeners:
            try:
                self._epoll.unregister(fd)
            except (OSError, ValueError):
                pass
        os.write(self._wake[1], b'x')
        deadline = time.monotonic() + timeout
        for thread in self._workers:
            thread.join(max(0.0, deadline - time.monotonic()))
        if any(thread.is_alive() for thread in self._workers):
            LOG.warning('The API server threads did not stop in %ss',
                        timeout)
        self._workers = []
        for conn in list(self._conns.values()):
            with conn.lock:
                self._close(conn)
        for sock, _address in self._listeners.values():
            sock.close()
        self._listeners = {}
        self._epoll.close()
        for fd in self._wake:
            os.close(fd)

    def wait(self):
        for thread in list(self._workers):
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
            sockets=self._sockets, limits=Limits.from_conf(self._conf))
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
