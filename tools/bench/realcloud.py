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
"""The worker's refresh against the real test cloud (Nova + Placement).

For each size N, writes a scenario of N compute hosts (90 % CPU hosts,
10 % with two V100 each in a GPU aggregate), starts ``testcloud`` with it,
boots a few servers so that usages are not all zero, and runs the worker's
Refresher twice in this process against a real memcached: cold (new
process, empty caches) and warm (the same Refresher again, as the worker
service does every refresh_interval). API calls are the status entry's
``api_calls``; peak RSS is this process's (it does nothing else).

Needs the functional tox env; the cloud runs from its release's own
interpreter (testcloud/cloud_venv.py). Takes minutes, so ``tox -e bench``
does not run it unless named::

    tox -e functional --notest
    .tox/functional/bin/python -m tools.bench.realcloud [--hosts 200 1000]
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import yaml

from flavor_exporter.common import config
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher
from flavor_exporter.worker import refresh
from testcloud import launcher
from testcloud import loopback

V100 = {'name': 'V100', 'vendor_id': '10de', 'product_id': '1db4',
        'device_type': 'type-PCI'}
# Starting the cloud grows faster than linearly with hosts (500: ~41 s).
START_TIMEOUT = 1200
RESULTS = os.path.join('bench-results', 'realcloud.json')


def _rss_mb():
    # ru_maxrss is in KB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _peak_rss_of(pid):
    """VmHWM of another process, in MB; None if it cannot be read."""
    try:
        with open('/proc/%d/status' % pid) as status:
            for line in status:
                if line.startswith('VmHWM:'):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def scenario(hosts, servers):
    """A scenario dict of ``hosts`` computes and ``servers`` servers."""
    gpu_hosts = max(1, hosts // 10)
    cpu_hosts = hosts - gpu_hosts
    spec = {
        'description': '%d hosts for tools/bench/realcloud.py' % hosts,
        'pci': {'aliases': [V100]},
        'hosts': [
            {'name': 'c{index:04d}', 'count': cpu_hosts,
             'node': 'c{index:04d}.example.org',
             'vcpus': 64, 'memory_mb': 515072, 'local_gb': 2000},
            {'name': 'g{index:04d}', 'count': gpu_hosts,
             'node': 'g{index:04d}.example.org',
             'vcpus': 32, 'memory_mb': 262144, 'local_gb': 1000,
             'pci_devices': [{'vendor_id': '10de', 'product_id': '1db4',
                              'count': 2}]},
        ],
        'aggregates': [
            {'name': 'GPU V100',
             'hosts': ['g%04d' % i for i in range(1, gpu_hosts + 1)],
             'metadata': {'gpu': True, 'gpu_count': 2, 'gpu_type': 'V100'}},
        ],
        'flavors': [
            {'name': 'small', 'vcpus': 2, 'ram': 4096, 'disk': 20},
            {'name': 'medium', 'vcpus': 8, 'ram': 16384, 'disk': 50},
            {'name': 'large', 'vcpus': 16, 'ram': 65536, 'disk': 100},
            {'name': 'huge', 'vcpus': 32, 'ram': 131072, 'disk': 100},
            {'name': 'gpu.v100', 'vcpus': 8, 'ram': 32768, 'disk': 50,
             'extra_specs': {'pci_passthrough:alias': 'V100:1'}},
            {'name': 'gpu.v100x2', 'vcpus': 16, 'ram': 65536, 'disk': 50,
             'extra_specs': {'pci_passthrough:alias': 'V100:2'}},
        ],
    }
    if servers:
        gpu = servers // 4
        spec['servers'] = [{'flavor': 'medium', 'count': servers - gpu}]
        if gpu:
            spec['servers'].append({'flavor': 'gpu.v100', 'count': gpu})
    return spec


def _configure(cloud, memcached):
    config.parse_args([], default_config_files=[])
    conf = config.CONF
    # The worker's own path: [openstack] cloud names a clouds.yaml entry.
    os.environ.update(cloud.env())
    conf.set_override('cloud', cloud.cloud_name, group='openstack')
    conf.set_override('alias', [json.dumps(V100)], group='pci')
    conf.set_override('backend', 'memcached', group='document_cache')
    conf.set_override('memcache_servers', memcached.servers,
                      group='document_cache')
    return conf


def _refresh(refresher, store):
    started = time.perf_counter()
    cpu_started = time.process_time()
    published = refresher.refresh()
    seconds = time.perf_counter() - started
    status = store.reader.status()
    if not published:
        raise RuntimeError('refresh failed: %s' % refresher.last_error)
    return {'seconds': round(seconds, 2),
            # The machine may be shared: CPU time is the steadier figure.
            'cpu_seconds': round(time.process_time() - cpu_started, 2),
            'api_calls': status[pub.API_CALLS],
            'problem_count': status.get('problem_count'),
            'peak_rss_mb': round(_rss_mb(), 1)}


def measure(hosts, servers, workdir):
    path = os.path.join(workdir, 'realcloud%d.yaml' % hosts)
    with open(path, 'w') as out:
        yaml.safe_dump(scenario(hosts, servers), out, sort_keys=False)
    started = time.perf_counter()
    with launcher.TestCloud(path, timeout=START_TIMEOUT,
                            rootdir=workdir) as cloud:
        start_seconds = time.perf_counter() - started
        cloud_rss = _peak_rss_of(cloud.process.popen.pid)
        print('  cloud of %d hosts ready in %.1f s' % (hosts, start_seconds),
              flush=True)
        with loopback.MemcachedFixture() as memcached:
            conf = _configure(cloud, memcached)
            store = publisher.Publisher.from_conf(conf)
            try:
                rss_before = _rss_mb()
                refresher = refresh.Refresher(conf, store)
                cold = _refresh(refresher, store)
                warm = _refresh(refresher, store)
            finally:
                store.close()
    return {'hosts': hosts, 'servers': servers,
            'cloud_start_seconds': round(start_seconds, 1),
            'cloud_peak_rss_mb': cloud_rss,
            'rss_before_refresh_mb': round(rss_before, 1),
            'cold': cold, 'warm': warm}


def _summary(figures):
    for key in ('cold', 'warm'):
        run = figures[key]
        print('  %s: %.2f s (%.2f s CPU), %d API calls, peak RSS %.0f MB'
              % (key, run['seconds'], run['cpu_seconds'], run['api_calls'],
                 run['peak_rss_mb']))


def _measure_apart(hosts, servers, workdir):
    """measure() in a new interpreter: each size's peak RSS is its own."""
    done = subprocess.run(
        [sys.executable, '-m', 'tools.bench.realcloud', '--one',
         str(hosts), '--servers', str(servers), '--workdir', workdir],
        stdout=subprocess.PIPE, text=True)
    lines = done.stdout.splitlines()
    for line in lines[:-1]:
        print(line, flush=True)
    if done.returncode != 0 or not lines:
        return {'hosts': hosts,
                'error': 'exited with %d' % done.returncode}
    return json.loads(lines[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=int, nargs='+', default=[200, 1000])
    parser.add_argument('--servers', type=int, default=4,
                        help='servers booted before the refreshes')
    parser.add_argument('--one', type=int, help=argparse.SUPPRESS)
    parser.add_argument('--workdir', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        try:
            figures = measure(args.one, args.servers, args.workdir)
        except launcher.CloudStartError as exc:
            # What failed is at the end of the server's stderr tail.
            lines = str(exc).splitlines()
            figures = {'hosts': args.one,
                       'error': '\n'.join(lines[:1] + lines[-20:])}
        # The last line of stdout is what the parent reads.
        print(json.dumps(figures), flush=True)
        return
    results = []
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with tempfile.TemporaryDirectory(prefix='realcloud-') as workdir:
        # Smallest first: a size that cannot start still leaves the
        # figures of the smaller ones.
        for hosts in sorted(args.hosts):
            print('%d hosts' % hosts, flush=True)
            figures = _measure_apart(hosts, args.servers, workdir)
            if 'error' in figures:
                print('  ' + figures['error'].splitlines()[0], flush=True)
            else:
                _summary(figures)
            results.append(figures)
            with open(RESULTS, 'w') as out:
                json.dump(results, out, indent=2)
    print('figures in %s' % RESULTS)


if __name__ == '__main__':
    main()
