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

- bare: the least a server can do: the published document's bytes,
  read from memcached once when the process starts and returned from
  process memory on every request, with no routing. The yardstick: the
  API cannot serve faster than this on the same server.
- api: flavor-exporter's API as shipped.

``python -m tools.bench.api_apps --config-file FILE...`` serves one of
them as flavor-exporter-api serves the API (granian, with the same
processes, threads and options); the environment picks the application
(FLAVOR_EXPORTER_BENCH_APP) and, for bare, the document's cache key
(FLAVOR_EXPORTER_BENCH_KEY).
tools/bench/uwsgi_bare.py serves bare under uWSGI.
"""

import os
import sys

from pymemcache.client import base as memcache

APP_ENV = 'FLAVOR_EXPORTER_BENCH_APP'
KEY_ENV = 'FLAVOR_EXPORTER_BENCH_KEY'
SERVER_ENV = 'FLAVOR_EXPORTER_BENCH_MEMCACHED'


class Bare:
    """The same bytes as the API, from memory: no cache, no framework."""

    def __init__(self, server, key):
        host, port = server.rsplit(':', 1)
        client = memcache.Client((host, int(port)), timeout=1.0,
                                 connect_timeout=1.0)
        try:
            self._body = client.get(key)
        finally:
            client.close()
        if self._body is None:
            raise LookupError('nothing cached under %r' % key)
        self._headers = [('Content-Type', 'application/json'),
                         ('Content-Length', str(len(self._body)))]

    def __call__(self, environ, start_response):
        start_response('200 OK', list(self._headers))
        return [self._body]


def api(conf=None):
    """flavor-exporter's API as its WSGI entry point builds it."""
    from flavor_exporter.api import app
    if conf is None:
        from flavor_exporter.wsgi import api as wsgi_api
        return wsgi_api.application
    return app.setup_app(conf)


def make(name, environ=os.environ, conf=None):
    if name == 'bare':
        return Bare(environ[SERVER_ENV], environ[KEY_ENV])
    if name == 'api':
        return api(conf=conf)
    raise ValueError('unknown benchmark application %r' % name)


def main(argv=None):
    from flavor_exporter.cmd import api as cmd_api
    from flavor_exporter.common import config
    from flavor_exporter.wsgi import server
    config.prepare_service(sys.argv[1:] if argv is None else argv)
    conf = config.CONF
    server.serve(server.granian(conf, cmd_api.workers(conf), 'bench'),
                 lambda: make(os.environ[APP_ENV], conf=conf))


if __name__ == '__main__':
    sys.exit(main())
