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
"""Slow clients: does the API still answer others while they trickle?

Opens SLOW connections that send a request's headers one byte every
--interval seconds (never finishing), then times plain GETs from another
client. A server whose workers read requests themselves (uWSGI
--http-socket, gunicorn sync) stops answering once the slow connections
outnumber its workers; one that holds a connection at most per process
(waitress: 1,024) once they outnumber that. flavor-exporter-api
(granian) holds them in its event loop, bounded by [api] request_timeout
and max_connections.

    python -m tools.bench.slow_clients --port 8780 [--slow 5000]
        [--requests 50] [--path /healthcheck]

Prints one JSON object: the timed requests' p50, p99 and max in ms, and
how many got no answer within --timeout.
"""

import argparse
import json
import resource
import socket
import threading
import time

SLOW_REQUEST = (b'GET /v3/flavors/ HTTP/1.1\r\nHost: bench\r\n'
                b'X-Slow: ' + b'a' * 4000 + b'\r\n\r\n')


def _allow_files(count):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < count:
        resource.setrlimit(resource.RLIMIT_NOFILE, (
            count if hard == resource.RLIM_INFINITY else min(count, hard),
            hard))


class Trickle:
    """count connections each sending a byte per interval until stopped."""

    def __init__(self, host, port, count, interval):
        _allow_files(count + 256)
        self._stop = threading.Event()
        self._sockets = []
        for _ in range(count):
            sock = socket.create_connection((host, port), timeout=5)
            self._sockets.append(sock)
        self._thread = threading.Thread(target=self._run, args=(interval,),
                                        daemon=True)
        self._thread.start()

    def _run(self, interval):
        sent = 0
        while not self._stop.wait(interval if sent else 0):
            byte = SLOW_REQUEST[sent % len(SLOW_REQUEST):][:1]
            for sock in list(self._sockets):
                try:
                    sock.sendall(byte)
                except OSError:
                    # The server gave up on it: fine, it is not held.
                    self._sockets.remove(sock)
            sent += 1

    @property
    def open(self):
        return len(self._sockets)

    def close(self):
        self._stop.set()
        self._thread.join()
        for sock in self._sockets:
            sock.close()


def timed_get(host, port, path, timeout):
    """Seconds until a whole answer to one GET, or None on timeout."""
    started = time.monotonic()
    request = ('GET %s HTTP/1.0\r\nHost: bench\r\n\r\n' % path).encode()
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.sendall(request)
            while s.recv(65536):
                pass
    except OSError:
        return None
    return time.monotonic() - started


def measure(host, port, path, slow, requests, interval=0.5, timeout=5.0):
    trickle = Trickle(host, port, slow, interval)
    try:
        # Let the slow connections reach the server's workers first.
        time.sleep(1.0)
        times = [timed_get(host, port, path, timeout)
                 for _ in range(requests)]
        still_open = trickle.open
    finally:
        trickle.close()
    answered = sorted(t * 1000 for t in times if t is not None)

    def pct(p):
        if not answered:
            return None
        return round(answered[min(len(answered) - 1,
                                  int(p / 100 * len(answered)))], 2)
    return {'slow_connections': slow, 'slow_still_open': still_open,
            'requests': requests, 'unanswered': len(times) - len(answered),
            'p50_ms': pct(50), 'p99_ms': pct(99),
            'max_ms': round(answered[-1], 2) if answered else None}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--path', default='/healthcheck')
    parser.add_argument('--slow', type=int, default=50)
    parser.add_argument('--requests', type=int, default=50)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.host, args.port, args.path, args.slow,
                             args.requests)))


if __name__ == '__main__':
    main()
