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
"""A service's GETs sent over http.client, once openstacksdk has found it.

A cold refresh of a large cloud is some 19,000 GETs (one inventories read
per resource provider; Placement has no bulk read). Through openstacksdk,
keystoneauth and requests, each costs about three times the CPU urllib3
alone needs to send it and read the answer, for work whose result is the
same on every call: which endpoint, which headers, which TLS and proxy
settings. So CloudClient sends a service's first GET the usual way -
openstacksdk authenticates, reads the catalog and discovers versions, with
all its errors - and then builds a DirectLane from what that call used:
the endpoint, the headers other than the token, the session's TLS
settings and timeout. Each later GET asks keystoneauth for the current
token (it renews it as usual) and goes straight to http.client, over
kept-alive connections (Connections): urllib3 costs twice its CPU per call
(~300 against ~135 us measured, tools/bench/worker.py's cold refresh is
19,284 of them) for pooling and retry logic a GET of a JSON document on a
known endpoint does not use.

What the lane does not do it leaves to the usual path: an endpoint behind
a proxy gets no lane at all, and a 401 is sent again the usual way, which
renews the token and retries as keystoneauth does. Transport errors are
raised as the keystoneauth exceptions the usual path raises for them, so
that the messages and hints of a failed refresh stay the same.
"""

import collections
import http.client
import json
import os
import ssl
import threading
import urllib.parse
import zlib

from keystoneauth1 import adapter
from keystoneauth1 import exceptions as ks_exc
import requests

# Headers of the SDK's call that the lane does not copy: the token is asked
# for on every call, the microversion is each call's.
_PER_CALL = frozenset(('x-auth-token', 'openstack-api-version',
                       'x-openstack-nova-api-version', 'content-length',
                       'connection'))


def microversion_headers(service, microversion):
    """The headers keystoneauth sends for a service type's microversion."""
    if not microversion:
        return {}
    headers = {'OpenStack-API-Version': '%s %s' % (service, microversion)}
    if service == 'compute':
        # Nova before 2.27 reads only the legacy header.
        headers['X-OpenStack-Nova-API-Version'] = microversion
    return headers


def _tls(session):
    """The TLS options of a keystoneauth session, as a dict.

    cert_reqs (CERT_NONE or CERT_REQUIRED), ca_certs or ca_cert_dir,
    cert_file and key_file: what the session verifies and presents.
    """
    verify = session.verify
    if verify is True or verify is None:
        # What requests would use: the environment's bundle, or certifi's.
        verify = (os.environ.get('REQUESTS_CA_BUNDLE')
                  or os.environ.get('CURL_CA_BUNDLE')
                  or requests.utils.DEFAULT_CA_BUNDLE_PATH)
    if verify is False:
        options = {'cert_reqs': 'CERT_NONE'}
    elif os.path.isdir(verify):
        options = {'cert_reqs': 'CERT_REQUIRED', 'ca_cert_dir': verify}
    else:
        options = {'cert_reqs': 'CERT_REQUIRED', 'ca_certs': verify}
    cert = session.cert
    if isinstance(cert, (tuple, list)):
        options['cert_file'], options['key_file'] = cert
    elif cert:
        options['cert_file'] = cert
    return options


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


def pool_manager(session, maxsize):
    """Connections with the session's TLS settings and timeout.

    maxsize: idle connections kept per endpoint, the client's concurrency.
    """
    return Connections(session.timeout, maxsize, _tls(session))


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


def _as_keystoneauth(url, exc):
    """The keystoneauth exception the usual path raises for exc."""
    if isinstance(exc, ssl.SSLError):
        return ks_exc.SSLError('SSL exception connecting to %s: %s'
                               % (url, exc))
    if isinstance(exc, TimeoutError):  # socket.timeout is one
        return ks_exc.ConnectTimeout('Request to %s timed out' % url)
    return ks_exc.ConnectFailure('Unable to establish connection to %s: %s'
                                 % (url, exc))


class Answer:
    """What CloudClient reads of a response, from either path."""

    def __init__(self, status_code, content):
        self.status_code = status_code
        self.content = content

    @property
    def text(self):
        return self.content.decode('utf-8', 'replace')

    def json(self):
        return json.loads(self.content)


class DirectLane:
    """GETs of one service straight over http.client (Connections)."""

    def __init__(self, service, base_url, headers, session, pools):
        self.service = service
        self._base_url = base_url.rstrip('/')
        self._headers = headers
        self._session = session
        self._pools = pools

    @classmethod
    def after(cls, service, proxy, response, session, pools):
        """The lane for what response's call used, or None.

        None when the endpoint is reached through a proxy (from the
        environment or the session): those calls keep the usual path.
        """
        # The adapter's own: the identity proxy's get_endpoint is the
        # "show an endpoint" API call.
        base_url = adapter.Adapter.get_endpoint(proxy)
        if not base_url or getattr(session.session, 'proxies', None):
            return None
        scheme = urllib.parse.urlsplit(base_url).scheme
        proxies = requests.utils.get_environ_proxies(base_url)
        if proxies.get(scheme) or proxies.get('all'):
            return None
        headers = {name: value
                   for name, value in response.request.headers.items()
                   if name.lower() not in _PER_CALL}
        return cls(service, base_url, headers, session, pools)

    def get(self, path, microversion=None, params=None):
        """An Answer, or None when the usual path must answer instead.

        None for a 401 (keystoneauth renews the token and asks again) and
        a redirect (keystoneauth follows it). Transport errors raise the
        keystoneauth exceptions the usual path raises.
        """
        url = '%s/%s' % (self._base_url, path.lstrip('/'))
        if params:
            url += '?' + urllib.parse.urlencode(params, doseq=True)
        headers = dict(self._headers)
        headers.update(self._session.get_auth_headers() or {})
        headers.update(microversion_headers(self.service, microversion))
        try:
            response = self._pools.request('GET', url, headers=headers,
                                           redirect=False)
        except (OSError, http.client.HTTPException) as exc:
            raise _as_keystoneauth(url, exc) from exc
        if response.status == 401 or 300 <= response.status < 400:
            return None
        return Answer(response.status, response.data)
