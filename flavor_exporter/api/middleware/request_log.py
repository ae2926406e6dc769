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
"""One line per request, as Placement's request log writes it.

``REMOTE_ADDR "METHOD URI" status: 200 len: 1234 time: 0.000512`` at
INFO, with the request's id in the line's context (request_id.py is
outside this layer): an operator follows any request from its id. With
``[api] log_requests = false`` only answers of 400 and more are logged.

A URI is logged with every byte that is not printable ASCII, and every
quote and backslash, percent-encoded: a request for ``/x%0A2026-...``
cannot start a line of its own in the log (PATH_INFO holds the decoded
newline).
"""

import re
import time

from oslo_log import log

LOG = log.getLogger(__name__)

_UNSAFE = re.compile(r'[^\x21-\x7e]|["\\]')
_LONGEST = 4096


def loggable(text):
    """text with what could forge or garble a log line percent-encoded.

    text: an environ string (PEP 3333: the request's bytes as latin-1).
    """
    return _UNSAFE.sub(lambda found: ''.join(
        '%%%02X' % byte for byte in found.group().encode(
            'latin-1', 'backslashreplace')), text[:_LONGEST])


def uri(environ):
    """The request's URI as logged."""
    raw = environ.get('REQUEST_URI')
    if raw is None:
        raw = environ.get('SCRIPT_NAME', '') + environ.get('PATH_INFO', '')
        if environ.get('QUERY_STRING'):
            raw += '?' + environ['QUERY_STRING']
    return loggable(raw)


class RequestLog:
    """Logs each request's answer: status, bytes, time."""

    def __init__(self, app, every_request=True):
        self._app = app
        self._every_request = every_request

    def __call__(self, environ, start_response):
        started = time.monotonic()

        def start(status, headers, exc_info=None):
            if self._every_request or status[:1] in '45':
                _log(environ, status, headers, time.monotonic() - started)
            return start_response(status, headers, exc_info)
        return self._app(environ, start)


def _log(environ, status, headers, seconds):
    if not LOG.isEnabledFor(log.INFO):
        return
    length = next((value for name, value in headers
                   if name.lower() == 'content-length'), '-')
    LOG.info('%s "%s %s" status: %s len: %s time: %.6f',
             environ.get('REMOTE_ADDR', '-'),
             loggable(environ.get('REQUEST_METHOD', '-')), uri(environ),
             status.split(None, 1)[0], length, seconds)
