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
"""Benchmark of collection from a large cloud: calls, time, memory.

Starts fakecloud (a separate process, on loopback) with H hosts and F
flavors, then runs the Placement source's collect as the worker does:
cold (empty provider cache), and warm after the fake cloud changed usages
and some generations as a busy cloud would. The engine is not run here;
then a cold ``flavor-exporter-report`` (collect, compute, print the list)
is timed end to end in its own process, its peak RSS included
(``--no-report`` skips it).

    python -m tools.bench.collect [--hosts 10000] [--flavors 1000]
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request

from flavor_exporter.common import config
from flavor_exporter.worker import openstack
from flavor_exporter.worker import placement_source
from tools.bench import synthetic_cloud

READY_TIMEOUT = 300


def _rss_mb():
    # ru_maxrss is in KB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class FakeCloudProcess:
    """fakecloud in its own interpreter, stopped when the bench ends."""

    def __init__(self, workdir, hosts, flavors, one_process=False):
        # one_process: fakecloud's --one-process (Nova and Placement
        # answered from one event loop).
        self.ready_file = os.path.join(workdir, 'ready.json')
        self.clouds_yaml = os.path.join(workdir, 'clouds.yaml')
        self.argv = [sys.executable, '-m', 'tools.bench.fakecloud',
                     '--hosts', str(hosts), '--flavors', str(flavors),
                     '--ready-file', self.ready_file,
                     '--clouds-yaml', self.clouds_yaml]
        if one_process:
            self.argv.append('--one-process')
        self.process = None
        self.info = None

    def __enter__(self):
        self.process = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + READY_TIMEOUT
        while not os.path.exists(self.ready_file):
            if self.process.poll() is not None:
                raise RuntimeError('fakecloud exited with %s'
                                   % self.process.returncode)
            if time.monotonic() > deadline:
                raise RuntimeError('fakecloud not ready after %ss'
                                   % READY_TIMEOUT)
            time.sleep(0.1)
        with open(self.ready_file) as ready:
            self.info = json.load(ready)
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(30)

    def control(self, method, name):
        request = urllib.request.Request(
            self.info['base_url'] + '/_fake/' + name, method=method,
            data=b'' if method == 'POST' else None)
        # The fake is on loopback: no proxy, whatever the environment says.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(request, timeout=60) as answer:
            return json.load(answer)


def _configure(fake):
    config.parse_args([], default_config_files=[])
    conf = config.CONF
    conf.set_override('cloud', 'fakecloud', group='openstack')
    conf.set_override('alias', synthetic_cloud.ALIASES, group='pci')
    return conf


def _collect(source, client, fake):
    fake.control('POST', 'reset-stats')
    calls_before = client.call_count
    started = time.perf_counter()
    cpu_started = time.process_time()
    snapshot = source.collect(client)
    seconds = time.perf_counter() - started
    cpu_seconds = time.process_time() - cpu_started
    routes = fake.control('GET', 'stats')
    return {'seconds': round(seconds, 2),
            # The machine may be shared: CPU time is the steadier figure.
            'cpu_seconds': round(cpu_seconds, 2),
            'fake_cpu_seconds': routes.pop('cpu_seconds'),
            'api_calls': client.call_count - calls_before,
            'hosts': len(snapshot.hosts),
            'problems': len(snapshot.problems),
            'stats': dict(source.last_stats),
            'routes': routes,
            'peak_rss_mb': round(_rss_mb(), 1)}


def collect_figures(fake):
    conf = _configure(fake)
    base_rss = _rss_mb()
    # The worker's own path: [openstack] cloud names a clouds.yaml entry.
    os.environ['OS_CLIENT_CONFIG_FILE'] = fake.clouds_yaml
    client = openstack.CloudClient.from_conf(conf)
    source = placement_source.PlacementSource(conf)
    cold = _collect(source, client, fake)
    warm_same = _collect(source, client, fake)
    churn = fake.control('POST', 'churn')
    warm = _collect(source, client, fake)
    warm['generations_moved'] = churn['generations_moved']
    return {'rss_before_mb': round(base_rss, 1), 'cold': cold,
            'warm_unchanged': warm_same, 'warm_after_churn': warm}


def report_figures(fake, workdir):
    """A cold flavor-exporter-report, end to end, in its own process."""
    conf_file = os.path.join(workdir, 'report.conf')
    with open(conf_file, 'w') as out:
        out.write('[openstack]\ncloud = fakecloud\n[pci]\n')
        for alias in synthetic_cloud.ALIASES:
            out.write('alias = %s\n' % alias)
    env = dict(os.environ, OS_CLIENT_CONFIG_FILE=fake.clouds_yaml)
    argv = [sys.executable, '-m', 'flavor_exporter.cmd.report',
            '--config-file', conf_file, '--format', 'json']
    started = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    stderr = process.stderr.read().decode(errors='replace')
    process.stderr.close()
    return {'seconds': round(seconds, 1),
            'cpu_seconds': round(usage.ru_utime + usage.ru_stime, 1),
            'load_average': os.getloadavg()[0],
            'exit_status': os.waitstatus_to_exitcode(status),
            'peak_rss_mb': round(usage.ru_maxrss / 1024, 1),
            'stderr_tail': stderr[-500:] if status else ''}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--flavors', type=int, default=1000)
    parser.add_argument('--no-report', dest='report', action='store_false',
                        help='do not time a cold flavor-exporter-report')
    parser.add_argument('--output', default='bench-results/collect.json')
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as workdir:
        with FakeCloudProcess(workdir, args.hosts, args.flavors) as fake:
            figures = {'hosts': args.hosts, 'flavors': args.flavors,
                       'providers': fake.info['providers'],
                       'load_average': os.getloadavg()[0]}
            figures.update(collect_figures(fake))
            if args.report:
                figures['report'] = report_figures(fake, workdir)
    os.makedirs(os.path.dirname(args.output) or '.', exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump(figures, out, indent=2)
    print('collect %(hosts)d hosts (%(providers)d providers) x %(flavors)d '
          'flavors, load average %(load_average).1f at start:' % figures)
    for name in ('cold', 'warm_unchanged', 'warm_after_churn'):
        row = figures[name]
        print('  %-17s %7.2fs (CPU %6.2fs, fake cloud %5.2fs) %6d calls, '
              'peak RSS %6.1f MB'
              % (name, row['seconds'], row['cpu_seconds'],
                 row['fake_cpu_seconds'], row['api_calls'],
                 row['peak_rss_mb']))
    if 'report' in figures:
        print('  report (cold, end to end) %(seconds).1fs (CPU '
              '%(cpu_seconds).1fs) exit %(exit_status)d, peak RSS '
              '%(peak_rss_mb).1f MB, load average %(load_average).1f at end'
              % figures['report'])


if __name__ == '__main__':
    main()
