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
"""The most requested documents, served without Pecan's routing.

Portals poll the two lists many times a minute. Pecan finds a controller
for every request, about 50 us of CPU, several times what serving the
held bytes costs; this answers a plain GET of /gpus/flavors[/],
/v2/flavors/ and /v2/clouds/NAME/flavors/ (no filter) from the reader
directly, with the headers the
controllers give (flavor_exporter.api.responses). Whatever else, errors
included, goes to the application: a conditional or HEAD request, a
cold or unreadable cache, stale v2 data (its body says so), and every
request when authentication is on, since policy filters the lists.
"""

from oslo_log import log

from flavor_exporter.api import generations
from flavor_exporter.api import responses
from flavor_exporter.common import published as pub

LOG = log.getLogger(__name__)

# Path -> (document, whether a query string is ignored, as the
# predecessor's routes ignore it).
# The default cloud's; every cloud's v2 list is under /v2/clouds/NAME.
ROUTES = {
    '/gpus/flavors': (pub.LEGACY_LIST, True),
    '/gpus/flavors/': (pub.LEGACY_LIST, True),
    '/v2/flavors': (pub.V2_LIST, False),
    '/v2/flavors/': (pub.V2_LIST, False),
}


def routes(readers):
    """{path: (reader, document name, legacy)} answered here."""
    found = {path: (readers.default, name, legacy)
             for path, (name, legacy) in ROUTES.items()}
    for cloud, reader in readers.items():
        for path in ('/v2/clouds/%s/flavors' % cloud,
                     '/v2/clouds/%s/flavors/' % cloud):
            found[path] = (reader, pub.V2_LIST, False)
    return found


class HotDocuments:

    def __init__(self, app, readers):
        """readers: the reader.CloudReaders."""
        self._app = app
        self._routes = routes(readers)

    def __call__(self, environ, start_response):
        try:
            held, view = self._held(environ)
        except Exception:
            # The application answers it, and says what went wrong.
            LOG.debug('Fast path declined %s', environ.get('PATH_INFO'),
                      exc_info=True)
            held = None
        if held is None:
            return self._app(environ, start_response)
        status, headers, body = responses.representation_parts(
            None, held, view)
        start_response(status, headers)
        return [body]

    def _held(self, environ):
        route = self._routes.get(environ.get('PATH_INFO'))
        if (route is None or environ.get('REQUEST_METHOD') != 'GET'
                or 'HTTP_IF_NONE_MATCH' in environ
                or (environ.get('QUERY_STRING') and not route[2])):
            return None, None
        reader, name, legacy = route
        try:
            view = reader.view()
        except (generations.NoData, generations.Unavailable):
            return None, None
        if view.stale and not legacy:
            return None, None
        return reader.documents.get(view.generation, name), view
