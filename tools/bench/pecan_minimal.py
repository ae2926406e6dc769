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
"""The least Pecan application serving a published document.

What the framework alone costs, for tools/bench/api.py: a root
controller, one plain controller per path segment, and a RestController
at the end whose get_all returns the document's bytes from a dict and
whose get_one looks an item up in another (none here: 404), both exposed
as application/json. No hooks, no middleware, no cache: the bytes are
read from memcached once when the process starts, as for bare
(tools/bench/api_apps.Bare).

make(..., workaround=True) first installs the argument-introspection
workaround flavor-exporter's API installs
(flavor_exporter.api.pecan_argspec.install()); workaround=False is stock
Pecan. install() changes Pecan for the whole process and cannot be
undone, so measure stock Pecan in a process of its own
(tools/bench/api_apps.py --cpu pecan-stock).
"""

import pecan
from pecan import rest

#: The key of the listed document in a FlavorsController's documents.
LIST = 'list'


class FlavorsController(rest.RestController):
    """GET /.../ answers the list; GET /.../<id> an item, or 404."""

    def __init__(self, documents, items):
        self.documents = documents
        self.items = items

    @pecan.expose(content_type='application/json')
    def get_all(self):
        return self.documents[LIST]

    @pecan.expose(content_type='application/json')
    def get_one(self, item_id):
        body = self.items.get(item_id)
        if body is None:
            pecan.abort(404)
        return body


class Segment:
    """A plain controller: one attribute, the next segment of the path."""

    def __init__(self, name, child):
        setattr(self, name, child)


def root_for(path, body):
    """A root controller under which GET path answers body.

    path: '/a/b/' or '/a/b' (segments that are Python identifiers); the
    last segment is the RestController.
    """
    segments = [s for s in path.split('/') if s]
    if not segments or not all(s.isidentifier() for s in segments):
        raise ValueError('cannot route %r in the minimal Pecan app' % path)
    controller = FlavorsController({LIST: body}, {})
    for name in reversed(segments[1:]):
        controller = Segment(name, controller)
    root = Segment(segments[0], controller)
    return root


def make(path, body, workaround=True):
    """The minimal Pecan WSGI application; with the API's workaround."""
    if workaround:
        from flavor_exporter.api import pecan_argspec
        pecan_argspec.install()
    return pecan.make_app(root_for(path, body), debug=False,
                          guess_content_type_from_ext=False)


def workaround_installed():
    """True once pecan_argspec.install() ran in this process."""
    from pecan import util
    return getattr(util.getargspec, 'remembers', None) is not None
