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
"""Benchmark of the API against a bare WSGI callable, on two servers.

Starts memcached on a free loopback port, publishes what the worker
renders for a synthetic 40-host cloud of 500 GPU flavors
(tools/bench/engine.py), then serves it four ways, side by side:

- bare: the same bytes from process memory, no framework, under granian
  with flavor-exporter-api's options (tools/bench/api_apps.py): the
  yardstick, what the server alone can do;
- api: ``flavor-exporter-api`` itself (granian), as operators run it;
- bare-uwsgi, api-uwsgi: the same two under uWSGI from its wheels
  (``--http11-socket``, keep-alive, as many processes and threads), the
  server devstack runs OpenStack's APIs with;
- api-before (with ``--baseline-tree DIR``): ``flavor-exporter-api`` of
  another checkout of this project, to compare a change with what it
  replaces.

and measures each with wrk (HTTP/1.1, keep-alive) at 1, 16 and 64
connections, a few seconds each, in interleaved rounds, keeping each
one's best; plus the CPU time one request costs in process. Then, for
each api server, how fast a normal client is answered while thousands of
slow clients trickle their headers (tools/bench/slow_clients.py). Figures
go to bench-results/api.json with the load average of each measurement;
ratios are to bare at the same concurrency. wrk shares the machine with
the servers: compare ratios measured in one run, not absolutes. About 4
minutes with the defaults. Needs wrk and memcached (Debian packages) and
uWSGI (the ``uwsgi`` extra, installed by ``tox -e bench``).

    python -m tools.bench.api [--duration 5] [--rounds 2]
                              [--concurrency 1,16,64] [--slow 3000]
                              [--path /v2/flavors/] [--baseline-tree DIR]
"""

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

from pymemcache.client import base as memcache
import webob

from flavor_exporter.cmd import api as cmd_api
from flavor_exporter.common import config
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.wsgi import environment as wsgi_env
from testcloud import loopback
from tools.bench import api_apps
from tools.bench import engine as bench_engine
from tools.bench import slow_clients

KEY_PREFIX = 'bench'
#: Hosts of the synthetic cloud whose documents are served.
HOSTS = 40
# Path served -> the published document it serves as it is.
DOCUMENTS = {'/gpus/flavors/': pub.LEGACY_LIST,
             '/v2/flavors/': pub.SEED_LIST,
             '/v3/flavors/': pub.V3_LIST}
SERVERS = ('bare', 'api', 'bare-uwsgi', 'api-uwsgi')
YARDSTICK = 'bare'
BASELINE = 'api-before'
TARGETS = {'ratio_to_bare': 0.8, 'p99_ms_at_1': 2.0,
           'p99_ms_at_64': 20.0, 'slow_clients_max_ms': 1000.0}
SLOW_CLIENTS = 3000
# As etc/uwsgi/flavor-exporter-api.ini, but for the processes and threads,
# which are the benchmark's (as flavor-exporter-api's).
UWSGI_OPTIONS = ['--master', '--lazy-apps', '--disable-logging',
                 '--die-on-term', '--listen', '1024']


def publish(store, flavors):
    """Publish what the worker renders for a synthetic cloud; its pointer.

    Every flavor is a GPU flavor, since the legacy list holds only those.
    """
    docs, pointer = bench_engine.documents(HOSTS, flavors, gpu_only=True)
    collected_at = datetime.datetime.fromtimestamp(
        pub.epoch(pointer[pub.TIMESTAMP]), datetime.timezone.utc)
    return store.publish(docs, pointer, collected_at)


def parse_wrk(output):
    """{'rps', 'p50_ms', 'p99_ms', 'errors'} from wrk --latency output."""
    def ms(value, unit):
        return float(value) * {'us': 0.001, 'ms': 1.0, 's': 1000.0}[unit]

    latency = {pct: ms(v, u) for pct, v, u in re.findall(
        r'^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$', output, re.M)}
    rps = re.search(r'^Requests/sec:\s+([\d.]+)', output, re.M)
    sockets = {kind: int(n) for kind, n in re.findall(
        r'(connect|read|write|timeout) (\d+)', output)}
    non_2xx = re.search(r'Non-2xx or 3xx responses: (\d+)', output)
    # wrk counts a server closing the connection after its answer (an
    # HTTP/1.0 server) as a "read" error: not a failure.
    errors = (sockets.get('connect', 0) + sockets.get('write', 0) +
              sockets.get('timeout', 0) +
              (int(non_2xx.group(1)) if non_2xx else 0))
    return {'rps': float(rps.group(1)) if rps else 0.0,
            'p50_ms': latency.get('50'), 'p99_ms': latency.get('99'),
            'errors': errors}


def cpu_seconds(pgids, pids=()):
    """CPU seconds (user + system) of processes, by group or pid."""
    ticks = os.sysconf('SC_CLK_TCK')
    total = 0
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as f:
                fields = f.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        # fields[0] is field 3 of proc(5): state; pgrp is field 5.
        if int(fields[2]) in pgids or int(entry) in pids:
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def run_wrk(port, path, connections, duration, pgid=None, pids=()):
    """wrk figures; with pgid, also the server's CPU per request.

    That CPU figure (the server's processes plus memcached's) is what a request
    costs the machine, and barely moves with load from elsewhere, unlike
    requests per second on a shared machine.
    """
    argv = ['wrk', '-t%d' % min(2, connections), '-c%d' % connections,
            '-d%ds' % duration, '--timeout', '5s', '--latency',
            'http://127.0.0.1:%d%s' % (port, path)]
    before = cpu_seconds({pgid}, pids) if pgid else 0
    output = subprocess.run(argv, capture_output=True, text=True,
                            timeout=duration + 60, check=True).stdout
    figures = parse_wrk(output)
    figures['load_average'] = round(os.getloadavg()[0], 1)
    if pgid:
        spent = cpu_seconds({pgid}, pids) - before
        served = re.search(r'^\s+(\d+) requests in', output, re.M)
        count = int(served.group(1)) if served else 0
        figures['server_cpu_us_per_request'] = (
            round(spent / count * 1e6, 1) if count else None)
    return figures


def cpu_us_per_request(application, path, requests):
    """Process CPU time of one request, called in process (no server)."""
    def call():
        request = webob.Request.blank(path)
        request.environ['HTTP_ACCEPT'] = '*/*'
        response = request.get_response(application)
        assert response.status_int == 200, response.status

    for _ in range(100):
        call()
    started = time.process_time()
    for _ in range(requests):
        call()
    return round((time.process_time() - started) / requests * 1e6, 1)


class Bench:

    def __init__(self, args):
        self.args = args
        self.memcached = loopback.MemcachedFixture()
        self.workdir = tempfile.mkdtemp(prefix='flavor-exporter-bench-')

    def prepare(self):
        self.memcached.setUp()
        config.parse_args([], default_config_files=[])
        conf = config.CONF
        conf.set_override('memcache_servers', self.memcached.servers,
                          'document_cache')
        conf.set_override('key_prefix', KEY_PREFIX, 'document_cache')
        conf.set_override('auth_strategy', 'noauth')
        conf.set_override('workers', self.args.workers, 'api')
        if self.args.threads:
            conf.set_override('threads', self.args.threads, 'api')
        self.conf = conf
        self.store = publisher.Publisher.from_conf(conf)
        pointer = publish(self.store, self.args.flavors)
        # What the API serves, stored under one key per path for bare.
        served = {path: self.store.reader.document(pointer, name)
                  for path, name in DOCUMENTS.items()}
        self.bare_keys = {path: '%s:bare%s' % (KEY_PREFIX, path)
                          for path in DOCUMENTS}
        host, port = self.memcached.servers[0].rsplit(':', 1)
        client = memcache.Client((host, int(port)))
        for path, body in served.items():
            client.set(self.bare_keys[path], body)
        client.close()
        self.sizes = {path: len(body) for path, body in served.items()}
        self.config_file = os.path.join(self.workdir, 'bench.conf')
        with open(self.config_file, 'w') as f:
            f.write('[DEFAULT]\nauth_strategy = noauth\n'
                    '[document_cache]\nmemcache_servers = %s\n'
                    'key_prefix = %s\n' % (self.memcached.servers[0],
                                           KEY_PREFIX))

    def port_file(self, port):
        """A configuration file for one server: where and how many."""
        path = os.path.join(self.workdir, 'port-%d.conf' % port)
        with open(path, 'w') as f:
            f.write('[api]\nhost_ip = 127.0.0.1\nport = %d\n' % port)
            if self.args.workers:
                f.write('workers = %d\n' % self.args.workers)
            if self.args.threads:
                f.write('threads = %d\n' % self.args.threads)
        return path

    def close(self):
        self.memcached.cleanUp()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def serve(self, name, path):
        """Serve name (one of SERVERS) for path; (process, port)."""
        port = loopback.free_port()
        env = dict(os.environ)
        env.update({api_apps.APP_ENV: name.split('-')[0],
                    api_apps.SERVER_ENV: self.memcached.servers[0],
                    api_apps.KEY_ENV: self.bare_keys[path],
                    'PYTHONPATH': os.pathsep.join(
                        [os.getcwd()] + sys.path[1:])})
        files = [self.config_file, self.port_file(port)]
        if name == 'bare':
            argv = [sys.executable, '-m', 'tools.bench.api_apps']
        elif name == 'api':
            argv = [sys.executable, '-m', 'flavor_exporter.cmd.api']
        elif name == BASELINE:
            argv = [sys.executable, '-m', 'flavor_exporter.cmd.api']
            env['PYTHONPATH'] = os.pathsep.join(
                [self.args.baseline_tree] + sys.path[1:])
        else:
            module = {'bare-uwsgi': 'tools.bench.uwsgi_bare:application',
                      'api-uwsgi': 'flavor_exporter.wsgi.api:application'}
            argv = [uwsgi(), '--http11-socket', '127.0.0.1:%d' % port,
                    '--module', module[name],
                    '--processes', str(cmd_api.workers(self.conf)),
                    '--threads', str(self.conf.api.threads)
                    ] + UWSGI_OPTIONS
            env.update(wsgi_env.environment(files))
            files = []
        for f in files:
            argv += ['--config-file', f]
        log = os.path.join(self.workdir, '%s-%d.log' % (name, port))
        with open(log, 'wb') as out:
            process = subprocess.Popen(argv, env=env, start_new_session=True,
                                       stdout=out, stderr=subprocess.STDOUT)
        try:
            loopback.wait_for_port(port, timeout=60, process=process)
        except RuntimeError:
            with open(log, errors='replace') as f:
                sys.stderr.write(f.read()[-3000:])
            raise
        # The socket listens before the processes have loaded the
        # application.
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(
                        'http://127.0.0.1:%d%s' % (port, path), timeout=30):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        return process, port

    @staticmethod
    def stop(process):
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)

    def measure_servers(self, path):
        """wrk figures per server and concurrency: the best of the rounds.

        The servers run side by side and are measured in turn, round after
        round, so that load from elsewhere on the machine hits them alike;
        an idle server costs nothing.
        """
        servers = {}
        try:
            for name in self.servers():
                servers[name] = self.serve(name, path)
            for name, (_, port) in servers.items():
                # Every process loads the application and warms up.
                run_wrk(port, path, 16, 3)
            results = {name: {} for name in servers}
            for c in self.args.concurrency:
                for _ in range(self.args.rounds):
                    for name, (process, port) in servers.items():
                        row = run_wrk(port, path, c, self.args.duration,
                                      pgid=process.pid,
                                      pids={self.memcached.process.pid})
                        best = results[name].get(str(c))
                        if best is None or row['rps'] > best['rps']:
                            results[name][str(c)] = row
            slow = {}
            for name in (self.servers() if self.args.slow else ()):
                if name.startswith('api'):
                    slow[name] = slow_clients.measure(
                        '127.0.0.1', servers[name][1], path,
                        self.args.slow, self.args.slow_requests)
                    slow[name]['load_average'] = round(
                        os.getloadavg()[0], 1)
        finally:
            for process, _ in servers.values():
                self.stop(process)
        return results, slow

    def servers(self):
        return SERVERS + ((BASELINE,) if self.args.baseline_tree else ())

    def measure_cpu(self, path):
        bare = api_apps.Bare(self.memcached.servers[0], self.bare_keys[path])
        shipped = api_apps.api(self.conf)
        return {'bare': cpu_us_per_request(bare, path,
                                           self.args.cpu_requests),
                'api': cpu_us_per_request(shipped, path,
                                          self.args.cpu_requests)}

    def run(self):
        report = {
            'machine': {'cpus': os.cpu_count(),
                        'python': platform.python_version(),
                        'uwsgi': importlib.metadata.version('pyuwsgi')},
            'server': {'processes': cmd_api.workers(self.conf),
                       'threads': self.conf.api.threads,
                       'granian': importlib.metadata.version('granian'),
                       'uwsgi_options': ' '.join(UWSGI_OPTIONS),
                       'baseline_tree': self.args.baseline_tree},
            'flavors': self.args.flavors,
            'duration_seconds': self.args.duration,
            'rounds': self.args.rounds,
            'load_average_before': os.getloadavg(),
            'targets': TARGETS,
            'paths': {},
        }
        for path in self.args.path:
            servers, slow = self.measure_servers(path)
            yardstick = servers[YARDSTICK]
            report['paths'][path] = {
                'document_bytes': self.sizes[path],
                'servers': servers,
                'ratio_to_bare': {
                    name: {c: round(row['rps'] / yardstick[c]['rps'], 2)
                           if yardstick[c]['rps'] else None
                           for c, row in by_c.items()}
                    for name, by_c in servers.items()},
                # Requests per CPU second relative to the yardstick: the
                # ratio of throughputs where the server has the CPUs.
                'cpu_ratio_to_bare': {
                    name: {c: _cpu_ratio(servers, name, c)
                           for c in servers[name]}
                    for name in servers},
                'cpu_us_per_request': self.measure_cpu(path),
                'slow_clients': slow,
            }
        # Above the CPU count, req/s figures mostly measure the neighbours.
        report['load_average_after'] = os.getloadavg()
        return report


def uwsgi():
    path = shutil.which('uwsgi') or os.path.join(
        os.path.dirname(sys.executable), 'uwsgi')
    if not os.access(path, os.X_OK):
        sys.exit("tools.bench.api needs uWSGI: pip install '.[uwsgi]'")
    return path


def _cpu_ratio(servers, name, c):
    ours = servers[name][c].get('server_cpu_us_per_request')
    bare = servers[YARDSTICK][c].get('server_cpu_us_per_request')
    return round(bare / ours, 2) if ours and bare else None


def table(report):
    lines = []
    for path, figures in report['paths'].items():
        lines.append('%s (%d bytes); %d processes x %d threads; uWSGI: %s'
                     % (path, figures['document_bytes'],
                        report['server']['processes'],
                        report['server']['threads'],
                        report['server']['uwsgi_options']))
        lines.append('%-10s %5s %9s %8s %8s %6s %7s %9s %7s %5s' % (
            'server', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'errors',
            'ratio', 'cpu us/rq', 'ratio', 'load'))
        for name, by_c in figures['servers'].items():
            for c, row in by_c.items():
                lines.append(
                    '%-10s %5s %9.0f %8.2f %8.2f %6d %7s %9s %7s %5s'
                    % (name, c, row['rps'], row['p50_ms'] or 0,
                       row['p99_ms'] or 0, row['errors'],
                       figures['ratio_to_bare'][name][c],
                       row.get('server_cpu_us_per_request'),
                       figures['cpu_ratio_to_bare'][name][c],
                       row['load_average']))
        lines.append('in-process CPU per request (us): %s' % ', '.join(
            '%s %s' % item
            for item in figures['cpu_us_per_request'].items()))
        for name, slow in figures['slow_clients'].items():
            lines.append(
                '%s beside %d slow clients trickling '
                'headers (%d still open at the end): %d requests, %d '
                'unanswered, p50 %s ms, p99 %s ms, max %s ms (load %s)'
                % (name, slow['slow_connections'], slow['slow_still_open'],
                   slow['requests'], slow['unanswered'], slow['p50_ms'],
                   slow['p99_ms'], slow['max_ms'], slow['load_average']))
        lines.append('')
    lines.append('load average before %s, after %s (%d CPUs)' % (
        ' '.join('%.1f' % x for x in report['load_average_before']),
        ' '.join('%.1f' % x for x in report['load_average_after']),
        report['machine']['cpus']))
    return '\n'.join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument('--flavors', type=int, default=500)
    parser.add_argument('--duration', type=int, default=5,
                        help='seconds of wrk per concurrency (max 60)')
    parser.add_argument('--concurrency', default='1,16,64',
                        type=lambda s: [int(c) for c in s.split(',')])
    parser.add_argument('--path', action='append',
                        choices=sorted(DOCUMENTS),
                        help='default: /gpus/flavors/')
    parser.add_argument('--workers', type=int, default=None,
                        help='server processes (default: as '
                             'flavor-exporter-api, 2 x CPUs)')
    parser.add_argument('--threads', type=int, default=None,
                        help='threads per server process (default: as '
                             'flavor-exporter-api, [api] threads)')
    parser.add_argument('--rounds', type=int, default=2,
                        help='measurements per app and concurrency, '
                             'interleaved; the best is kept')
    parser.add_argument('--cpu-requests', type=int, default=3000)
    parser.add_argument('--slow', type=int, default=SLOW_CLIENTS,
                        help='slow clients beside the timed ones (0: none)')
    parser.add_argument('--slow-requests', type=int, default=100)
    parser.add_argument('--baseline-tree', metavar='DIR',
                        help='also serve flavor-exporter-api from this '
                             'checkout of the project (api-before)')
    parser.add_argument('--output', default='bench-results/api.json')
    args = parser.parse_args(argv)
    args.path = args.path or ['/gpus/flavors/']
    args.duration = max(1, min(args.duration, 60))
    if not shutil.which('wrk'):
        sys.exit('tools.bench.api needs wrk (apt-get install wrk)')
    bench = Bench(args)
    try:
        bench.prepare()
        report = bench.run()
    finally:
        bench.close()
    os.makedirs(os.path.dirname(args.output) or '.', exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump(report, out, indent=2)
    print(table(report))
    print('written to %s' % args.output)


if __name__ == '__main__':
    main()
