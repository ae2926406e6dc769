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
"""Benchmark of the API beside a minimal Pecan app and a bare callable.

Starts memcached on a free loopback port, publishes what the worker
renders for a synthetic 40-host cloud of 500 GPU flavors
(tools/bench/engine.py), then serves the same document's bytes several
ways, side by side, on the server and options flavor-exporter-api runs
(granian, [api] workers processes of [api] threads, as its defaults
unless --workers/--threads say otherwise):

- pecan-minimal (a): the least Pecan application answering the path
  (tools/bench/pecan_minimal.py: a RestController whose get_all returns
  the bytes from a dict, application/json) on the same Pecan, with the
  argument-introspection workaround the API installs
  (flavor_exporter.api.pecan_argspec.install()): what the framework
  alone costs;
- bare (b): the same bytes from process memory, no framework
  (tools/bench/api_apps.py): what the server alone can do;
- bare-uwsgi: bare under uWSGI from its wheels (``--http11-socket``,
  keep-alive, as many processes and threads), the fastest server
  measured on this machine kind: the yardstick of all yardsticks;
- api (c): ``flavor-exporter-api`` itself with its defaults, as
  operators run it: the request log line on ([api] log_requests), written
  to a log file (log_file in the run's temporary directory), paid as an
  operator pays it; only authentication is off (noauth: no Keystone);
- api-uwsgi (with ``--servers``): the API under uWSGI;
- api-before (with ``--baseline-tree DIR``): ``flavor-exporter-api`` of
  another checkout of this project, to compare a change with what it
  replaces.

Each is measured with wrk (HTTP/1.1, keep-alive) at 1, 16 and 64
connections, a few seconds each, in interleaved rounds (every server in
turn, round after round), keeping each one's best; with the server's
CPU per request. Then, for each api server, how fast a normal client is
answered while thousands of slow clients trickle their headers
(tools/bench/slow_clients.py). Then the CPU time one request costs each
application called in process (no server), each in a fresh process with
the configuration files its server had, oslo.log included: bare,
pecan-stock (pecan-minimal without the workaround: Pecan before and after
it, from the same run), pecan-minimal, api, and api-no-log (api with
[api] log_requests = false). What the request log line costs (target
<= 10 us) is measured within one process, the api with and without it
called in turns (api_apps.log_line_us()), in three processes: the
median. Two processes' figures differ by more than the line costs.

Ratios: api to pecan-minimal (target >= 0.8 at every concurrency), to
bare and to bare-uwsgi, in req/s at the same concurrency; api's p99 at
64 connections (target < 20 ms). Figures go to bench-results/api.json
with the load average of each measurement; wrk shares the machine with
the servers, and so may others: compare ratios measured in one run, not
absolutes, and mistrust a run whose load average was above the CPU
count. About 5 minutes with the defaults. Needs wrk and memcached
(Debian packages) and uWSGI (the ``uwsgi`` extra, installed by
``tox -e bench``).

    python -m tools.bench.api [--duration 5] [--rounds 4]
                              [--concurrency 1,16,64] [--slow 3000]
                              [--path /v2/flavors/] [--servers ...]
                              [--baseline-tree DIR]
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
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from pymemcache.client import base as memcache

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
DEFAULT_PATH = '/v2/flavors/'
FRAMEWORK = 'pecan-minimal'
YARDSTICK = 'bare'
FASTEST = 'bare-uwsgi'
SUBJECT = 'api'
BASELINE = 'api-before'
SERVERS = (FRAMEWORK, YARDSTICK, FASTEST, SUBJECT)
OPTIONAL_SERVERS = ('api-uwsgi', 'pecan-minimal-uwsgi', 'api-no-log')
# Measured in process, each in a process of its own; api-no-log is api
# with [api] log_requests = false, so that the log line's cost shows.
NO_LOG = 'api-no-log'
IN_PROCESS = ('bare', 'pecan-stock', FRAMEWORK, SUBJECT, NO_LOG)
# Processes api's request log line is measured in (api_apps.log_line_us()).
LINE_PROCESSES = 3
# What api's requests per second are compared with, and the least ratio
# wanted at every concurrency (None: reported only).
RATIOS = ((FRAMEWORK, 0.8), (YARDSTICK, None), (FASTEST, None),
          (BASELINE, None))
TARGETS = {'ratio_to_%s' % FRAMEWORK: 0.8, 'p99_ms_at_64': 20.0,
           'slow_clients_max_ms': 1000.0, 'log_line_us': 10.0}
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
    """{'rps', 'p50_ms', 'p99_ms', 'errors', 'requests'} from wrk output."""
    def ms(value, unit):
        return float(value) * {'us': 0.001, 'ms': 1.0, 's': 1000.0}[unit]

    latency = {pct: ms(v, u) for pct, v, u in re.findall(
        r'^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$', output, re.M)}
    rps = re.search(r'^Requests/sec:\s+([\d.]+)', output, re.M)
    served = re.search(r'^\s+(\d+) requests in', output, re.M)
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
            'errors': errors,
            'requests': int(served.group(1)) if served else 0}


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
        count = figures['requests']
        figures['server_cpu_us_per_request'] = (
            round(spent / count * 1e6, 1) if count else None)
    return figures


def tail(path, size=3000):
    """The last size characters of the file at path, or ''."""
    try:
        with open(path, errors='replace') as f:
            return f.read()[-size:]
    except FileNotFoundError:
        return ''


def last_error(output):
    """The last line of output naming an exception, from its name on."""
    found = re.findall(r'\b(\w+(?:Error|Exception|Exit)\b.*)$', output,
                       re.M)
    return found[-1].strip() if found else None


def count_lines(path, needle):
    """Lines of the file at path that hold needle (bytes); 0 if none."""
    try:
        with open(path, 'rb') as f:
            return sum(1 for line in f if needle in line)
    except FileNotFoundError:
        return 0


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
        if self.args.workers:
            conf.set_override('workers', self.args.workers, 'api')
        if self.args.threads:
            conf.set_override('threads', self.args.threads, 'api')
        self.conf = conf
        self.store = publisher.Publisher.from_conf(conf)
        pointer = publish(self.store, self.args.flavors)
        # What the API serves, stored under one key per path for the
        # others.
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
        # Nothing but what the bench must set: the API's defaults
        # otherwise ([api] log_requests included).
        self.config_file = os.path.join(self.workdir, 'bench.conf')
        with open(self.config_file, 'w') as f:
            f.write('[DEFAULT]\nauth_strategy = noauth\n'
                    '[document_cache]\nmemcache_servers = %s\n'
                    'key_prefix = %s\n' % (self.memcached.servers[0],
                                           KEY_PREFIX))
        # Requests sent to each server (wrk and the slow-client timers).
        self.sent = {}
        # Server -> why it did not serve.
        self.failed = {}

    def log_file(self, name, port=None):
        return os.path.join(self.workdir, '%s%s.service.log' % (
            name, '' if port is None else '-%d' % port))

    def server_file(self, name, port=None, api_options=''):
        """A configuration file for one server: where, how many, its log.

        The log goes to a file, as a deployment's does (oslo.log's
        log_file), so that the request log line costs what it costs
        there.
        """
        path = os.path.join(self.workdir, '%s-%s.conf' % (name, port))
        with open(path, 'w') as f:
            f.write('[DEFAULT]\nlog_file = %s\n' % self.log_file(name, port))
            f.write('[api]\nhost_ip = 127.0.0.1\n' + api_options)
            if port is not None:
                f.write('port = %d\n' % port)
            if self.args.workers:
                f.write('workers = %d\n' % self.args.workers)
            if self.args.threads:
                f.write('threads = %d\n' % self.args.threads)
        return path

    def close(self):
        self.memcached.cleanUp()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def app_env(self, name, path):
        """The environment tools/bench/api_apps reads, for name at path."""
        env = dict(os.environ)
        env.update({api_apps.APP_ENV: name.replace('-uwsgi', ''),
                    api_apps.SERVER_ENV: self.memcached.servers[0],
                    api_apps.KEY_ENV: self.bare_keys[path],
                    api_apps.PATH_ENV: path,
                    'PYTHONPATH': os.pathsep.join(
                        [os.getcwd()] + sys.path[1:])})
        return env

    def serve(self, name, path):
        """Serve name (one of SERVERS) for path; (process, port)."""
        port = loopback.free_port()
        env = self.app_env(name, path)
        cwd = None
        files = [self.config_file, self.server_file(
            name, port, api_options=('log_requests = false\n'
                                     if name == NO_LOG else ''))]
        if name in (YARDSTICK, FRAMEWORK):
            argv = [sys.executable, '-m', 'tools.bench.api_apps']
        elif name in (SUBJECT, NO_LOG):
            argv = [sys.executable, '-m', 'flavor_exporter.cmd.api']
        elif name == BASELINE:
            argv = [sys.executable, '-m', 'flavor_exporter.cmd.api']
            # python -m imports from its working directory first.
            cwd = os.path.abspath(self.args.baseline_tree)
            env['PYTHONPATH'] = os.pathsep.join([cwd] + sys.path[1:])
        else:
            module = ('flavor_exporter.wsgi.api:application'
                      if name == 'api-uwsgi' else
                      'tools.bench.uwsgi_bare:application')
            argv = [uwsgi(), '--http11-socket', '127.0.0.1:%d' % port,
                    '--module', module,
                    '--processes', str(cmd_api.workers(self.conf)),
                    '--threads', str(self.conf.api.threads)
                    ] + UWSGI_OPTIONS
            env.update(wsgi_env.environment(files))
            files = []
        for f in files:
            argv += ['--config-file', f]
        log = os.path.join(self.workdir, '%s-%d.out' % (name, port))
        with open(log, 'wb') as out:
            process = subprocess.Popen(argv, env=env, cwd=cwd,
                                       start_new_session=True,
                                       stdout=out, stderr=subprocess.STDOUT)
        try:
            loopback.wait_for_port(port, timeout=60, process=process)
            # The socket listens before the processes have loaded the
            # application.
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(
                            'http://127.0.0.1:%d%s' % (port, path),
                            timeout=30):
                        break
                except OSError:
                    if (time.monotonic() > deadline
                            or process.poll() is not None):
                        raise
                    time.sleep(0.2)
        except (RuntimeError, OSError) as error:
            output = ''.join(tail(f) for f in (log, self.log_file(name, port)))
            sys.stderr.write(output)
            self.stop(process)
            raise RuntimeError(last_error(output) or str(error))
        return process, port

    @staticmethod
    def stop(process):
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)

    def wrk(self, name, port, path, connections, duration, **kwargs):
        row = run_wrk(port, path, connections, duration, **kwargs)
        self.sent[name] = self.sent.get(name, 0) + row['requests']
        return row

    def measure_servers(self, path):
        """wrk figures per server and concurrency: the best of the rounds.

        The servers run side by side and are measured in turn, round after
        round, each round starting with the next one, so that load from
        elsewhere on the machine hits them alike; an idle server costs
        nothing.
        """
        servers = {}
        results, slow, request_log = {}, {}, {}
        try:
            for name in self.servers():
                try:
                    servers[name] = self.serve(name, path)
                except (RuntimeError, OSError) as error:
                    # Measure the others: the run says what failed.
                    self.failed[name] = str(error)
                    print('  %s failed to serve: %s' % (name, error),
                          flush=True)
                    continue
                print('  serving %s on port %d' % (name, servers[name][1]),
                      flush=True)
            for name, (_, port) in servers.items():
                # Every process loads the application and warms up.
                self.wrk(name, port, path, 16, 3)
            results = {name: {} for name in servers}
            order = list(servers.items())
            for c in self.args.concurrency:
                for _ in range(self.args.rounds):
                    # Each round starts with another server.
                    order = order[1:] + order[:1]
                    for name, (process, port) in order:
                        row = self.wrk(name, port, path, c,
                                       self.args.duration, pgid=process.pid,
                                       pids={self.memcached.process.pid})
                        best = results[name].get(str(c))
                        rounds = (best or {}).get('rounds_rps', [])
                        rounds.append(round(row['rps']))
                        if best is None or row['rps'] > best['rps']:
                            results[name][str(c)] = best = row
                        best['rounds_rps'] = rounds
                print('  %d connections measured (load %.1f)'
                      % (c, os.getloadavg()[0]), flush=True)
            for name in (servers if self.args.slow else ()):
                if name.startswith('api'):
                    slow[name] = slow_clients.measure(
                        '127.0.0.1', servers[name][1], path,
                        self.args.slow, self.args.slow_requests)
                    slow[name]['load_average'] = round(
                        os.getloadavg()[0], 1)
                    self.sent[name] += self.args.slow_requests
        finally:
            for process, _ in servers.values():
                self.stop(process)
        # Whether the request log line was paid: one line per request in
        # the API's log file, as an operator's.
        for name, (_, port) in servers.items():
            if name.startswith('api'):
                request_log[name] = {
                    'requests_sent': self.sent.get(name, 0),
                    'log_lines_naming_the_path': count_lines(
                        self.log_file(name, port), path.encode())}
        return results, slow, request_log

    def servers(self):
        names = tuple(self.args.servers)
        if self.args.baseline_tree and BASELINE not in names:
            names += (BASELINE,)
        return names

    def measure_cpu(self, path):
        """CPU per request in process, each app in a process of its own.

        api's request log line is measured within each of LINE_PROCESSES
        processes of its own (api_apps.log_line_us()); the median is its
        figure.
        """
        figures = {}
        for name in IN_PROCESS:
            figures[name] = self.in_process(name, path)
        lines = [self.in_process(SUBJECT, path, {
            api_apps.LINE_ENV: '1', 'PYTHONHASHSEED': str(seed)})
            for seed in range(1, LINE_PROCESSES + 1)]
        found = sorted(row['log_line_us'] for row in lines
                       if 'log_line_us' in row)
        if SUBJECT in figures and 'error' not in figures[SUBJECT]:
            figures[SUBJECT]['log_line_us_per_process'] = found
            if len(found) == LINE_PROCESSES:
                figures[SUBJECT]['log_line_us'] = statistics.median(found)
        return figures

    def in_process(self, name, path, extra_env=None):
        """One app's in-process figures, from a process of its own."""
        env = self.app_env(SUBJECT if name == NO_LOG else name, path)
        env[api_apps.CPU_ENV] = str(self.args.cpu_requests)
        env.update(extra_env or {})
        argv = [sys.executable, '-m', 'tools.bench.api_apps',
                '--config-file', self.config_file,
                '--config-file', self.server_file(
                    'inprocess-' + name, api_options=(
                        'log_requests = false\n' if name == NO_LOG
                        else ''))]
        done = subprocess.run(argv, env=env, capture_output=True,
                              text=True, timeout=600)
        if done.returncode:
            # oslo.log writes an uncaught exception to the log file.
            output = done.stdout + done.stderr + tail(
                self.log_file('inprocess-' + name))
            sys.stderr.write('%s in process failed:\n%s\n' % (
                name, output[-3000:]))
            return {'error': last_error(output)
                    or 'exit status %d' % done.returncode}
        return json.loads(done.stdout.strip().splitlines()[-1])

    def run(self):
        report = {
            'machine': {'cpus': os.cpu_count(),
                        'python': platform.python_version(),
                        'uwsgi': _version('pyuwsgi'),
                        'pecan': _version('pecan')},
            'commit': _commit(),
            'server': {'processes': cmd_api.workers(self.conf),
                       'threads': self.conf.api.threads,
                       'granian': _version('granian'),
                       'uwsgi_options': ' '.join(UWSGI_OPTIONS),
                       'baseline_tree': self.args.baseline_tree},
            'api_options': {'log_requests': self.conf.api.log_requests,
                            'auth_strategy': 'noauth',
                            'log_file': 'a file per server in a '
                                        'temporary directory'},
            'flavors': self.args.flavors,
            'duration_seconds': self.args.duration,
            'rounds': self.args.rounds,
            'concurrency': self.args.concurrency,
            'load_average_before': os.getloadavg(),
            'targets': TARGETS,
            'paths': {},
        }
        started = time.monotonic()
        for path in self.args.path:
            servers, slow, request_log = self.measure_servers(path)
            cpu = self.measure_cpu(path)
            report['paths'][path] = {
                'document_bytes': self.sizes[path],
                'servers': servers,
                'ratios': ratios(servers),
                'cpu_ratios': cpu_ratios(servers),
                'ratio_to_bare': {
                    name: {c: _ratio(servers, name, YARDSTICK, c)
                           for c in by_c}
                    for name, by_c in servers.items()},
                # Requests per CPU second relative to bare: the ratio of
                # throughputs where the server has the CPUs.
                'cpu_ratio_to_bare': {
                    name: {c: _cpu_ratio(servers, name, c)
                           for c in servers[name]}
                    for name in servers},
                'targets_met': targets_met(servers, cpu),
                'cpu_us_per_request': cpu,
                'request_log': request_log,
                'slow_clients': slow,
            }
        # Above the CPU count, req/s figures mostly measure the neighbours.
        report['failed_to_serve'] = self.failed
        report['load_average_after'] = os.getloadavg()
        report['seconds'] = round(time.monotonic() - started)
        return report


def uwsgi():
    path = shutil.which('uwsgi') or os.path.join(
        os.path.dirname(sys.executable), 'uwsgi')
    if not os.access(path, os.X_OK):
        sys.exit("tools.bench.api needs uWSGI: pip install '.[uwsgi]'")
    return path


def _version(distribution):
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _commit():
    try:
        return subprocess.run(
            ['git', 'describe', '--always', '--dirty'], capture_output=True,
            text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def _ratio(servers, name, other, c):
    ours = servers.get(name, {}).get(c)
    theirs = servers.get(other, {}).get(c)
    if not ours or not theirs or not theirs['rps']:
        return None
    return round(ours['rps'] / theirs['rps'], 2)


def ratios(servers):
    """{'api/<other>': {c: api's req/s / other's}} for what was served."""
    return {'%s/%s' % (SUBJECT, other): {
        c: _ratio(servers, SUBJECT, other, c) for c in servers[SUBJECT]}
        for other, _ in RATIOS if other in servers and SUBJECT in servers}


def cpu_ratios(servers):
    """{'api/<other>': {c: other's server CPU per request / api's}}.

    Requests per CPU second relative to the other: what the req/s ratio
    would be where the servers have the CPUs to themselves, and a figure
    that load from elsewhere on the machine moves much less.
    """
    def ratio(other, c):
        ours = servers[SUBJECT][c].get('server_cpu_us_per_request')
        theirs = servers[other].get(c, {}).get('server_cpu_us_per_request')
        return round(theirs / ours, 2) if ours and theirs else None

    return {'%s/%s' % (SUBJECT, other): {
        c: ratio(other, c) for c in servers[SUBJECT]}
        for other, _ in RATIOS if other in servers and SUBJECT in servers}


def targets_met(servers, cpu):
    met = {}
    if SUBJECT in servers and FRAMEWORK in servers:
        met['ratio_to_%s' % FRAMEWORK] = {
            c: (_ratio(servers, SUBJECT, FRAMEWORK, c) or 0) >= dict(
                RATIOS)[FRAMEWORK]
            for c in servers[SUBJECT]}
    at_64 = servers.get(SUBJECT, {}).get('64')
    if at_64 and at_64['p99_ms'] is not None:
        met['p99_ms_at_64'] = at_64['p99_ms'] < TARGETS['p99_ms_at_64']
    line = cpu.get(SUBJECT, {}).get('log_line_us')
    if line is not None:
        met['log_line_us'] = line <= TARGETS['log_line_us']
    return met


def _cpu_ratio(servers, name, c):
    ours = servers[name][c].get('server_cpu_us_per_request')
    bare = servers.get(YARDSTICK, {}).get(c, {}).get(
        'server_cpu_us_per_request')
    return round(bare / ours, 2) if ours and bare else None


def table(report):
    lines = []
    for path, figures in report['paths'].items():
        servers = figures['servers']
        lines.append('%s (%d bytes); granian and uWSGI, %d processes x %d '
                     'threads; commit %s' % (
                         path, figures['document_bytes'],
                         report['server']['processes'],
                         report['server']['threads'], report['commit']))
        lines.append('%5s %-15s %8s %7s %7s %4s %9s %5s' % (
            'conns', 'server', 'req/s', 'p50 ms', 'p99 ms', 'err',
            'cpu us/rq', 'load'))
        for c in [str(c) for c in report['concurrency']]:
            for name, by_c in servers.items():
                row = by_c.get(c)
                if row is None:
                    continue
                lines.append('%5s %-15s %8.0f %7.2f %7.2f %4d %9s %5s' % (
                    c, name, row['rps'], row['p50_ms'] or 0,
                    row['p99_ms'] or 0, row['errors'],
                    row.get('server_cpu_us_per_request'),
                    row['load_average']))
        concurrency = [str(c) for c in report['concurrency']]
        lines.append('%-22s %s   target' % ('req/s ratio', ' '.join(
            '%6s' % ('c=' + c) for c in concurrency)))
        for name, by_c in figures['ratios'].items():
            wanted = dict(RATIOS).get(name.split('/', 1)[1])
            lines.append('%-22s %s   %s' % (name, ' '.join(
                '%6s' % by_c.get(c) for c in concurrency),
                '>= %s' % wanted if wanted else ''))
        lines.append('%-22s %s' % ('req per CPU s ratio', ' '.join(
            '%6s' % ('c=' + c) for c in concurrency)))
        for name, by_c in figures['cpu_ratios'].items():
            lines.append('%-22s %s' % (name, ' '.join(
                '%6s' % by_c.get(c) for c in concurrency)))
        at_64 = servers.get(SUBJECT, {}).get('64')
        if at_64:
            lines.append('%s p99 at 64 connections: %.2f ms (target < %s '
                         'ms)' % (SUBJECT, at_64['p99_ms'] or 0,
                                  TARGETS['p99_ms_at_64']))
        lines.append('targets met: %s' % json.dumps(figures['targets_met']))
        cpu = figures['cpu_us_per_request']
        lines.append('in-process CPU per request (us): %s' % ', '.join(
            '%s %s' % (name, row.get('cpu_us_per_request', row))
            for name, row in cpu.items()))
        stock = cpu.get('pecan-stock', {}).get('cpu_us_per_request')
        fixed = cpu.get(FRAMEWORK, {}).get('cpu_us_per_request')
        bare = cpu.get('bare', {}).get('cpu_us_per_request')
        if stock and fixed and bare is not None:
            lines.append('  Pecan over bare: %.1f us stock, %.1f us with '
                         'the workaround (%.1fx less)' % (
                             stock - bare, fixed - bare,
                             (stock - bare) / max(fixed - bare, 0.1)))
        for name in (SUBJECT, NO_LOG):
            row = cpu.get(name, {})
            if 'log_lines_per_request' in row:
                lines.append('  %s in process: log_requests %s, %s log '
                             'lines per request' % (
                                 name, row['log_requests'],
                                 row['log_lines_per_request']))
        subject = cpu.get(SUBJECT, {})
        if 'log_line_us' in subject:
            lines.append(
                '  the request log line costs %.1f us (target <= %s; the '
                'median of %d processes, each the API with and without it '
                'in turns: %s)' % (
                    subject['log_line_us'], TARGETS['log_line_us'],
                    LINE_PROCESSES, ', '.join(
                        '%.1f' % us
                        for us in subject['log_line_us_per_process'])))
        unlogged = cpu.get(NO_LOG, {}).get('cpu_us_per_request')
        if subject.get('cpu_us_per_request') and unlogged:
            lines.append('  api minus api-no-log (two processes): %.1f us' % (
                subject['cpu_us_per_request'] - unlogged))
        for name, log in figures['request_log'].items():
            lines.append('%s served: %d requests sent, %d lines naming %s '
                         'in its log file' % (
                             name, log['requests_sent'],
                             log['log_lines_naming_the_path'], path))
        for name, slow in figures['slow_clients'].items():
            lines.append(
                '%s beside %d slow clients trickling '
                'headers (%d still open at the end): %d requests, %d '
                'unanswered, p50 %s ms, p99 %s ms, max %s ms (load %s)'
                % (name, slow['slow_connections'], slow['slow_still_open'],
                   slow['requests'], slow['unanswered'], slow['p50_ms'],
                   slow['p99_ms'], slow['max_ms'], slow['load_average']))
        lines.append('')
    for name, error in report['failed_to_serve'].items():
        lines.append('%s FAILED TO SERVE: %s' % (name, error))
    lines.append('load average before %s, after %s (%d CPUs); %d s' % (
        ' '.join('%.1f' % x for x in report['load_average_before']),
        ' '.join('%.1f' % x for x in report['load_average_after']),
        report['machine']['cpus'], report['seconds']))
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
                        help='default: %s' % DEFAULT_PATH)
    parser.add_argument('--servers', default=','.join(SERVERS),
                        type=lambda s: [n for n in s.split(',') if n],
                        help='what to serve, of %s (default: %s)' % (
                            ', '.join(SERVERS + OPTIONAL_SERVERS),
                            ','.join(SERVERS)))
    parser.add_argument('--workers', type=int, default=None,
                        help='server processes (default: as '
                             'flavor-exporter-api, the CPUs)')
    parser.add_argument('--threads', type=int, default=None,
                        help='threads per server process (default: as '
                             'flavor-exporter-api, [api] threads)')
    parser.add_argument('--rounds', type=int, default=4,
                        help='measurements per app and concurrency, '
                             'interleaved; the best is kept')
    parser.add_argument('--cpu-requests', type=int, default=3000,
                        help='requests per in-process run (best of %d)'
                             % api_apps.CPU_RUNS)
    parser.add_argument('--slow', type=int, default=SLOW_CLIENTS,
                        help='slow clients beside the timed ones (0: none)')
    parser.add_argument('--slow-requests', type=int, default=100)
    parser.add_argument('--baseline-tree', metavar='DIR',
                        help='also serve flavor-exporter-api from this '
                             'checkout of the project (api-before)')
    parser.add_argument('--output', default='bench-results/api.json')
    args = parser.parse_args(argv)
    args.path = args.path or [DEFAULT_PATH]
    args.duration = max(1, min(args.duration, 60))
    unknown = set(args.servers) - set(SERVERS + OPTIONAL_SERVERS)
    if unknown:
        parser.error('unknown servers: %s' % ', '.join(sorted(unknown)))
    if not shutil.which('wrk'):
        sys.exit('tools.bench.api needs wrk (apt-get install wrk)')
    if any(name.endswith('uwsgi') for name in args.servers):
        uwsgi()
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
    failed = set(report['failed_to_serve']) | {
        name for figures in report['paths'].values()
        for name, row in figures['cpu_us_per_request'].items()
        if 'error' in row}
    if failed:
        sys.exit('failed: %s' % ', '.join(sorted(failed)))


if __name__ == '__main__':
    main()
