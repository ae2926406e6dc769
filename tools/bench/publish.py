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
"""Benchmark of publishing: what a refresh writes to memcached, and keeps.

On the synthetic cloud of tools/bench/engine.py (10,000 hosts x 1,000
flavors by default), computes, renders and publishes into a real memcached
with its default item size (1 MB), three times:

- cold: an empty cache;
- warm, nothing changed: the same cloud read again;
- warm, 1% of hosts changed: usages moved on one host in a hundred;

then a few more refreshes, and reports for each the bytes and items
written, the time of rendering and publishing, the largest stored item,
and what memcached holds afterwards (about two generations).

    python -m tools.bench.publish [--hosts 10000] [--flavors 1000]
"""

import argparse
import datetime
import json
import os
import random
import time

from flavor_exporter.capacity import engine
from flavor_exporter.publication import cache
from flavor_exporter.publication import publisher
from flavor_exporter.publication import render
from testcloud import loopback
from tools.bench import engine as bench_engine


class CountingBackend(cache.MemcachedBackend):
    """Counts what goes to memcached."""

    def __init__(self, servers):
        super().__init__(servers)
        self.reset()

    def reset(self):
        self.items = self.bytes = self.largest = self.deleted = 0

    def set_many(self, values, ttl):
        self.items += len(values)
        self.bytes += sum(len(v) for v in values.values())
        self.largest = max([self.largest] + [len(v)
                                             for v in values.values()])
        super().set_many(values, ttl)

    def delete_many(self, keys):
        self.deleted += len(keys)
        super().delete_many(keys)


def _churn(snapshot, share, rng):
    """Move usages on share of the hosts: one VCPU more or less."""
    for host in rng.sample(snapshot.hosts, int(len(snapshot.hosts) * share)):
        usages = host.root.usages
        usages['VCPU'] = max(0, usages.get('VCPU', 0) + rng.choice((-1, 1)))


def refresh(snapshot, store, backend, moment):
    backend.reset()
    started = time.process_time()
    report = engine.compute(snapshot, bench_engine._options())
    docs, pointer = render.documents(report)
    rendered = time.process_time()
    store.publish(docs, pointer, moment)
    published = time.process_time()
    return {'documents': len(docs),
            'largest_document_kb': round(max(map(len, docs.values()))
                                         / 1024, 1),
            'render_cpu_seconds': round(rendered - started, 2),
            'publish_cpu_seconds': round(published - rendered, 2),
            'items_written': backend.items,
            'bytes_written': backend.bytes,
            'largest_item_kb': round(backend.largest / 1024, 1),
            'items_deleted': backend.deleted}


def memcached_holds(server):
    from pymemcache.client import base
    host, port = server.rsplit(':', 1)
    client = base.Client((host, int(port)))
    try:
        stats = client.stats()
    finally:
        client.close()
    return {'items': int(stats[b'curr_items']),
            'megabytes': round(int(stats[b'bytes']) / 2 ** 20, 1)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--flavors', type=int, default=1000)
    parser.add_argument('--output', default='bench-results/publish.json')
    args = parser.parse_args(argv)
    memcached = loopback.MemcachedFixture(memory_mb=2048,
                                          max_item_size='1m')
    memcached.setUp()
    try:
        backend = CountingBackend(memcached.servers)
        store = publisher.Publisher(backend, 'bench', 86400)
        snapshot = bench_engine.synthetic_snapshot(args.hosts, args.flavors)
        moment = datetime.datetime.now(datetime.timezone.utc)
        rng = random.Random(7)
        figures = {'hosts': args.hosts, 'flavors': args.flavors}
        figures['cold'] = refresh(snapshot, store, backend, moment)
        moment += datetime.timedelta(seconds=150)
        figures['warm_unchanged'] = refresh(snapshot, store, backend, moment)
        _churn(snapshot, 0.01, rng)
        moment += datetime.timedelta(seconds=150)
        figures['warm_1pct_hosts'] = refresh(snapshot, store, backend,
                                             moment)
        for _ in range(3):
            _churn(snapshot, 0.01, rng)
            moment += datetime.timedelta(seconds=150)
            refresh(snapshot, store, backend, moment)
        figures['memcached_after_6_refreshes'] = memcached_holds(
            memcached.servers[0])
        manifest = store.reader.manifest(store.reader.current())
        figures['documents_mb_per_generation'] = round(sum(
            len(store.reader.read(entry)) for entry in manifest.values())
            / 2 ** 20, 1)
    finally:
        memcached.cleanUp()
    for step in ('cold', 'warm_unchanged', 'warm_1pct_hosts'):
        row = figures[step]
        print('publish %-16s %6d items %10d bytes (largest item %.0f KB), '
              'render %.2fs publish %.2fs CPU' % (
                  step, row['items_written'], row['bytes_written'],
                  row['largest_item_kb'], row['render_cpu_seconds'],
                  row['publish_cpu_seconds']), flush=True)
    print('memcached holds %(items)d items, %(megabytes).1f MB after 6 '
          'refreshes' % figures['memcached_after_6_refreshes'])
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump(figures, out, indent=2)


if __name__ == '__main__':
    main()
