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
"""The scheme, host and prefix a proxy forwarded, as the request's own.

oslo.middleware's HTTPProxyToWSGI, which ``[oslo_middleware]
enable_proxy_headers_parsing`` turns on: behind a TLS-terminating proxy,
``Forwarded`` (RFC 7239) or ``X-Forwarded-Proto``, ``-Host``, ``-For``
and ``-Prefix`` replace the environ's scheme, host, client address and
script name, so that the URLs the API makes (the version document's
links, the API document's server) are the ones clients used.

Its parsing is kept; what is left out is the WebOb request and response
its base class makes around every request, some 40 microseconds, four
times what serving a published document costs: the parsing reads and
writes the environ only. app.py adds this layer only when the option is
set, so the option is not read again per request.
"""

import collections

from oslo_middleware import http_proxy_to_wsgi

# All of the WebOb request the parsing reads.
_Request = collections.namedtuple('_Request', 'environ')


class HTTPProxyToWSGI(http_proxy_to_wsgi.HTTPProxyToWSGI):
    """Forwarded scheme, host, address and prefix into the environ."""

    def __call__(self, environ, start_response):
        self.process_request(_Request(environ))
        return self.application(environ, start_response)

    def _conf_get(self, key, group='oslo_middleware'):
        if key == 'enable_proxy_headers_parsing':
            return True
        return super()._conf_get(key, group)
