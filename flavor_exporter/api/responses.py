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

A route's function (resources/) returns one of two things, which the
dispatcher serves here so that every answer has the same headers:

- a published.Answer: bytes published by the worker (or a variant), with
  their validators (ETag, Last-Modified; 304 to a client that has them)
  and whether they are stale;
- a Page: an answer made per request (status, clouds, metrics, version
  documents, the API description), without validators.

Errors are errors.py's.
"""

import collections
import json

from flavor_exporter.api import errors

JSON = errors.JSON
# Whether the answer comes from data older than [api] stale_after, or from
# this process's copy while the cache could not be read. v3 documents also
# say it in their "stale" field; the seed's and the predecessor's shapes
# have no room for it.
STALE_HEADER = 'X-Flavor-Exporter-Stale'


class Page(collections.namedtuple('Page', 'body content_type status headers')):
    """An answer made per request: bytes, their type, status, headers."""


def page(value, content_type=JSON, status=200, headers=()):
    """A Page of bytes as they are, or of a JSON value to encode."""
    if not isinstance(value, bytes):
        value = json.dumps(value, indent=2).encode('utf-8')
    return Page(value, content_type, status, list(headers))


def representation(held, view, if_none_match=None):
    """(status, headers, body) of a published.Representation.

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


def page_answer(made):
    """(status, headers, body) of a Page."""
    headers = [('Content-Length', str(len(made.body))), *made.headers]
    if made.content_type:
        headers.insert(0, ('Content-Type', made.content_type))
    return errors.status_line(made.status), headers, made.body
