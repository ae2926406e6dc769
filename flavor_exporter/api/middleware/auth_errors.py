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
"""keystonemiddleware's own error answers, in the API's JSON.

keystonemiddleware answers 401 in JSON itself, but the 503 it answers
when Keystone cannot be reached (it cannot validate the token) is
WebOb's page: HTML for a browser, text otherwise. Every error of the API
is JSON in its route family's shape, this one included: this middleware,
around keystonemiddleware only, puts any answer of 400 or more that is not
JSON into that shape, keeping the headers that tell a client what to do
(WWW-Authenticate, Retry-After).
"""

from oslo_log import log

from flavor_exporter.api import errors

LOG = log.getLogger(__name__)

KEPT_HEADERS = frozenset(['www-authenticate', 'retry-after'])
MESSAGES = {
    503: 'The token cannot be validated: the identity service (Keystone) '
         'does not answer. Retry later.',
}


class AuthErrors:
    """Around keystonemiddleware: its non-JSON error answers as JSON."""

    def __init__(self, app):
        self._app = app

    def __call__(self, environ, start_response):
        refused = []

        def capture(status, headers, exc_info=None):
            code = int(status.split(' ', 1)[0])
            kind = next((value for name, value in headers
                         if name.lower() == 'content-type'), '')
            if code < 400 or kind.startswith('application/json'):
                return start_response(status, headers, exc_info)
            refused[:] = [code, status, headers]
            return lambda data: None

        result = self._app(environ, capture)
        if not refused:
            return result
        # The page is dropped: its text is WebOb's, not ours.
        if hasattr(result, 'close'):
            result.close()
        code, status, headers = refused
        message = MESSAGES.get(code, status.split(' ', 1)[-1])
        LOG.debug('Authentication answered %s; answering it in JSON',
                  status)
        return errors.answer(
            environ, start_response, code, message,
            [(name, value) for name, value in headers
             if name.lower() in KEPT_HEADERS])
