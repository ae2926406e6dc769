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

import http.client
import json
import os
import ssl
import urllib.parse

from keystoneauth1 import adapter
from keystoneauth1 import exceptions as ks_exc
import requests

from flavor_exporter.worker import http_connections

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


def pool_manager(session, maxsize):
    """Connections with the session's TLS settings and timeout.

    maxsize: idle connections kept per endpoint, the client's concurrency.
    """
    return Connections(session.timeout, maxsize, _tls(session))


# Where they live now; the names stay for their readers.
Connections = http_connections.Connections
Response = http_connections.Response


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

    def url(self, path, params=None):
        """The URL of a GET of path."""
        url = '%s/%s' % (self._base_url, path.lstrip('/'))
        if params:
            url += '?' + urllib.parse.urlencode(params, doseq=True)
        return url

    def headers(self, microversion=None):
        """The headers of a GET now: the current token included."""
        headers = dict(self._headers)
        headers.update(self._session.get_auth_headers() or {})
        headers.update(microversion_headers(self.service, microversion))
        return headers

    def batch_spec(self, microversion=None):
        """What a get_process child needs to send GETs as this lane."""
        return dict(self._pools.settings(),
                    headers=self.headers(microversion))

    def get(self, path, microversion=None, params=None):
        """An Answer, or None when the usual path must answer instead.

        None for a 401 (keystoneauth renews the token and asks again) and
        a redirect (keystoneauth follows it). Transport errors raise the
        keystoneauth exceptions the usual path raises.
        """
        url = self.url(path, params)
        headers = self.headers(microversion)
        try:
            response = self._pools.request('GET', url, headers=headers,
                                           redirect=False)
        except (OSError, http.client.HTTPException) as exc:
            raise _as_keystoneauth(url, exc) from exc
        if response.status == 401 or 300 <= response.status < 400:
            return None
        return Answer(response.status, response.data)
