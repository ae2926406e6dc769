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
"""HTTP answers of the API: documents with their validators, and errors.

Every answer is built here, so that headers and error shapes are the same
on every route: JSON errors everywhere, the predecessor's
``{"message": ...}`` under /gpus and ``{"error": {"code", "message"}}``
elsewhere.
"""

import json

import webob

from flavor_exporter.api import access
from flavor_exporter.api import filters
from flavor_exporter.api import projects
from flavor_exporter.api import queries
from flavor_exporter.publication import contract as pub

JSON = 'application/json'
# Whether the answer comes from data older than [api] stale_after, or from
# this process's copy while the cache could not be read. v2 documents also
# say it in their "stale" field; the legacy shape has no room for it.
STALE_HEADER = 'X-Flavor-Exporter-Stale'
LEGACY_PREFIX = '/gpus'


def is_legacy(path):
    return path == LEGACY_PREFIX or path.startswith(LEGACY_PREFIX + '/')


def representation(held, view, if_none_match=None):
    """(status, headers, body) of a queries.Representation.

    if_none_match: the request's WebOb entity tag matcher, None when the
    request has no If-None-Match; a match is a 304 without the body.
    """
    headers = [('Content-Type', JSON),
               ('ETag', held.etag),
               (STALE_HEADER, 'true' if view.stale else 'false')]
    if held.last_modified:
        headers.append(('Last-Modified', held.last_modified))
    if if_none_match is not None and held.etag[1:-1] in if_none_match:
        return '304 Not Modified', headers[1:], b''
    headers.append(('Content-Length', str(len(held.body))))
    return '200 OK', headers, held.body


def body(value, content_type=JSON, status=200, headers=()):
    """An answer that is not a published document (no validators).

    value: bytes as they are, or a JSON value to encode.
    """
    if not isinstance(value, bytes):
        value = json.dumps(value, indent=2).encode('utf-8')
    return webob.Response(body=value, status=status,
                          headerlist=[('Content-Type', content_type)] +
                          list(headers))


def error(path, code, message, headers=()):
    """A JSON error in the shape of the route family of path."""
    if is_legacy(path):
        value = {'message': message}
    else:
        value = {'error': {'code': code, 'message': message}}
    return webob.Response(body=pub.encode(value), status=code,
                          headerlist=[('Content-Type', JSON)] +
                          list(headers))


def service_unavailable(message, retry_after):
    """(503, message, headers): nothing to serve yet, retry later."""
    return 503, message, [('Retry-After', str(retry_after))]


def for_exception(exc, retry_after):
    """(status code, message, headers) of what the queries raised.

    None for an exception that is not the client's to hear about: the
    caller logs it and answers 500.
    """
    if isinstance(exc, queries.NotFound):
        return 404, str(exc), []
    if isinstance(exc, filters.BadQuery):
        return 400, str(exc), []
    if isinstance(exc, access.Forbidden):
        return 403, str(exc), []
    if isinstance(exc, projects.NotReady):
        return service_unavailable(str(exc), exc.retry_after)
    if isinstance(exc, queries.NoData):
        return service_unavailable(
            'No capacity data has been published yet; the worker '
            'publishes it after its first refresh. Retry in %d seconds.'
            % retry_after, retry_after)
    if isinstance(exc, queries.Unavailable):
        return service_unavailable(
            'The capacity data cannot be read (%s). Retry in %d seconds.'
            % (exc, retry_after), retry_after)
    return None


INTERNAL_ERROR = 'Internal error; the API log has the details.'
