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
"""What the server answers itself, before or instead of the application.

A request the server cannot parse or will not read (malformed, too large,
too slow), a connection it sheds, an application that failed: each gets an
answer in JSON, in the v3 error shape since no route was read, and the
connection is closed after it. The application answers everything else,
in its route family's shape.

Like every answer of the API, each carries an X-OpenStack-Request-ID of
its own (api/middleware/request_id.py makes them); the line the server
logs about it names the same id (new_context()).
"""

import http.client
import json

from oslo_context import context

from flavor_exporter.api.middleware import request_id as request_ids
from flavor_exporter.wsgi import http as wsgi_http


def new_context():
    """The RequestContext of an answer the server makes itself.

    Pass it to the log call (context=): the thread's own context is not
    replaced, since no request of the application is being served.
    """
    return context.RequestContext(request_id=request_ids.new_id(),
                                  overwrite=False)


def answer(code, message, version='HTTP/1.0', head_only=False,
           request_id=None):
    """The bytes of a JSON error answer that closes the connection.

    request_id: the id to answer, a new one by default.
    """
    reason = http.client.responses.get(code, 'Error')
    body = json.dumps({'error': {'code': code, 'message': message}},
                      separators=(',', ':')).encode()
    if version not in ('HTTP/1.0', 'HTTP/1.1'):
        version = 'HTTP/1.0'
    return b''.join(wsgi_http.response(
        version, '%d %s' % (code, reason),
        [('Content-Type', 'application/json'),
         (request_ids.HEADER, request_id or request_ids.new_id())], body,
        keep_alive=False, head_only=head_only))
