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
"""Benchmark: what losing one of three memcached servers costs readers.

Publishes D documents over three real memcached servers, then reads the
pointer, the manifest and one document in a loop, as an API process does
for a new generation, and reports p50/p99/max latency and failed reads:
with every server up, with one hung (SIGSTOP: each attempt waits for
socket_timeout) before and after the publisher wrote the lost parts again,
and with one dead (connection refused).

    python -m tools.bench.memcached_loss [--documents 200] [--seconds 10]
"""

import argparse
import datetime
import json
import os
import signal
import time

from flavor_exporter.publication import cache
from flavor_exporter.publication import publisher
from flavor_exporter.publication import reader as reader_mod
from testcloud import loopback

T0 = datetime.datetime(2027, 1, 15, tzinfo=datetime.timezone.utc)


def backend(servers, args):
    return cache.MemcachedBackend(servers,
                                  socket_timeout=args.socket_timeout,
                                  dead_retry=args.dead_retry)


def measure(reader, documents, seconds, label):
    latencies = []
    failed = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.monotonic()
        try:
            manifest = reader.manifest(reader.current())
            reader.read(manifest['doc%d' % (len(latencies) % documents)])
        except cache.CacheError:
            failed += 1
        latencies.append(time.monotonic() - started)
    latencies.sort()

    def quantile(q):
        return round(latencies[min(len(latencies) - 1,
                                   int(q * len(latencies)))] * 1000, 2)
    return {'phase': label, 'reads': len(latencies), 'failed': failed,
            'p50_ms': quantile(0.5), 'p99_ms': quantile(0.99),
            'max_ms': round(latencies[-1] * 1000, 1)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--documents', type=int, default=200)
    parser.add_argument('--seconds', type=float, default=10)
    parser.add_argument('--socket-timeout', type=float, default=1.0)
    parser.add_argument('--dead-retry', type=int, default=5)
    parser.add_argument('--output',
                        default='bench-results/memcached_loss.json')
    args = parser.parse_args(argv)
    servers = [loopback.MemcachedFixture() for _ in range(3)]
    try:
        for server in servers:
            server.setUp()
        addresses = [server.servers[0] for server in servers]
        writer = publisher.Publisher(backend(addresses, args), 'bench',
                                     3600)
        reader = reader_mod.Reader(backend(addresses, args), 'bench')
        documents = {'doc%d' % i: b'{"n":%d}' % i
                     for i in range(args.documents)}
        pointer = writer.publish(documents, {}, T0)
        figures = [measure(reader, args.documents, args.seconds,
                           'all up')]
        servers[1].process.send_signal(signal.SIGSTOP)
        figures.append(measure(reader, args.documents, args.seconds,
                               'one hung, parts not yet rewritten'))
        pointer = writer.publish(documents, {}, T0, rewrite=True,
                                 base=pointer)
        figures.append(measure(reader, args.documents, args.seconds,
                               'one hung, parts rewritten'))
        servers[1].process.send_signal(signal.SIGCONT)
        servers[1].stop()
        writer.publish(documents, {}, T0, rewrite=True, base=pointer)
        figures.append(measure(reader, args.documents, args.seconds,
                               'one dead, parts rewritten'))
    finally:
        for server in servers:
            if server.process is not None:
                server.process.send_signal(signal.SIGCONT)
            server.cleanUp()
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump(figures, out, indent=2)
    for row in figures:
        print('memcached_loss %(phase)-34s %(reads)6d reads %(failed)5d '
              'failed  p50 %(p50_ms)6.2f ms  p99 %(p99_ms)7.2f ms  max '
              '%(max_ms)7.1f ms' % row)


if __name__ == '__main__':
    main()
