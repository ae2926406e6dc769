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
"""What a set check costs, at 10,000 hosts x 1,000 flavors.

Over the synthetic cloud of tools/bench/synthetic_cloud.py (25 host
models, full and empty hosts, aggregates no flavor reads, private
flavors), figures in bench-results/checks.json:

- compute: the worker's CPU for the arrays it keeps per report
  (set_check/columns.Columns, once per refresh) and, per set of 50 servers, the
  CPU of the check itself: mixed CPU and GPU flavors as successive
  requests, the same as multi-creates, under an anti-affinity group, and
  a GPU set under an affinity group that stops when its host is full and
  looks for alternatives (best of 3 each);
- round trip: POST /v3/checks through the API application, the cache
  (memcached) and the worker's answering thread as deployed
  ([checks] poll_interval as shipped), for 20 new sets: the wall time
  from the request to the answer, p50 and max; and the same set asked
  again (served from the cache);
- crowd: the seed's list alone and beside a crowd of new checks nobody
  answers (tools/bench/crowd.py), with [checks] new_per_client as
  shipped and unbounded.

    python -m tools.bench.checks [--hosts 10000] [--flavors 1000]
        [--duration 10]
"""

import argparse
import json
import os
import statistics
import sys
import threading
import time
import types

import webtest

from flavor_exporter.api import app
from flavor_exporter.capacity import engine
from flavor_exporter.capacity.planning.set_check import check as set_check
from flavor_exporter.capacity.planning.set_check import columns as set_columns
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.common import clouds
from flavor_exporter.common import config
from flavor_exporter.common import set_request
from flavor_exporter.publication import publisher
from flavor_exporter.publication import render
from flavor_exporter.worker import checks
from testcloud import loopback
from tools.bench import crowd
from tools.bench import synthetic_cloud

CROWD_SCRIPT = '''
math.randomseed(os.time())
request = function()
  return wrk.format("POST", "/v3/checks",
                    {["Content-Type"] = "application/json"},
                    '{"servers": [{"flavor": "f' ..
                    math.random(1, 1000000000) .. '", "count": 2}]}')
end
'''


def _cpu(function, rounds=3):
    best = None
    for _ in range(rounds):
        started = time.process_time()
        result = function()
        spent = time.process_time() - started
        best = spent if best is None else min(best, spent)
    return result, best


def _sets(report):
    """{label: SetRequest} of 50 servers each, of the cloud's flavors."""
    usable = [r for r in report.flavors if r.request is not None
              and r.flavor.is_public and r.available]
    cpu = [r.flavor.name for r in usable if not r.gpu][:8]
    gpu = [r.flavor.name for r in usable if r.gpu][:2]
    mixed = tuple(set_request.Wanted(name, 5) for name in gpu + cpu)
    return {
        'successive_mixed': set_request.SetRequest(mixed),
        'multi_create_mixed': set_request.SetRequest(tuple(
            set_request.Wanted(w.flavor, w.count, w.count) for w in mixed)),
        'anti_affinity': set_request.SetRequest(
            (set_request.Wanted(cpu[0], 50),),
            group=set_request.ServerGroup('anti-affinity')),
        # One host takes them all, or the rest stop: then the flavors
        # of the same GPU that would fit are looked for.
        'affinity_stops_with_alternatives': set_request.SetRequest(
            (set_request.Wanted(gpu[0], 50),),
            group=set_request.ServerGroup('affinity')),
    }


def compute(report, options, settings):
    figures = {}
    columns, columns_cpu = _cpu(lambda: set_columns.Columns(report, settings))
    figures['columns_cpu_ms_per_report'] = round(columns_cpu * 1000, 1)
    for label, wanted in _sets(report).items():
        answer, spent = _cpu(lambda: set_check.check(
            report, options, settings, columns, wanted))
        figures[label] = {
            'cpu_ms': round(spent * 1000, 1),
            'started': sum(len(o.started) for o in answer.outcomes),
            'fits': answer.fits,
            'alternatives': sum(len(o.alternatives)
                                for o in answer.outcomes)}
        print(label, json.dumps(figures[label]), flush=True)
    return figures


def round_trip(conf, report, options, memcached):
    """Wall times of POST /v3/checks through API, memcached and worker."""
    conf.set_override('auth_strategy', 'noauth')
    conf.set_override('memcache_servers', memcached.servers,
                      group='document_cache')
    store = publisher.Publisher.from_conf(conf)
    docs, pointer = render.documents(report)
    store.publish(docs, pointer, report.collected_at)
    refresher = types.SimpleNamespace(last_report=report, client=None)
    worker = checks.CheckAnswers(conf, store, refresher,
                                 clouds.default(conf), options)
    stop = threading.Event()

    def answer():
        while not stop.wait(conf.checks.poll_interval):
            worker.answer()
    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    api = webtest.TestApp(app.setup_app(conf))
    names = [r.flavor.name for r in report.flavors
             if r.request is not None and r.flavor.is_public][:40]
    walls = []
    try:
        for i in range(20):
            body = {'servers': [{'flavor': names[(i + k) % len(names)],
                                 'count': 5} for k in range(10)]}
            started = time.monotonic()
            api.post_json('/v3/checks', body)
            walls.append(time.monotonic() - started)
        started = time.monotonic()
        api.post_json('/v3/checks', body)
        again = time.monotonic() - started
    finally:
        stop.set()
        thread.join()
    return {'new_set_p50_ms': round(statistics.median(walls) * 1000, 1),
            'new_set_max_ms': round(max(walls) * 1000, 1),
            'same_set_again_ms': round(again * 1000, 1),
            'poll_interval_s': conf.checks.poll_interval}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--flavors', type=int, default=1000)
    parser.add_argument('--duration', type=int, default=10)
    parser.add_argument('--output', default='bench-results/checks.json')
    args = parser.parse_args(argv)
    snapshot = synthetic_cloud.Cloud(args.hosts, args.flavors).snapshot()
    options = engine.Options(aliases=pci_alias.parse_aliases(
        synthetic_cloud.ALIASES))
    started = time.process_time()
    report = engine.compute(snapshot, options)
    print('engine: %.1f CPU s' % (time.process_time() - started))
    config.parse_args([], default_config_files=[])
    conf = config.CONF
    settings = checks.scheduler_settings(conf)
    results = {'hosts': args.hosts, 'flavors': args.flavors,
               'load_average_before': os.getloadavg(),
               'compute': compute(report, options, settings)}
    with loopback.MemcachedFixture() as memcached:
        results['round_trip'] = round_trip(conf, report, options,
                                           memcached)
    print('round_trip', json.dumps(results['round_trip']))
    results['crowd'] = crowd.crowd(args.duration, CROWD_SCRIPT, 'checks')
    os.makedirs(os.path.dirname(args.output) or '.', exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump(results, out, indent=2)
    print('written to %s' % args.output)


if __name__ == '__main__':
    sys.exit(main())
