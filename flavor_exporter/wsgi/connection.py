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
"""One client connection of the API's server: read, serve, write.

The thread that flavor_exporter.wsgi.server wakes for a connection's event
owns it until it returns: it reads what arrived, and when a request is
whole it calls the application and writes the answer itself, so that a
request costs one thread wake-up, not the three of a server whose loop
thread reads and writes while other threads run the application (the
time went there, see doc/source/performance.rst). A request that is not
whole yet holds no thread: the connection waits in epoll until more
arrives. Sockets are non-blocking; what the client does not take at once
waits for the socket to be writable, again without a thread.
"""

import socket
import threading
import time

from oslo_log import log

from flavor_exporter.wsgi import http
from flavor_exporter.wsgi import protocol_errors

LOG = log.getLogger(__name__)

RECV_BYTES = 65536
# A closing connection reads and drops what the client still sends for
# this long, so that closing with unread bytes does not reset the
# connection before the client has read the answer (TCP sends RST then).
LINGER_SECONDS = 2.0

# What the connection waits for, and what its deadline counts from:
# READING: a request, since its first byte (or the connection's start);
# IDLE: the next request of a kept-alive connection, since the last answer;
# WRITING: the client to take the answer, since it last took some;
# LINGER: the client to close, since the answer was sent.
READING, IDLE, WRITING, LINGER = 'reading', 'idle', 'writing', 'linger'

# What the owner asks the server to wait for next.
WANT_READ, WANT_WRITE, CLOSED = 'read', 'write', 'closed'


class Connection:
    """A client socket and where its current request stands."""

    __slots__ = ('sock', 'fd', 'remote', 'server_address', 'inbuf', 'out',
                 'state', 'since', 'owned', 'closed', 'lock', 'request',
                 'body_start', 'close_after', 'continued', 'scanned')

    def __init__(self, sock, remote, server_address, since=None):
        self.sock = sock
        self.fd = sock.fileno()
        self.remote = remote if isinstance(remote, tuple) else (remote, 0)
        self.server_address = server_address
        self.inbuf = bytearray()
        self.out = None
        self.state = READING
        self.since = time.monotonic() if since is None else since
        # owned: a thread serves it; closed: the socket is closed. Both
        # change under lock (see flavor_exporter.wsgi.server).
        self.owned = False
        self.closed = False
        self.lock = threading.Lock()
        self.request = None
        self.body_start = 0
        self.close_after = False
        self.continued = False
        # How much of inbuf is known to hold no end of a head: a head
        # that arrives a byte at a time is not searched again from 0.
        self.scanned = 0

    def serve(self, application):
        """Act on what the socket is ready for; what to wait for next."""
        if self.out is not None:
            if not self._flush():
                return WANT_WRITE
            if self.close_after:
                return self._linger()
        try:
            data = self.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            data = None
        except OSError:
            data = b''
        if data == b'':
            return CLOSED
        if self.state == LINGER:
            return WANT_READ
        if data:
            if self.state == IDLE:
                self.state = READING
                self.since = time.monotonic()
            self.inbuf += data
        while True:
            try:
                complete = self._next_request()
            except http.BadRequest as exc:
                refused = protocol_errors.new_context()
                LOG.debug('Refused a request from %s: %s', self.remote[0],
                          exc.message, context=refused)
                version = (self.request.version if self.request
                           else 'HTTP/1.0')
                self.close_after = True
                self.out = [memoryview(protocol_errors.answer(
                    exc.code, exc.message, version,
                    request_id=refused.request_id))]
            else:
                if complete is None:
                    return WANT_READ
                self._respond(application, *complete)
            if not self._flush():
                return WANT_WRITE
            if self.close_after:
                return self._linger()

    def expire(self, code=None, message=None):
        """Answer a waiting request code (JSON) before the server closes it.

        Called by the server's housekeeping on a connection no thread owns.
        Best effort: a client that does not read does not get it.
        """
        if code is not None and self.state == READING and self.inbuf:
            self.refuse(code, message)

    def refuse(self, code, message):
        """Send a JSON error answer now, if the socket takes it."""
        try:
            self.sock.send(protocol_errors.answer(code, message))
        except OSError:
            pass

    def close(self):
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass

    def _next_request(self):
        """(request, body) when one is whole in inbuf, else None."""
        buf = self.inbuf
        if self.request is None:
            # RFC 9112 2.2: empty lines before a request line are ignored.
            if not self.scanned:
                while buf.startswith(b'\r\n'):
                    del buf[:2]
            end = buf.find(b'\r\n\r\n', max(0, self.scanned - 3),
                           http.MAX_HEAD_BYTES + 4)
            if end < 0:
                if len(buf) > http.MAX_HEAD_BYTES:
                    raise http.head_too_large(buf)
                self.scanned = len(buf)
                return None
            self.scanned = 0
            self.request = http.parse_head(bytes(buf[:end]))
            self.body_start = end + 4
            self.continued = False
        request = self.request
        start = self.body_start
        if request.chunked:
            found = http.chunked_body(buf, start)
            if found is None:
                self._continue()
                return None
            body, end = found
        elif request.length:
            end = start + request.length
            if len(buf) < end:
                self._continue()
                return None
            body = bytes(buf[start:end])
        else:
            body, end = b'', start
        del buf[:end]
        self.request = None
        return request, body

    def _continue(self):
        # A client that asked to wait for it sends its body only now.
        if self.request.expect_continue and not self.continued:
            self.continued = True
            try:
                self.sock.send(b'HTTP/1.1 100 Continue\r\n\r\n')
            except OSError:
                pass

    def _respond(self, application, request, body):
        """Call the application and queue its answer in self.out."""
        self.state = WRITING
        environ = http.environ(request, body, self.server_address,
                               self.remote)
        started = []

        def start_response(status, headers, exc_info=None):
            # The whole answer is sent after the application returns, so
            # an error page may always replace what was started.
            started[:] = [status, headers]
            return chunks.append

        chunks = []
        try:
            result = application(environ, start_response)
            try:
                for chunk in result:
                    if chunk:
                        chunks.append(chunk)
            finally:
                if hasattr(result, 'close'):
                    result.close()
            if not started:
                raise RuntimeError('the application did not call '
                                   'start_response')
        except Exception:
            failed = protocol_errors.new_context()
            LOG.exception('The API failed to answer %s %.200s',
                          request.method, request.target, context=failed)
            self.close_after = True
            self.out = [memoryview(protocol_errors.answer(
                500, 'The server failed to answer this request.',
                request.version, request_id=failed.request_id))]
            return
        self.close_after = not request.keep_alive
        body = chunks[0] if len(chunks) == 1 else b''.join(chunks)
        self.out = [memoryview(data) for data in http.response(
            request.version, started[0], started[1], body,
            request.keep_alive, head_only=request.method == 'HEAD') if data]

    def _flush(self):
        """Send what the client takes; True when all of it was sent."""
        out = self.out
        try:
            sent = self.sock.sendmsg(out)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            # The client is gone: nothing more to send, and close.
            self.out = None
            self.close_after = True
            return True
        progressed = sent > 0
        while out and sent >= len(out[0]):
            sent -= len(out.pop(0))
        if out:
            if progressed or self.state != WRITING:
                self.state = WRITING
                self.since = time.monotonic()
            out[0] = out[0][sent:]
            return False
        self.out = None
        self.state = IDLE if not self.inbuf else READING
        self.since = time.monotonic()
        return True

    def _linger(self):
        self.state = LINGER
        self.since = time.monotonic()
        self.inbuf.clear()
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            return CLOSED
        return WANT_READ
