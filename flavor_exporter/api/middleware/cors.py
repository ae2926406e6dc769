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
"""Cross-origin requests from browsers, as ``[cors]`` allows them.

oslo.middleware's CORS, which app.py adds when ``[cors] allowed_origin``
is set, with the defaults conf/middleware.py gives it (GET, HEAD and
OPTIONS; a token, a request id and validators may be sent; the request
id, ETag and staleness may be read). A preflight (OPTIONS) it answers
200 itself, with the allowed origin's headers, or without them for an
origin not allowed (the browser then refuses the call).

A request that has no ``Origin`` and is no preflight is passed on as it
is: CORS leaves its answer unchanged, and its WebOb request and response
would cost several times what serving a published document does, for
every portal poller and script that is no browser.
"""

from oslo_middleware import cors


class CORS(cors.CORS):
    """oslo.middleware's CORS, for browsers' requests only."""

    def __call__(self, environ, start_response):
        if ('HTTP_ORIGIN' not in environ
                and environ.get('REQUEST_METHOD') != 'OPTIONS'):
            return self.application(environ, start_response)
        return super().__call__(environ, start_response)
