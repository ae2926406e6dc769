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
"""The options of the oslo.middleware pieces in the API's pipeline.

``[oslo_middleware] enable_proxy_headers_parsing`` (http_proxy_to_wsgi)
and ``[cors]`` belong to oslo.middleware; they are listed here, with the
defaults this API needs, so that they are registered before the
configuration files are checked (common/config_check.py knows them) and
the sample shows them. oslo.middleware registers the same option objects
again when the pipeline is built, which oslo.config accepts.
"""

from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi

#: What a browser may send besides CORS's simple headers: a token, a
#: request id of its own, the validators of a poll.
ALLOW_HEADERS = ['X-Auth-Token', 'X-OpenStack-Request-ID', 'If-None-Match',
                 'If-Modified-Since']
#: What a browser's script may read of an answer besides the simple ones.
EXPOSE_HEADERS = ['X-OpenStack-Request-ID', 'ETag', 'X-Flavor-Exporter-Stale',
                  'Retry-After']

# A read-only API: a preflight for anything else is refused.
cors.set_defaults(allow_methods=['GET', 'HEAD', 'OPTIONS'],
                  allow_headers=ALLOW_HEADERS,
                  expose_headers=EXPOSE_HEADERS)

PROXY_GROUP = 'oslo_middleware'
CORS_GROUP = 'cors'


def register_opts(conf):
    conf.register_opts(http_proxy_to_wsgi.OPTS, group=PROXY_GROUP)
    conf.register_opts(cors.OPTS, group=CORS_GROUP)


def list_opts():
    return {PROXY_GROUP: http_proxy_to_wsgi.OPTS, CORS_GROUP: cors.OPTS}
