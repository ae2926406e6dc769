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
"""The WSGI applications tools/bench/api.py compares.

- bare: the least a server can do: one memcached get of the published
  document per request, returned as it is. The yardstick.
- stock: flavor-exporter's API with Pecan's own getargspec.
- fixed: flavor-exporter's API as shipped (pecan_compat installed).

uWSGI loads ``tools.bench.api_apps:application``; the environment picks
the application (FLAVOR_EXPORTER_BENCH_APP) and, for bare, the document's
cache key (FLAVOR_EXPORTER_BENCH_KEY), since a uWSGI module takes no
arguments.
"""

import os

from pymemcache.client import base as memcache

APP_ENV = 'FLAVOR_EXPORTER_BENCH_APP'
KEY_ENV = 'FLAVOR_EXPORTER_BENCH_KEY'
SERVER_ENV = 'FLAVOR_EXPORTER_BENCH_MEMCACHED'


class Bare:
    """One get per request, no routing, no framework."""

    def __init__(self, server, key):
        host, port = server.rsplit(':', 1)
        # One plain client: a uWSGI process serves one request at a time.
        self._client = memcache.Client((host, int(port)), timeout=1.0,
                                       connect_timeout=1.0)
        self._key = key

    def __call__(self, environ, start_response):
        body = self._client.get(self._key)
        start_response('200 OK', [('Content-Type', 'application/json'),
                                  ('Content-Length', str(len(body)))])
        return [body]


def api(fixed=True, conf=None, store=None):
    """flavor-exporter's API, with or without the getargspec fix."""
    from flavor_exporter.api import app
    from flavor_exporter.api import pecan_compat
    if conf is None:
        from flavor_exporter.wsgi import api as wsgi_api
        application = wsgi_api.application
    else:
        application = app.setup_app(conf, store)
    if not fixed:
        pecan_compat.uninstall()
    return application


def make(name, environ=os.environ):
    if name == 'bare':
        return Bare(environ[SERVER_ENV], environ[KEY_ENV])
    if name in ('stock', 'fixed'):
        return api(fixed=name == 'fixed')
    raise ValueError('unknown benchmark application %r' % name)


if APP_ENV in os.environ:
    application = make(os.environ[APP_ENV])
