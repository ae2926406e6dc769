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
"""CPU per request of the API's WSGI application, in process.

No server and no sockets: the application as setup_app() builds it
(every middleware of its pipeline), over the synthetic cloud of
tools/bench/engine.py (40 hosts, 100 GPU flavors) published to an
in-memory cache, called with a fresh environ per
request. What one request costs the API itself, so that a change of the
pipeline shows at the scale of a document route (about ten
microseconds); the server's share is tools/bench/api.py's.

``--proxy`` and ``--cors ORIGIN`` add the optional layers
(``[oslo_middleware] enable_proxy_headers_parsing``, ``[cors]
allowed_origin``); ``--basic COST`` authenticates every request with
HTTP Basic credentials of an htpasswd file of that bcrypt cost
(``auth_strategy = http_basic``); ``--log`` writes the log at INFO, as a
deployment does (to /dev/null), so that the request log line is paid.
Figures go to bench-results/inprocess.json.
"""

import argparse
import base64
import datetime
import io
import json
import logging
import os
import sys
import tempfile
import time

from flavor_exporter.publication import contract as pub

HOSTS = 40
FLAVORS = 100
# {id}: the first flavor published.
ROUTES = ('/v2/flavors/', '/gpus/flavors/', '/gpus/flavors/{id}',
          '/v3/flavors/', '/v3/flavors/?gpu=true', '/v3/flavors/{id}',
          '/no/such/path', '/v3/status', '/metrics', '/')
BASIC_USER = ('bench', b'bench-password')


def application(args):
    """The API over the published sample cloud, configured by args."""
    from flavor_exporter.api import app
    from flavor_exporter.common import config
    from flavor_exporter.publication import cache
    from flavor_exporter.publication import publisher
    from tools.bench import engine as bench_engine

    conf = config.CONF
    conf([], project=config.PROJECT, default_config_files=[])
    if args.proxy:
        conf.set_override('enable_proxy_headers_parsing', True,
                          group='oslo_middleware')
    if args.cors:
        conf.set_override('allowed_origin', [args.cors], group='cors')
    # The default is keystone: no token service here, no token per request.
    conf.set_override('auth_strategy', 'noauth')
    if args.basic is not None:
        import bcrypt
        user_file = os.path.join(tempfile.mkdtemp(), 'htpasswd')
        with open(user_file, 'w') as f:
            f.write('%s:%s\n' % (BASIC_USER[0], bcrypt.hashpw(
                BASIC_USER[1], bcrypt.gensalt(args.basic)).decode()))
        conf.set_override('auth_strategy', 'http_basic')
        conf.set_override('http_basic_auth_user_file', user_file)
    if args.log:
        from oslo_log import formatters
        handler = logging.FileHandler(os.devnull)
        # As oslo.log sets up a log_file handler: with its date format.
        handler.setFormatter(formatters.ContextFormatter(
            config=conf, datefmt=conf.log_date_format))
        # One handler, as oslo.log sets up a deployment's.
        logging.getLogger().handlers[:] = [handler]
        logging.getLogger().setLevel(logging.INFO)
    backend = cache.MemoryBackend()
    docs, pointer = bench_engine.documents(HOSTS, FLAVORS, gpu_only=True)
    collected_at = datetime.datetime.fromtimestamp(
        pub.epoch(pointer[pub.TIMESTAMP]), datetime.timezone.utc)
    publisher.Publisher.from_conf(conf, backend=backend).publish(
        docs, pointer, collected_at)
    first = json.loads(docs[pub.v3_list()])[pub.FLAVORS][0]['id']
    return app.setup_app(conf, backend), first


def environ_of(path, args):
    path, _, query = path.partition('?')
    environ = {'REQUEST_METHOD': 'GET', 'PATH_INFO': path,
               'QUERY_STRING': query, 'SCRIPT_NAME': '',
               'SERVER_NAME': '127.0.0.1', 'SERVER_PORT': '8780',
               'SERVER_PROTOCOL': 'HTTP/1.1', 'REMOTE_ADDR': '127.0.0.1',
               'HTTP_HOST': '127.0.0.1:8780', 'HTTP_ACCEPT': '*/*',
               'wsgi.url_scheme': 'http', 'wsgi.input': io.BytesIO(),
               'wsgi.errors': sys.stderr, 'wsgi.multithread': True,
               'wsgi.multiprocess': True, 'wsgi.run_once': False,
               'wsgi.version': (1, 0)}
    if args.proxy:
        environ['HTTP_X_FORWARDED_PROTO'] = 'https'
    if args.cors:
        environ['HTTP_ORIGIN'] = args.cors
    if args.basic is not None:
        environ['HTTP_AUTHORIZATION'] = 'Basic ' + base64.b64encode(
            b'%s:%s' % (BASIC_USER[0].encode(), BASIC_USER[1])).decode()
    return environ


def cpu_per_request(wsgi_app, path, args):
    """Best of args.runs runs of args.requests requests, microseconds."""
    template = environ_of(path, args)
    statuses = set()

    def start_response(status, headers, exc_info=None):
        statuses.add(status)

    best = None
    for _ in range(args.runs):
        started = time.process_time()
        for _ in range(args.requests):
            for _chunk in wsgi_app(dict(template), start_response):
                pass
        spent = (time.process_time() - started) / args.requests * 1e6
        best = spent if best is None else min(best, spent)
    return round(best, 1), sorted(statuses)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--requests', type=int, default=5000)
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--proxy', action='store_true',
                        help='[oslo_middleware] enable_proxy_headers_parsing'
                             ' = true, requests with X-Forwarded-Proto')
    parser.add_argument('--cors', metavar='ORIGIN',
                        help='[cors] allowed_origin = ORIGIN, requests '
                             'from it')
    parser.add_argument('--basic', type=int, metavar='COST',
                        help='auth_strategy = http_basic, a user of that '
                             'bcrypt cost, every request authenticated')
    parser.add_argument('--log', action='store_true',
                        help='log at INFO (to /dev/null), as deployed')
    parser.add_argument('--route', action='append', choices=ROUTES)
    parser.add_argument('--output', default='bench-results/inprocess.json')
    args = parser.parse_args(argv)
    wsgi_app, flavor_id = application(args)
    figures = {}
    for path in args.route or ROUTES:
        figures[path], statuses = cpu_per_request(
            wsgi_app, path.format(id=flavor_id), args)
        print('%-24s %8.1f us  %s' % (path, figures[path],
                                      ', '.join(statuses)), flush=True)
    os.makedirs(os.path.dirname(args.output) or '.', exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump({'proxy': args.proxy, 'cors': args.cors,
                   'basic': args.basic, 'log': args.log,
                   'requests': args.requests, 'runs': args.runs,
                   'cpu_us_per_request': figures}, out, indent=2)
    print('written to %s' % args.output)


if __name__ == '__main__':
    main()
