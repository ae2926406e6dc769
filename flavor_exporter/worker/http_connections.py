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
"""Kept-alive http.client connections for GETs; the standard library only.

direct_get's lane sends its GETs through them, and so does the second
process of a large batch (get_process), which imports nothing else: it
starts in a fraction of the time the worker's imports would take.
"""

import collections
import http.client
import ssl
import threading
import urllib.parse
import zlib


def _ssl_context(options):
    """An ssl.SSLContext verifying and presenting what options say."""
    if options['cert_reqs'] == 'CERT_NONE':
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    else:
        context = ssl.create_default_context(
            cafile=options.get('ca_certs'), capath=options.get('ca_cert_dir'))
    if options.get('cert_file'):
        context.load_cert_chain(options['cert_file'], options.get('key_file'))
    return context


class Response:
    """What Connections.request answers: status and the whole body."""

    def __init__(self, status, data):
        self.status = status
        self.data = data


def _decoded(data, encoding):
    """data without the Content-Encoding the SDK's headers accept."""
    if not encoding or encoding == 'identity':
        return data
    try:
        if encoding == 'gzip':
            return zlib.decompress(data, 16 + zlib.MAX_WBITS)
        if encoding == 'deflate':
            try:
                return zlib.decompress(data)
            except zlib.error:  # a raw deflate stream, as some servers send
                return zlib.decompress(data, -zlib.MAX_WBITS)
    except zlib.error as exc:
        raise http.client.HTTPException(
            'undecodable %s body: %s' % (encoding, exc)) from exc
    raise http.client.HTTPException('unsupported Content-Encoding %r'
                                    % encoding)


# A kept connection the server has closed since (its keep-alive timeout)
# fails so, before any answer: the GET is sent again on a new connection.
_STALE = (ConnectionResetError, BrokenPipeError, ConnectionAbortedError,
          http.client.BadStatusLine)


class Connections:
    """Kept-alive http.client connections per endpoint, for GETs.

    A connection is taken by one call at a time and given back once its
    answer is read whole; at most maxsize idle ones are kept per
    (scheme, host, port). timeout bounds the connection and each read, as
    keystoneauth's does. Transport errors are raised as OSError or
    http.client.HTTPException.
    """

    def __init__(self, timeout, maxsize, tls):
        self._timeout = timeout
        self._maxsize = maxsize
        self._tls = tls
        self._context = None
        self._idle = collections.defaultdict(list)
        self._lock = threading.Lock()

    def settings(self):
        """{'timeout', 'tls'}: what another process's Connections need."""
        return {'timeout': self._timeout, 'tls': dict(self._tls)}

    def _new(self, scheme, host, port):
        if scheme == 'https':
            with self._lock:
                if self._context is None:
                    self._context = _ssl_context(self._tls)
            return http.client.HTTPSConnection(
                host, port, timeout=self._timeout, context=self._context)
        return http.client.HTTPConnection(host, port, timeout=self._timeout)

    def request(self, method, url, headers=None, redirect=False):
        """A Response to one request; redirects are not followed."""
        parts = urllib.parse.urlsplit(url)
        key = (parts.scheme, parts.hostname, parts.port)
        target = (parts.path or '/') + ('?' + parts.query
                                        if parts.query else '')
        with self._lock:
            idle = self._idle[key]
            connection = idle.pop() if idle else None
        if connection is not None:
            try:
                return self._send(key, connection, method, target, headers)
            except _STALE:
                pass  # closed by _send; once more on a new connection
        return self._send(key, self._new(*key), method, target, headers)

    def _send(self, key, connection, method, target, headers):
        try:
            connection.request(method, target, headers=headers or {})
            response = connection.getresponse()
            data = response.read()
        except BaseException:
            connection.close()
            raise
        if response.will_close:
            connection.close()
        else:
            with self._lock:
                idle = self._idle[key]
                if len(idle) < self._maxsize:
                    idle.append(connection)
                    connection = None
            if connection is not None:
                connection.close()
        return Response(response.status, _decoded(
            data, response.getheader('Content-Encoding')))
