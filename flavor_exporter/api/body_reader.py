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
"""Request bodies read within ``[api] body_timeout``, bounded per client.

granian (flavor-exporter-api) calls the application as soon as a
request's head has arrived; its ``wsgi.input`` then waits for the body in
the calling thread, with no deadline, in Rust code no Python code can
interrupt: two clients that send a head and a few bytes of body held both
threads of a process for as long as they kept their connections open.
granian offers no body deadline and cannot read the body before it takes
a thread, so the body is read by a thread of this module while the
request's thread waits for it:

- a body that is there at once (what clients send: the head and the body
  together) is waited for at most INSTANT, on any thread;
- a body that takes longer is waited for until the deadline only while
  the process has a thread to spare: at most ``[api] threads - 1``
  requests wait at a time, one per client address; others are answered
  503 with Retry-After at once. Slow bodies therefore never take the
  last thread, and one client never more than one;
- past the deadline, 408, ``Connection: close``.

A reader thread whose client stopped sending stays until the client
sends the rest or goes (granian does not close such a connection); at
most MAX_READERS per process, PER_CLIENT_READERS per address, and a body
past either limit is answered 503 at once.

Other servers' ``wsgi.input`` (uWSGI, mod_wsgi, tests) is read in place,
a piece at a time, checking the deadline between pieces: their servers
bound each wait themselves (uWSGI's ``socket-timeout``, Apache's
``RequestReadTimeout``) and their threads each hold a connection anyway.
"""

import threading
import time

#: Seconds a request waits, on any thread, for a body that is on its way.
INSTANT = 0.02
#: Reader threads a process keeps at most, and per client address.
MAX_READERS = 64
PER_CLIENT_READERS = 4
# Bytes read at a time in place.
_PIECE = 8192


class TimedOut(Exception):
    """The body did not arrive within the deadline."""


class Busy(Exception):
    """No thread may wait for this body now; retry_after seconds."""

    def __init__(self, retry_after):
        super().__init__(retry_after)
        self.retry_after = retry_after


def _granian(source):
    return type(source).__module__.startswith('granian')


class _Read:
    """One body being read by a thread of its own."""

    def __init__(self):
        self.done = threading.Event()
        self.data = b''
        self.error = None


class BodyReader:
    """Reads bodies within timeout seconds; threads: [api] threads."""

    def __init__(self, timeout, threads, aside=_granian, clock=time.monotonic):
        self.timeout = timeout
        self._slots = max(threads - 1, 0)
        self._aside = aside
        self._clock = clock
        self._lock = threading.Lock()
        self._waiting = set()
        self._readers = {}

    def read(self, environ, size):
        """The body's bytes: size of them, or to its end if size is None.

        Raises TimedOut or Busy.
        """
        source = environ['wsgi.input']
        if not self._aside(source):
            return self._in_place(source, size)
        client = environ.get('REMOTE_ADDR') or '-'
        reading = self._start(source, size, client)
        if not reading.done.wait(INSTANT):
            self._wait(reading, client)
        if reading.error is not None:
            raise TimedOut() from reading.error
        return reading.data

    def _wait(self, reading, client):
        with self._lock:
            if client in self._waiting or \
                    len(self._waiting) >= self._slots:
                raise Busy(max(1, int(self.timeout)))
            self._waiting.add(client)
        try:
            if not reading.done.wait(self.timeout - INSTANT):
                raise TimedOut()
        finally:
            with self._lock:
                self._waiting.discard(client)

    def _start(self, source, size, client):
        with self._lock:
            held = self._readers.get(client, 0)
            if held >= PER_CLIENT_READERS or \
                    sum(self._readers.values()) >= MAX_READERS:
                raise Busy(max(1, int(self.timeout)))
            self._readers[client] = held + 1
        reading = _Read()
        threading.Thread(target=self._run, args=(source, size, client,
                                                 reading),
                         name='body-reader', daemon=True).start()
        return reading

    def _run(self, source, size, client, reading):
        try:
            reading.data = source.read(size)
        except Exception as exc:
            reading.error = exc
        finally:
            with self._lock:
                held = self._readers.pop(client) - 1
                if held:
                    self._readers[client] = held
            reading.done.set()

    def _in_place(self, source, size):
        deadline = self._clock() + self.timeout
        pieces = []
        left = size
        while left is None or left > 0:
            try:
                piece = source.read(_PIECE if left is None
                                    else min(_PIECE, left))
            except OSError as exc:
                # uWSGI: its socket-timeout passed with nothing received.
                raise TimedOut() from exc
            if not piece:
                break
            pieces.append(piece)
            if left is not None:
                left -= len(piece)
            if self._clock() > deadline:
                raise TimedOut()
        return b''.join(pieces)
