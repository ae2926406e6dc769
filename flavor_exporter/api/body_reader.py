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
"""Request bodies read within ``[api] body_timeout``, one thread per client.

granian (flavor-exporter-api) calls the application as soon as a
request's head has arrived; its ``wsgi.input`` then waits for the body in
the calling thread, with no deadline, in Rust code no Python code can
interrupt. Nor can a read be left to another thread: once the
application returns, granian 2.8 takes the body's lock while it holds the
GIL (wsgi/callbacks.rs, ``body_stream.blocking_lock()``), so a read still
waiting in any thread stops the whole process until the client sends or
goes (measured: doc/source/admin/ha.rst). A body that no thread
started to read is dropped at once, and its connection closed.

So under granian the bound is per client, not per read: a request
thread starts reading a body only while the process has a thread to
spare, at most ``[api] threads - 1`` at a time (one with a single
thread) and one per client address; a body past either limit is answered
503 with Retry-After and ``Connection: close`` without being read. Two
clients that stop sending mid-body hold one thread between them, never
the last one, and a third is refused in microseconds. What granian
cannot do is end the read of a client that stalls for good: its thread
is given back when the client sends the rest or closes the connection.

Other servers' ``wsgi.input`` (uWSGI, mod_wsgi, tests) is read a piece at
a time, the deadline checked between pieces (408 past it): their servers
bound each wait themselves (uWSGI's ``socket-timeout``, 4 s by default,
raises; Apache's ``RequestReadTimeout``) and each of their threads holds
its connection anyway.
"""

import threading
import time

# Bytes read at a time in place.
_PIECE = 8192


class TimedOut(Exception):
    """The body did not arrive within the deadline."""


class Busy(Exception):
    """No thread may read this body now; retry_after seconds."""

    def __init__(self, retry_after):
        super().__init__(retry_after)
        self.retry_after = retry_after


def _granian(source):
    return type(source).__module__.startswith('granian')


class BodyReader:
    """Reads bodies within timeout seconds; threads: [api] threads.

    unbounded(source): whether a read of source has no deadline of its
    own (granian's), so that only spare threads may start one.
    """

    def __init__(self, timeout, threads, unbounded=_granian,
                 clock=time.monotonic):
        self.timeout = timeout
        self._slots = max(threads - 1, 1)
        self._unbounded = unbounded
        self._clock = clock
        self._lock = threading.Lock()
        self._reading = set()

    def read(self, environ, size):
        """The body's bytes: size of them at most (fewer at its end).

        Raises TimedOut or Busy.
        """
        source = environ['wsgi.input']
        if not self._unbounded(source):
            return self._in_place(source, size)
        client = environ.get('REMOTE_ADDR') or '-'
        with self._lock:
            if client in self._reading or \
                    len(self._reading) >= self._slots:
                raise Busy(max(1, int(self.timeout)))
            self._reading.add(client)
        try:
            return source.read(size)
        finally:
            with self._lock:
                self._reading.discard(client)

    def _in_place(self, source, size):
        deadline = self._clock() + self.timeout
        pieces = []
        left = size
        while left > 0:
            try:
                piece = source.read(min(_PIECE, left))
            except OSError as exc:
                # uWSGI: its socket-timeout passed with nothing received.
                raise TimedOut() from exc
            if not piece:
                break
            pieces.append(piece)
            left -= len(piece)
            if self._clock() > deadline:
                raise TimedOut()
        return b''.join(pieces)
