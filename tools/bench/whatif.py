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
"""What a what-if costs the worker, at 10,000 hosts x 1,000 flavors.

Over the synthetic cloud of tools/bench/synthetic_cloud.py, figures in
bench-results/whatif.json: the worker's CPU and wall time (best of 3)
of a what-if that drains 50 hosts with their servers staying, the same
with every server evacuated (servers made for each drained host from the
cloud's CPU flavors, as many as its vCPU usage holds, up to 40 a host:
each moved by the set check's scheduler simulation), 20 hosts added
like an existing GPU host, and an aggregate's VCPU ratio changed; and,
for scale, one engine.compute of the cloud as a refresh runs it, whose
group fits the what-ifs reuse where the copy did not change them.

    python -m tools.bench.whatif [--hosts 10000] [--flavors 1000]
"""

import argparse
import json
import os
import sys
import time

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.fit import vector_fit
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.common import config
from flavor_exporter.publication import whatif as docs
from flavor_exporter.worker import whatif
from tools.bench import synthetic_cloud

#: Servers made for one drained host at most.
PER_HOST = 40


def _timed(function, rounds=3):
    best = None
    for _ in range(rounds):
        wall, cpu = time.monotonic(), time.process_time()
        result = function()
        spent = (time.process_time() - cpu, time.monotonic() - wall)
        best = spent if best is None or spent[0] < best[0] else best
    return result, best


def _drained(report, count):
    """count enabled CPU hosts with servers on them, spread over zones."""
    found = []
    for host in report.hosts[::7]:
        root = host.root
        if host.enabled and host.up and root is not None and \
                not host.gpu_pools and len(host.providers) == 1 and \
                root.usages.get('VCPU', 0) >= 4:
            found.append(host)
        if len(found) == count:
            return found
    raise SystemExit('not %d such hosts' % count)


def _servers(report, hosts):
    """{host: [server dict]}: CPU flavors filling each host's vCPU usage."""
    flavors = [r.flavor for r in report.flavors
               if r.request is not None and not r.gpu and r.flavor.is_public
               and not r.flavor.extra_specs and r.total][:20]
    listed = {}
    for host in hosts:
        left = host.root.usages.get('VCPU', 0)
        servers = []
        for index in range(PER_HOST):
            flavor = flavors[(index + len(listed)) % len(flavors)]
            if flavor.vcpus > left:
                break
            left -= flavor.vcpus
            servers.append({
                'id': '%s-%d' % (host.name, index), 'name': 'vm',
                'tenant_id': 'p', 'flavor': {
                    'original_name': flavor.name, 'vcpus': flavor.vcpus,
                    'ram': flavor.ram, 'disk': flavor.disk,
                    'ephemeral': flavor.ephemeral, 'swap': flavor.swap,
                    'extra_specs': {}}})
        listed[host.name] = servers
    return listed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--flavors', type=int, default=1000)
    parser.add_argument('--output', default='bench-results/whatif.json')
    args = parser.parse_args(argv)
    snapshot = synthetic_cloud.Cloud(args.hosts, args.flavors).snapshot()
    options = engine.Options(aliases=pci_alias.parse_aliases(
        synthetic_cloud.ALIASES))
    # As a refresh computes it: its group fits kept for the what-ifs.
    fits = vector_fit.Fits()
    report, (cpu, wall) = _timed(
        lambda: engine.compute(snapshot, options, fits), rounds=1)
    results = {'hosts': args.hosts, 'flavors': args.flavors,
               'load_average_before': os.getloadavg(),
               'refresh_engine': {'cpu_s': round(cpu, 2),
                                  'wall_s': round(wall, 2)}}
    print('engine', json.dumps(results['refresh_engine']), flush=True)
    config.parse_args([], default_config_files=[])
    answers = whatif.Whatif(config.CONF, options)
    drained = _drained(report, 50)
    names = [host.name for host in drained]
    listed = _servers(report, drained)
    gpu_host = next(h for h in report.hosts if h.gpu_pools and h.enabled)
    aggregate = next(a.name for h in report.hosts for a in h.aggregates
                     if 'availability_zone' not in (a.metadata or {}))
    cases = {
        'drain_50_servers_stay': ({'drain': [{'hosts': names}]}, {}),
        'drain_50_evacuate': ({'drain': [{'hosts': names,
                                          'servers': 'evacuate'}]}, listed),
        'add_20_like_a_gpu_host': ({'add': [{'like': gpu_host.name,
                                             'count': 20}]}, {}),
        'aggregate_vcpu_ratio': ({'change': [{
            'aggregate': aggregate, 'allocation_ratio': {'VCPU': 8.0}}]},
            {})}
    for label, (body, servers) in cases.items():
        answer, (cpu, wall) = _timed(lambda: answers.answer(
            report, snapshot, docs.parse(body), servers, fits))
        evacuation = answer[docs.WHATIF]['evacuation']
        results[label] = {
            'cpu_s': round(cpu, 2), 'wall_s': round(wall, 2),
            'flavors_answered': len(answer[docs.WHATIF]['results'][
                'flavors']),
            'servers_evacuated': evacuation['servers'] if evacuation else 0,
            'servers_placed': evacuation['placed'] if evacuation else 0,
            'answer_bytes': len(json.dumps(answer))}
        print(label, json.dumps(results[label]), flush=True)
    os.makedirs(os.path.dirname(args.output) or '.', exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump(results, out, indent=2)
    print('written to %s' % args.output)


if __name__ == '__main__':
    sys.exit(main())
