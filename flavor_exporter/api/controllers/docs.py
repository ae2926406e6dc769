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
"""/openapi.json and /docs/: the API's description and Swagger UI.

Swagger UI's files come from the swagger-ui-bundle package, so /docs/
works on hosts without Internet access: no CDN, and the online spec
validator Swagger UI calls by default is switched off.
"""

import importlib.resources
import json
import mimetypes
import os
import threading

import swagger_ui_bundle

from flavor_exporter.api.controllers import base
from flavor_exporter.api import errors
from flavor_exporter.api import responses

# The only files /docs/ serves, whatever the path asks for.
_ASSETS = ('swagger-ui.css', 'swagger-ui-bundle.js',
           'swagger-ui-standalone-preset.js', 'favicon-32x32.png',
           'favicon-16x16.png')

_INDEX = b"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>flavor-exporter API</title>
<link rel="stylesheet" href="swagger-ui.css">
<link rel="icon" type="image/png" href="favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="swagger-ui-standalone-preset.js"></script>
<script src="initializer.js"></script>
</body>
</html>
"""

_INITIALIZER = b"""window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "../openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "StandaloneLayout"
  });
};
"""


def openapi_document():
    """The OpenAPI 3 document kept in this package, bytes."""
    return importlib.resources.files('flavor_exporter.api').joinpath(
        'openapi.json').read_bytes()


class OpenApiDocument:
    """openapi.json with the server URL it is served from.

    OpenAPI's default server is "/" of the document's host, which is wrong
    behind a proxy that serves the API under a prefix; the URL each
    request was made to is right, its scheme included
    (http_proxy_to_wsgi). The document is encoded once per URL, for the
    few URLs an API is reached by.
    """

    #: URLs remembered; a client making up Host headers gets a fresh
    #: encoding, not a growing memory.
    LIMIT = 16

    def __init__(self):
        self._document = json.loads(openapi_document())
        self._served = {}
        self._lock = threading.Lock()

    def served_at(self, base_url):
        """The document's bytes, its server base_url (no final '/')."""
        found = self._served.get(base_url)
        if found is None:
            found = json.dumps(
                dict(self._document, servers=[{'url': base_url}]),
                indent=2).encode('utf-8')
            with self._lock:
                if len(self._served) >= self.LIMIT:
                    self._served.clear()
                self._served[base_url] = found
        return found


class _Files:
    """The static files of /docs/, read once."""

    def __init__(self):
        self._cache = {'': (_INDEX, 'text/html; charset=utf-8'),
                       'initializer.js': (_INITIALIZER,
                                          'text/javascript; charset=utf-8')}

    def get(self, name):
        if name not in self._cache:
            if name not in _ASSETS:
                return None
            path = os.path.join(swagger_ui_bundle.swagger_ui_path, name)
            with open(path, 'rb') as f:
                content = f.read()
            kind = mimetypes.guess_type(name)[0] or 'application/octet-stream'
            if kind.startswith('text/') or kind.endswith('javascript'):
                kind += '; charset=utf-8'
            self._cache[name] = (content, kind)
        return self._cache[name]


_OPENAPI = OpenApiDocument()
_FILES = _Files()


class OpenApiController(base.Resource):
    """/openapi.json: the API's description, served from its URL."""

    @base.expose('getOpenAPI')
    def get_all(self):
        return responses.page(_OPENAPI.served_at(
            base.request().application_url))


class DocsController(base.Resource):
    """/docs/ and its assets: Swagger UI, offline."""

    @base.expose('getDocs')
    def get_all(self):
        request = base.request()
        if not request.path_info.endswith('/'):
            # /docs: to /docs/, which relative links in the page need.
            return responses.page(b'', content_type=None, status=301,
                                  headers=[('Location',
                                            request.application_url +
                                            '/docs/')])
        return _file('')

    @base.expose('getDocsAsset')
    def get_one(self, asset):
        return _file(asset)


def _file(name):
    found = _FILES.get(name)
    if found is None:
        raise errors.NotFound('No such resource: %s'
                              % base.request().path_info)
    content, kind = found
    return responses.page(content, content_type=kind, headers=[
        ('Cache-Control', 'max-age=3600')])
