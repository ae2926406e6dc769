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
"""The seed's list alone and beside a crowd of requests for the worker.

``flavor-exporter-api`` over memcached, no worker, serving a 500-flavor
cloud: wrk's p50 and p99 of ``GET /v2/flavors/`` alone, then beside a
crowd of clients (wrk with a Lua script, 32 connections) asking what only
the worker answers (made-up projects, new set checks), with the share
per client ([section] new_per_client) as shipped and unbounded.
"""

import argparse
import json
import os
import subprocess
import time

from tools.bench import api as bench_api

SEED_LIST = '/v2/flavors/'


def crowd(duration, script_text, section, shares=(30, 1000000)):
    """{'new_per_client=N': {alone, beside_the_crowd, crowd}} per share."""
    bench = bench_api.Bench(argparse.Namespace(
        flavors=500, workers=2, duration=duration, rounds=1,
        concurrency=[16], slow=0, slow_requests=0, cpu_requests=0,
        threads=None))
    bench.prepare()
    script = os.path.join(bench.workdir, 'crowd.lua')
    with open(script, 'w') as f:
        f.write(script_text)
    with open(bench.config_file) as f:
        base = f.read()
    results = {}
    try:
        for share in shares:
            with open(bench.config_file, 'w') as f:
                f.write(base + '[%s]\nnew_per_client = %d\n'
                        % (section, share))
            process, port = bench.serve('api', SEED_LIST)
            try:
                alone = bench_api.run_wrk(port, SEED_LIST, 16, duration)
                crowding = subprocess.Popen(
                    ['wrk', '-t2', '-c32', '-d%ds' % (duration + 4),
                     '--latency', '--timeout', '10s', '-s', script,
                     'http://127.0.0.1:%d' % port],
                    stdout=subprocess.PIPE, text=True)
                time.sleep(2)
                beside = bench_api.run_wrk(port, SEED_LIST, 16, duration)
                crowd_figures = bench_api.parse_wrk(
                    crowding.communicate()[0])
            finally:
                bench.stop(process)
            label = 'new_per_client=%d' % share
            results[label] = {'alone': alone, 'beside_the_crowd': beside,
                              'crowd': crowd_figures}
            print(label, json.dumps(results[label]), flush=True)
    finally:
        bench.close()
    return results
