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
"""The request line of answers given before Pecan.

The request log hook (hooks.py) logs what Pecan answers. Some answers
are given by the layers around it: refusals of request limits (405,
414, 431, 400), of authentication (401), and CORS preflights. This
layer, inside request_id (so that the line names the request's id),
logs those in the same line, and only those.
"""

import time

from flavor_exporter.api import hooks
from flavor_exporter.api import request_log


class UnroutedLog:
    """Logs each answer the application gave without reaching Pecan."""

    def __init__(self, app, every_request=True):
        self._app = app
        self._log = request_log.RequestLog(every_request)

    def __call__(self, environ, start_response):
        started = time.monotonic()

        def start(status, headers, exc_info=None):
            if hooks.STARTED not in environ:
                length = next((value for name, value in headers
                               if name.lower() == 'content-length'), '-')
                self._log.answered(environ, status, length,
                                   time.monotonic() - started)
            return start_response(status, headers, exc_info)
        return self._app(environ, start)
