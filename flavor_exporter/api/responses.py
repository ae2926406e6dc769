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
"""Successful answers: published representations, and pages.

A controller (controllers/) answers with one of two things, made here so
that every answer has the same headers:

- representation(): bytes published by the worker (or a variant), with
  their validators (ETag, Last-Modified; 304 to a client that has them)
  and whether they are stale;
- page(): an answer made per request (status, clouds, metrics, version
  documents, the API description), without validators.

Both are WebOb responses, which Pecan serves as they are. Errors are
errors.py's.
"""

import json

import webob

from flavor_exporter.api import errors

JSON = errors.JSON
# Whether the answer comes from data older than [api] stale_after, or from
# this process's copy while the cache could not be read. v3 documents also
# say it in their "stale" field; the seed's and the predecessor's shapes
# have no room for it.
STALE_HEADER = 'X-Flavor-Exporter-Stale'


def response(status, headers, body):
    """A WebOb response of exactly these status, headers and body.

    No header is added: the body is one bytes object, Content-Length the
    caller's.
    """
    return webob.Response(status=status, headerlist=headers, app_iter=[body])


def page(value, content_type=JSON, status=200, headers=()):
    """An answer of bytes as they are, or of a JSON value to encode."""
    if not isinstance(value, bytes):
        value = json.dumps(value, indent=2).encode('utf-8')
    headerlist = [('Content-Length', str(len(value))), *headers]
    if content_type:
        headerlist.insert(0, ('Content-Type', content_type))
    return response(errors.status_line(status), headerlist, value)


def representation(held, view, if_none_match=None):
    """The answer of a published.Representation.

    if_none_match: the request's WebOb entity tag matcher, None when the
    request has no If-None-Match; a match is a 304 without the body.
    """
    headers = [('Content-Type', JSON),
               ('ETag', held.etag),
               (STALE_HEADER, 'true' if view.stale else 'false')]
    if held.last_modified:
        headers.append(('Last-Modified', held.last_modified))
    if if_none_match is not None and held.etag[1:-1] in if_none_match:
        return response('304 Not Modified', headers[1:], b'')
    headers.append(('Content-Length', str(len(held.body))))
    return response('200 OK', headers, held.body)
