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
"""Benchmark of a worker's refreshes, end to end, against fakecloud.

What the worker service does every refresh_interval, measured: the
Refresher (collect from fakecloud over HTTP, compute, render, publish
into a real memcached) of one worker process, three times:

- cold: the first refresh of the process;
- warm: the next one, nothing changed in the cloud;
- warm after churn: after fakecloud moved the usages of a tenth of the
  providers and the generation (a new trait) of one in a hundred;
- failover: the first refresh of a new worker process taking over (a
  Refresher of its own, new clients), with what the first wrote of the
  providers in the shared memcached (provider_store).

Each with its wall seconds (to the end of the refresh, and until its
generation was published: the providers are written to the shared cache
after that), its CPU seconds and where they went (collect, compute,
render, publish, share), the CPU seconds of the second process that
sends a share of a large batch of GETs (get_process), the API calls,
the providers read from Placement and taken from the shared cache, and
the peak RSS of this process (which does nothing else).

The fake cloud serves Placement from a process of its own, as any
deployment does (fakecloud.py); --fake-one-process serves both from one
event loop, as the fake did before 2026-12-06.

    python -m tools.bench.worker [--hosts 10000] [--flavors 1000]
"""

import argparse
import gc
import json
import os
import resource
import tempfile
import time

from flavor_exporter.publication import cache
from flavor_exporter.publication import publisher as publisher_mod
from flavor_exporter.worker import openstack
from flavor_exporter.worker import provider_store
from flavor_exporter.worker import refresh
from testcloud import loopback
from tools.bench import collect


class Phases:
    """CPU seconds of the refresh's phases, by wrapping their functions."""

    def __init__(self):
        self.seconds = {}

    def wrap(self, owner, name, phase):
        function = getattr(owner, name)

        def timed(*args, **kwargs):
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[phase] = self.seconds.get(phase, 0) + (
                    time.process_time() - started)
                if phase == 'publish':
                    self.published = time.perf_counter()
        setattr(owner, name, timed)


def _refresh(refresher, client, phases, fake):
    fake.control('POST', 'reset-stats')
    phases.seconds.clear()
    calls = client.call_count
    child_cpu = client.child_cpu_seconds
    started, cpu = time.perf_counter(), time.process_time()
    if not refresher.refresh():
        raise RuntimeError('refresh failed: %s' % refresher.last_error)
    return {'seconds': round(time.perf_counter() - started, 2),
            # Until the new generation was published (the providers are
            # shared after that).
            'published_seconds': round(phases.published - started, 2),
            'cpu_seconds': round(time.process_time() - cpu, 2),
            # The second process sending a share of the GETs (get_process):
            # its CPU is not this process's.
            'child_cpu_seconds': round(client.child_cpu_seconds - child_cpu,
                                       2),
            'phases_cpu_seconds': {k: round(v, 2)
                                   for k, v in phases.seconds.items()},
            'api_calls': client.call_count - calls,
            'providers_read': refresher_stats(refresher).get(
                'providers_fetched'),
            'providers_from_shared_cache': refresher_stats(refresher).get(
                'providers_shared'),
            'fake_cpu_seconds': fake.control('GET', 'stats')['cpu_seconds'],
            'peak_rss_mb': round(resource.getrusage(
                resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def refresher_stats(refresher):
    return refresher._source.last_stats or {}


def worker(conf, memcached, phases):
    """(Refresher, CloudClient) of one worker process, as service.py's."""
    client = openstack.CloudClient.from_conf(conf)
    publisher = publisher_mod.Publisher(
        cache.MemcachedBackend(memcached.servers), 'bench', 86400)
    source = refresh.make_source(conf, client, store=(
        provider_store.ProviderStore(publisher.backend, 'bench')))
    phases.wrap(source, 'collect', 'collect')
    phases.wrap(publisher, 'publish', 'publish')
    phases.wrap(source, 'share', 'share')
    return refresh.Refresher(conf, publisher=publisher, client=client,
                             source=source), client


def figures(fake, memcached):
    conf = collect._configure(fake)
    os.environ['OS_CLIENT_CONFIG_FILE'] = fake.clouds_yaml
    phases = Phases()
    phases.wrap(refresh.engine, 'compute', 'compute')
    phases.wrap(refresh.render, 'documents', 'render')
    refresher, client = worker(conf, memcached, phases)
    found = {'cold': _refresh(refresher, client, phases, fake),
             'warm': _refresh(refresher, client, phases, fake)}
    fake.control('POST', 'churn')
    found['warm_after_churn'] = _refresh(refresher, client, phases, fake)
    # The leader is gone; a new worker process leads (its memory starts
    # empty: what it keeps in the process is measured apart from this
    # one's by dropping this one's first).
    del refresher, client
    gc.collect()
    refresher, client = worker(conf, memcached, phases)
    found['failover'] = _refresh(refresher, client, phases, fake)
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--flavors', type=int, default=1000)
    parser.add_argument('--output', default='bench-results/worker.json')
    parser.add_argument('--fake-one-process', action='store_true',
                        help="fakecloud answers Nova's and Placement's "
                             'calls from one event loop (before 2026-12-06)')
    args = parser.parse_args(argv)
    memcached = loopback.MemcachedFixture(memory_mb=2048,
                                          max_item_size='1m')
    memcached.setUp()
    try:
        with tempfile.TemporaryDirectory() as workdir:
            with collect.FakeCloudProcess(
                    workdir, args.hosts, args.flavors,
                    one_process=args.fake_one_process) as fake:
                found = {'hosts': args.hosts, 'flavors': args.flavors,
                         'fake_one_process': args.fake_one_process,
                         'providers': fake.info['providers'],
                         'load_average': os.getloadavg()[0]}
                found.update(figures(fake, memcached))
                found['load_average_at_end'] = os.getloadavg()[0]
    finally:
        memcached.cleanUp()
    os.makedirs(os.path.dirname(args.output) or '.', exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump(found, out, indent=2)
    print('worker %(hosts)d hosts (%(providers)d providers) x %(flavors)d '
          'flavors, load average %(load_average).1f:' % found)
    for name in ('cold', 'warm', 'warm_after_churn', 'failover'):
        row = found[name]
        print('  %-17s %7.2fs (published after %.2fs; CPU %6.2fs: %s; '
              'child CPU %.2fs) %6d '
              'calls (%s providers read, %s from the shared cache), fake '
              'cloud CPU %.2fs, peak RSS %6.1f MB'
              % (name, row['seconds'], row['published_seconds'],
                 row['cpu_seconds'],
                 ', '.join('%s %.2f' % item for item
                           in row['phases_cpu_seconds'].items()),
                 row['child_cpu_seconds'],
                 row['api_calls'], row['providers_read'],
                 row['providers_from_shared_cache'],
                 row['fake_cpu_seconds'], row['peak_rss_mb']))


if __name__ == '__main__':
    main()
