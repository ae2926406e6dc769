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
"""Methods: this API is read-only, on every path.

Pecan's routes refuse other methods in a hook (flavor_exporter.api.hooks);
the healthcheck is not a Pecan route, and oslo.middleware's healthcheck
answers any method, TRACE included. This middleware answers 405 with
Allow for everything but GET and HEAD before any route is looked up.
"""

from flavor_exporter.api import responses

ALLOWED_METHODS = ('GET', 'HEAD')


class ReadOnly:
    """405 JSON for methods other than GET and HEAD."""

    def __init__(self, app):
        self._app = app

    def __call__(self, environ, start_response):
        method = environ.get('REQUEST_METHOD', 'GET')
        if method in ALLOWED_METHODS:
            return self._app(environ, start_response)
        return responses.error(
            environ.get('PATH_INFO', '/'), 405,
            '%s is not allowed: this API is read-only.' % method[:32],
            [('Allow', ', '.join(ALLOWED_METHODS))])(
                environ, start_response)
