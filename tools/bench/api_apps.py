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
- pecan-minimal: the least Pecan application returning the same bytes
  (tools/bench/pecan_minimal.py: a RestController's get_all returning
  them from a dict, application/json), on the same Pecan and with the
  argument-introspection workaround the API installs
  (flavor_exporter.api.pecan_argspec): what the framework alone costs.
- pecan-stock: the same without the workaround, stock Pecan (measured
  in process only, in a process of its own: the workaround, once
  installed, stays).
- api: flavor-exporter's API as shipped (app.setup_app(conf)).

``python -m tools.bench.api_apps --config-file FILE...`` serves one of
them as flavor-exporter-api serves the API (granian, with the same
processes, threads and options); the environment picks the application
(FLAVOR_EXPORTER_BENCH_APP), the path it serves
(FLAVOR_EXPORTER_BENCH_PATH) and, but for api, memcached and the
document's cache key (FLAVOR_EXPORTER_BENCH_MEMCACHED,
FLAVOR_EXPORTER_BENCH_KEY). With FLAVOR_EXPORTER_BENCH_CPU=N it serves
nothing and prints, as JSON, the CPU time one request costs the
application called in this process (no server, no socket), the best of
a few runs of N requests, after oslo.log was set up from the
configuration files as flavor-exporter-api sets it up (so that the API's
request log line is paid, written where log_file says). With
FLAVOR_EXPORTER_BENCH_LOG_LINE=1 as well, api also measures what its
request log line costs within this one process (log_line_us()).
tools/bench/uwsgi_bare.py serves bare and pecan-minimal under uWSGI.
"""

import io
import json
import os
import sys
import time

from pymemcache.client import base as memcache

APP_ENV = 'FLAVOR_EXPORTER_BENCH_APP'
KEY_ENV = 'FLAVOR_EXPORTER_BENCH_KEY'
SERVER_ENV = 'FLAVOR_EXPORTER_BENCH_MEMCACHED'
PATH_ENV = 'FLAVOR_EXPORTER_BENCH_PATH'
CPU_ENV = 'FLAVOR_EXPORTER_BENCH_CPU'
LINE_ENV = 'FLAVOR_EXPORTER_BENCH_LOG_LINE'
APPS = ('bare', 'pecan-minimal', 'pecan-stock', 'api')
CPU_RUNS = 3
LINE_ROUNDS = 7


def cached(server, key):
    """The bytes memcached holds under key."""
    host, port = server.rsplit(':', 1)
    client = memcache.Client((host, int(port)), timeout=1.0,
                             connect_timeout=1.0)
    try:
        body = client.get(key)
    finally:
        client.close()
    if body is None:
        raise LookupError('nothing cached under %r' % key)
    return body


class Bare:
    """The same bytes as the API, from memory: no cache, no framework."""

    def __init__(self, server, key):
        self._body = cached(server, key)
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
    if name in ('pecan-minimal', 'pecan-stock'):
        from tools.bench import pecan_minimal
        return pecan_minimal.make(
            environ[PATH_ENV], cached(environ[SERVER_ENV], environ[KEY_ENV]),
            workaround=name == 'pecan-minimal')
    if name == 'api':
        return api(conf=conf)
    raise ValueError('unknown benchmark application %r' % name)


def request_environ(path):
    """A GET of path as a server hands it to the application."""
    return {'REQUEST_METHOD': 'GET', 'PATH_INFO': path, 'QUERY_STRING': '',
            'SCRIPT_NAME': '', 'SERVER_NAME': '127.0.0.1',
            'SERVER_PORT': '8780', 'SERVER_PROTOCOL': 'HTTP/1.1',
            'REMOTE_ADDR': '127.0.0.1', 'REMOTE_PORT': '40000',
            'HTTP_HOST': '127.0.0.1:8780', 'HTTP_ACCEPT': '*/*',
            'HTTP_USER_AGENT': 'bench',
            'wsgi.url_scheme': 'http', 'wsgi.errors': sys.stderr,
            'wsgi.multithread': True, 'wsgi.multiprocess': True,
            'wsgi.run_once': False, 'wsgi.version': (1, 0)}


def cpu_us_per_request(application, path, requests, runs=CPU_RUNS):
    """Process CPU microseconds of one request: the best of runs runs.

    A fresh environ per request, the answer read to its end and closed,
    as a server does.
    """
    template = request_environ(path)
    statuses = set()

    def start_response(status, headers, exc_info=None):
        statuses.add(status)

    def call():
        environ = dict(template)
        environ['wsgi.input'] = io.BytesIO()
        answer = application(environ, start_response)
        try:
            for _chunk in answer:
                pass
        finally:
            if hasattr(answer, 'close'):
                answer.close()

    for _ in range(100):
        call()
    best = None
    for _ in range(runs):
        started = time.process_time()
        for _ in range(requests):
            call()
        spent = (time.process_time() - started) / requests * 1e6
        best = spent if best is None else min(best, spent)
    if statuses != {'200 OK'}:
        raise RuntimeError('%s answered %s' % (path, sorted(statuses)))
    return round(best, 1)


def log_line_us(conf, path, requests, rounds=LINE_ROUNDS):
    """CPU microseconds the request log line adds to a request.

    The API as configured (log_requests true) and the same API built with
    log_requests false, in this one process, called in turns, each the
    best of its rounds runs. Two processes differ by a few microseconds
    per request with their memory layout alone, more than the line costs,
    so the line is not the difference of two processes' figures.
    """
    from flavor_exporter.api import app
    if not conf.api.log_requests:
        raise ValueError('log_requests is false: no line to measure')
    logged = app.setup_app(conf)
    conf.set_override('log_requests', False, group='api')
    try:
        unlogged = app.setup_app(conf)
    finally:
        conf.clear_override('log_requests', group='api')
    best = {}
    for _ in range(rounds):
        for name, application in (('on', logged), ('off', unlogged)):
            spent = cpu_us_per_request(application, path, requests, runs=1)
            best[name] = min(best.get(name, spent), spent)
    return round(best['on'] - best['off'], 1)


def _log_lines(conf):
    """Lines in the log file oslo.log writes to, or None without one."""
    if not conf.log_file:
        return None
    path = os.path.join(conf.log_dir or '', conf.log_file)
    try:
        with open(path, 'rb') as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def measure(name, conf, requests):
    """What CPU_ENV asks: {'cpu_us_per_request', ...} of one app."""
    from tools.bench import pecan_minimal
    path = os.environ[PATH_ENV]
    application = make(name, conf=conf)
    if name == 'pecan-stock' and pecan_minimal.workaround_installed():
        raise RuntimeError('pecan-stock: the workaround is installed')
    before = _log_lines(conf)
    figure = cpu_us_per_request(application, path, requests)
    after = _log_lines(conf)
    calls = 100 + CPU_RUNS * requests
    figures = {'cpu_us_per_request': figure,
               'workaround': pecan_minimal.workaround_installed(),
               'log_requests': conf.api.log_requests,
               'log_lines_per_request': (round((after - before) / calls, 2)
                                         if before is not None else None)}
    if name == 'api' and os.environ.get(LINE_ENV):
        figures['log_line_us'] = log_line_us(conf, path, requests)
    return figures


def main(argv=None):
    from flavor_exporter.cmd import api as cmd_api
    from flavor_exporter.common import config
    from flavor_exporter.wsgi import server
    config.prepare_service(sys.argv[1:] if argv is None else argv)
    conf = config.CONF
    if os.environ.get(CPU_ENV):
        print(json.dumps(measure(os.environ[APP_ENV], conf,
                                 int(os.environ[CPU_ENV]))))
        return 0
    server.serve(server.granian(conf, cmd_api.workers(conf), 'bench'),
                 lambda: make(os.environ[APP_ENV], conf=conf))


if __name__ == '__main__':
    sys.exit(main())
