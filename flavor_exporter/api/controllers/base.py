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
"""What every controller shares: REST dispatch, route names, the request.

Resource is Pecan's RestController with two of today's HTTP rules that
Pecan leaves out: HEAD is answered as GET (the server drops the body),
and a path below a resource that nothing serves is a 404, not the 405
Pecan answers when a resource has no get_one.

expose(operation) is pecan.expose() naming the route a method serves:
the hooks read the route's policy and query kind from it.
"""

import pecan
from pecan import rest
import webob.exc

from flavor_exporter.api import responses
from flavor_exporter.api import routes

#: The attribute of an exposed method that holds its routes.Route.
ROUTE = 'flavor_exporter_route'


def expose(operation):
    """pecan.expose() of a method serving the route of operation.

    operation None: a method Pecan must find that serves no route. Every
    answer is a WebOb response of its own type: Pecan negotiates nothing
    (hooks.py tells it the type before it routes).
    """
    route = None if operation is None else routes.BY_OPERATION[operation]

    def decorate(method):
        setattr(method, ROUTE, route)
        return pecan.expose(content_type=responses.JSON)(method)
    return decorate


def route_of(controller):
    """The routes.Route a controller method serves, or None."""
    return getattr(controller, ROUTE, None)


class Resource(rest.RestController):
    """A REST resource of this API."""

    def _handle_head(self, method, remainder, request=None):
        return self._handle_get(method, remainder, request)

    def _handle_get(self, method, remainder, request=None):
        try:
            return super()._handle_get(method, remainder, request)
        except webob.exc.HTTPMethodNotAllowed:
            if remainder and remainder != ['']:
                # A path below this resource, which has no get_one.
                raise webob.exc.HTTPNotFound() from None
            raise


class Served:
    """The request being served, with what the hooks found (hooks.py).

    published: the process's published.Published; caller: an
    access.Access; cloud: the cloud the path names (None: the default);
    query: the route's parsed filters. One object, set once: Pecan's
    request is reached through a thread-local proxy, and WebOb keeps ad
    hoc attributes in the environ, a few microseconds per access.
    """

    __slots__ = ('webob', 'published', 'caller', 'cloud', 'query')

    def __init__(self, webob_request, published, caller):
        self.webob = webob_request
        self.published = published
        self.caller = caller
        self.cloud = None
        self.query = None

    @property
    def environ(self):
        return self.webob.environ

    @property
    def application_url(self):
        """Where the API is served, as the client reached it (no '/')."""
        return self.webob.application_url

    @property
    def path_info(self):
        return self.webob.path_info

    @property
    def body(self):
        return self.webob.body


#: Where the request keeps its Served.
SERVED = 'served'


def request():
    """The Served of the request being served."""
    return getattr(pecan.request, SERVED)


def client():
    """Who asks: the authenticated user, else the client's address."""
    served = request()
    return served.caller.user_id or served.environ.get('REMOTE_ADDR', '-')


def answer(held, view):
    """The answer of a published.Representation served from view.

    A client that holds it (If-None-Match) gets a 304.
    """
    req = request().webob
    if_none_match = (req.if_none_match
                     if 'HTTP_IF_NONE_MATCH' in req.environ else None)
    return responses.representation(held, view, if_none_match)
