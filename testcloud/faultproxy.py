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
"""A loopback HTTP proxy in front of a real service that breaks chosen paths.

Everything is forwarded to the real endpoint (Placement of the test cloud)
as it is, except requests whose path (query string excluded) a fault
names: those get the fault's status and body instead, as a broken or
overloaded service would answer. Point a client at ``url`` (for
openstacksdk: ``placement_endpoint_override``)::

    proxy = self.useFixture(faultproxy.FaultProxy(cloud.placement_url))
    proxy.break_path('/resource_providers/%s/inventories' % uuid,
                     status=200, body=b'<html>oops</html>')

rewrite_path() forwards the request and changes the real JSON answer
(an entry left out, a field spoilt), as a cell that does not answer or a
proxy cutting a page short would. hold_path() keeps one request waiting
until release(), to catch a client in the middle of its work.
"""

import http.client
import http.server
import json
import threading
import urllib.parse

import fixtures

# Hop-by-hop headers, and the length the proxy computes itself.
_NOT_FORWARDED = frozenset(['connection', 'keep-alive', 'transfer-encoding',
                            'content-length', 'host'])


class FaultProxy(fixtures.Fixture):
    """A threaded loopback proxy to target_url; see the module docstring.

    After setUp: ``url`` (target_url's path on the proxy's port) and
    ``seen``, the paths of every request it received, faulted or not.
    """

    def __init__(self, target_url):
        super().__init__()
        self._target = urllib.parse.urlsplit(target_url)
        self._faults = {}
        self._rewrites = {}
        self._lock = threading.Lock()
        self._hold = None
        self._released = threading.Event()
        self.held = threading.Event()
        self.seen = []
        self.url = None

    def break_path(self, path, status=500, body=b'{"errors": []}',
                   content_type='application/json'):
        """Answer requests for path (below the target's path) this way."""
        full = self._target.path.rstrip('/') + path
        with self._lock:
            self._faults[full] = (status, body, content_type)

    def rewrite_path(self, path, change):
        """Answer path with change(the real answer's JSON) instead.

        change gets the decoded body and returns what to answer (JSON
        encoded); the status and headers stay the real ones.
        """
        full = self._target.path.rstrip('/') + path
        with self._lock:
            self._rewrites[full] = change

    def mend(self):
        """Forward every path again, unchanged."""
        with self._lock:
            self._faults.clear()
            self._rewrites.clear()

    def hold_path(self, path):
        """Keep the next request for path waiting until release().

        Only that one: later requests for path are forwarded. ``held`` is
        set once the request arrived, so that a test knows its client is
        in the middle of the call.
        """
        full = self._target.path.rstrip('/') + path
        with self._lock:
            self._hold = full
        self.held.clear()
        self._released.clear()

    def release(self):
        """Forward the held request now."""
        self._released.set()

    def _setUp(self):
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def log_message(self, *args):
                pass  # the test's output is not the place for access logs

            def do_GET(self):
                self._relay()

            def do_POST(self):
                self._relay()

            def _relay(self):
                path = urllib.parse.urlsplit(self.path).path
                with proxy._lock:
                    proxy.seen.append(path)
                    fault = proxy._faults.get(path)
                    change = proxy._rewrites.get(path)
                    hold = path == proxy._hold
                    if hold:
                        proxy._hold = None
                if hold:
                    proxy.held.set()
                    proxy._released.wait(300)
                # A POST's body is read whatever is done with it: the
                # connection stays usable for the client's next request.
                length = int(self.headers.get('Content-Length') or 0)
                sent = self.rfile.read(length) if length else None
                if fault is not None:
                    status, body, content_type = fault
                    self._answer(status, [('Content-Type', content_type)],
                                 body)
                    return
                target = http.client.HTTPConnection(
                    proxy._target.hostname, proxy._target.port, timeout=30)
                try:
                    target.request(self.command, self.path, body=sent,
                                   headers={
                                       name: value for name, value
                                       in self.headers.items()
                                       if name.lower() not in _NOT_FORWARDED})
                    response = target.getresponse()
                    body = response.read()
                    if change is not None and response.status == 200:
                        body = json.dumps(change(json.loads(body))).encode()
                    headers = [(name, value)
                               for name, value in response.getheaders()
                               if name.lower() not in _NOT_FORWARDED]
                    self._answer(response.status, headers, body)
                finally:
                    target.close()

            def _answer(self, status, headers, body):
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        # Port 0: the kernel picks a free one, with no race.
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        port = server.server_address[1]
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever,
                                  name='faultproxy', daemon=True)
        thread.start()
        self.addCleanup(thread.join, 10)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        # A held request must not keep the server from shutting down.
        self.addCleanup(self.release)
        self.url = 'http://127.0.0.1:%d%s' % (port, self._target.path)
