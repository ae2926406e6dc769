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
"""Benchmark: from Nova's notification to the published documents.

A worker process (flavor-exporter-worker, polling once an hour) reads
fakecloud's synthetic cloud (H hosts x F flavors, as the engine benchmark)
and listens to a RabbitMQ node of the benchmark's own. The benchmark
then plays Nova: it takes a server's resources on a host of the fake
cloud (POST /_fake/boot) and says so with an instance.create.end on the
bus, as nova-compute does once the server runs. What is timed is from
that notification to the next generation in memcached, which is the
first refresh that read the cloud after it (nothing else refreshes).

- single: one event at a time, with a quiet second or two between them;
  p50, p95 and worst latency;
- burst: EVENTS events as fast as the bus takes them; how many refreshes
  they cost, and how long after the last one the documents had it.

Also the worker's peak RSS, and its own cold and warm refresh times as
its status says.

    python -m tools.bench.notifications [--hosts 10000] [--flavors 1000]
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid

from oslo_config import cfg
import oslo_messaging

from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher as publisher_mod
from testcloud import loopback
from tools.bench import collect
from tools.bench import notification_flood
from tools.bench import synthetic_cloud

SETTLE = 0.5


def _worker(workdir, fake, memcached, rabbit):
    config = os.path.join(workdir, 'worker.conf')
    with open(config, 'w') as out:
        out.write('[openstack]\ncloud = fakecloud\n'
                  'notification_transport_url = %s\n' % rabbit.url)
        out.write('[worker]\nrefresh_interval = 3600\n')
        out.write('[notifications]\nsettle = %s\n' % SETTLE)
        out.write('[document_cache]\nmemcache_servers = %s\n'
                  % memcached.servers[0])
        out.write('[pci]\n')
        for alias in synthetic_cloud.ALIASES:
            out.write('alias = %s\n' % alias)
    log_path = os.path.join(workdir, 'worker.log')
    log = open(log_path, 'w')
    env = dict(os.environ, OS_CLIENT_CONFIG_FILE=fake.clouds_yaml)
    script = os.path.join(os.path.dirname(sys.executable),
                          'flavor-exporter-worker')
    process = subprocess.Popen([script, '--config-file', config], env=env,
                               stdout=log, stderr=subprocess.STDOUT)
    process.log_path = log_path
    return process


def _peak_rss_mb(pid):
    """The peak RSS of a process and its children (the worker forks)."""
    peak = 0
    for candidate in [pid] + _children(pid):
        try:
            with open('/proc/%d/status' % candidate) as status:
                for line in status:
                    if line.startswith('VmHWM:'):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
    return round(peak / 1024, 1)


def _children(pid):
    """The processes whose parent is pid (oslo.service forks one)."""
    found = []
    for name in os.listdir('/proc'):
        if name.isdigit():
            try:
                with open('/proc/%s/stat' % name) as stat:
                    # pid (comm) state ppid ...: comm may hold spaces.
                    fields = stat.read().rsplit(')', 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(name))
    return found


class Nova:
    """Says what nova-compute says once a server runs."""

    def __init__(self, url):
        conf = cfg.ConfigOpts()
        conf([])
        oslo_messaging.get_notification_transport(conf, url=url)
        conf.set_override('control_exchange', 'nova')
        self._notifier = oslo_messaging.Notifier(
            oslo_messaging.get_notification_transport(conf, url=url),
            driver='messagingv2', topics=['versioned_notifications'],
            publisher_id='nova-compute:bench')

    def created(self, host, node):
        self._notifier.info({'request_id': 'req-bench'},
                            'instance.create.end', {
                                'nova_object.name': 'InstanceCreatePayload',
                                'nova_object.data': {'host': host,
                                                     'node': node}})

    def error(self, event_type, payload):
        self._notifier.error({'request_id': 'req-%s' % uuid.uuid4()},
                             event_type, payload)


def _sequence(reader):
    pointer = reader.current()
    return pointer[pub.SEQUENCE] if pointer else None


def _wait_past(reader, sequence, timeout=120):
    """Seconds until a generation newer than sequence is published."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            now = _sequence(reader)
        except cache.CacheError:
            now = None
        if now is not None and (sequence is None or now > sequence):
            return time.monotonic() - started, now
        time.sleep(0.01)
    raise RuntimeError('nothing published %ss after the event' % timeout)


def _percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(hosts, flavors, events, burst, flood=0, hostile=0):
    with tempfile.TemporaryDirectory() as workdir, \
            collect.FakeCloudProcess(workdir, hosts, flavors) as fake:
        memcached = loopback.MemcachedFixture()
        rabbit = loopback.RabbitMQFixture()
        memcached.setUp()
        rabbit.setUp()
        try:
            store = publisher_mod.Publisher(cache.MemcachedBackend(
                memcached.servers), 'flavor-exporter', 600)
            worker = _worker(workdir, fake, memcached, rabbit)
            try:
                figures = _run(store, fake, rabbit, worker, events, burst)
                if flood:
                    figures.update(_flood(store, fake, rabbit, worker,
                                          flood, hostile))
                return figures
            finally:
                worker.terminate()
                worker.wait(30)
        finally:
            rabbit.cleanUp()
            memcached.cleanUp()


def _flood(store, fake, rabbit, worker, flood, hostile):
    hosts = []
    for _ in range(20):
        booted = fake.control('POST', 'boot')
        hosts.append((booted['host'], booted['node']))
    return notification_flood.run(
        store, Nova(rabbit.url), hosts, worker.log_path, flood, hostile,
        lambda: _sequence(store.reader))


def _run(store, fake, rabbit, worker, events, burst):
    reader = store.reader
    cold, _ = _wait_past(reader, None, timeout=600)
    nova = Nova(rabbit.url)
    time.sleep(2)  # the listener's queue is bound
    single = []
    for _ in range(events):
        booted = fake.control('POST', 'boot')
        sequence = _sequence(reader)
        nova.created(booted['host'], booted['node'])
        seconds, _ = _wait_past(reader, sequence)
        single.append(seconds)
        time.sleep(random.uniform(1.0, 2.0))
    time.sleep(2)
    before = _sequence(reader)
    started = time.monotonic()
    for _ in range(burst):
        booted = fake.control('POST', 'boot')
        nova.created(booted['host'], booted['node'])
    sent = time.monotonic() - started
    last = _sequence(reader)
    after_last = _wait_past(reader, last)[0] if burst else 0.0
    time.sleep(SETTLE + 3)
    status = reader.status() or {}
    single = single or [0.0]
    return {
        'first_publication_seconds': round(cold, 2),
        'single_events': events,
        'latency_p50_seconds': round(_percentile(single, 0.5), 3),
        'latency_p95_seconds': round(_percentile(single, 0.95), 3),
        'latency_max_seconds': round(max(single), 3),
        'notified_refresh_seconds': status.get(pub.DURATION),
        'burst_events': burst,
        'burst_sent_seconds': round(sent, 2),
        'burst_refreshes': _sequence(reader) - before,
        'burst_published_after_last_seconds': round(after_last, 3),
        'worker_peak_rss_mb': _peak_rss_mb(worker.pid),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--flavors', type=int, default=1000)
    parser.add_argument('--events', type=int, default=20)
    parser.add_argument('--burst', type=int, default=300)
    parser.add_argument('--flood', type=int, default=20000,
                        help='instance.create.end of the flood (0: none)')
    parser.add_argument('--hostile', type=int, default=3000,
                        help='NoValidHost of made-up flavors in the flood')
    parser.add_argument('--output',
                        default='bench-results/notifications.json')
    args = parser.parse_args(argv)
    figures = dict(hosts=args.hosts, flavors=args.flavors,
                   **measure(args.hosts, args.flavors, args.events,
                             args.burst, args.flood, args.hostile))
    print(json.dumps(figures, indent=2), flush=True)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump(figures, out, indent=2)


if __name__ == '__main__':
    main()
