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
"""What fragmentation adds to a refresh, and what a defrag search costs.

Over the synthetic cloud of tools/bench/synthetic_cloud.py (10,000
hosts x 1,000 flavors by default), figures in bench-results/defrag.json:

- the fragmentation figures of every flavor and GPU type as a refresh
  computes them (fragmentation.compute and gpu_figures on the refresh's
  report), CPU and wall, best of 3, beside the engine.compute they are
  part of;
- a defrag search (defrag.plan, its default bounds: 8 moves, 8 s) for
  the 4-A100 flavor with the most fragmented, the servers of the hosts
  the worker would read (worker.defrag.hosts_to_read, 20) made from the
  cloud's CPU flavors as their vCPU usage holds (up to 40 a host), with
  their allocations on the root provider; the GPU servers of those hosts
  (PCI devices) never move. The reading of the servers (one Nova and
  one Placement call per host) is not in the figure.

    python -m tools.bench.defrag [--hosts 10000] [--flavors 1000]
"""

import argparse
import json
import os
import sys
import time

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.fit import fragmentation
from flavor_exporter.capacity.planning import defrag
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.worker import defrag as worker_defrag
from tools.bench import synthetic_cloud

PER_HOST = 40


def _timed(function, rounds=3):
    best = None
    for _ in range(rounds):
        wall, cpu = time.monotonic(), time.process_time()
        result = function()
        spent = (time.process_time() - cpu, time.monotonic() - wall)
        best = spent if best is None or spent[0] < best[0] else best
    return result, best


def _servers(report, names):
    """[defrag.Server] filling each host's vCPU usage with CPU flavors."""
    flavors = [r.flavor for r in report.flavors
               if r.request is not None and not r.gpu and r.flavor.is_public
               and not r.flavor.extra_specs and r.total][:20]
    by_name = {h.name: h for h in report.hosts}
    servers = []
    for number, name in enumerate(names):
        root = by_name[name].root
        left = root.usages.get('VCPU', 0)
        for index in range(PER_HOST):
            flavor = flavors[(index + number) % len(flavors)]
            if flavor.vcpus > left:
                break
            left -= flavor.vcpus
            servers.append(defrag.Server(
                '%s-%d' % (name, index), 'vm', name, flavor,
                {root.uuid: {'VCPU': flavor.vcpus, 'MEMORY_MB': flavor.ram,
                             'DISK_GB': flavor.disk}}))
    return servers


def _zone_names(report):
    zones = sorted({h.availability_zone for h in report.hosts
                    if h.availability_zone})
    return zones + ([None] if any(h.availability_zone is None
                                  for h in report.hosts) else [])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--flavors', type=int, default=1000)
    parser.add_argument('--output', default='bench-results/defrag.json')
    args = parser.parse_args(argv)
    snapshot = synthetic_cloud.Cloud(args.hosts, args.flavors).snapshot()
    options = engine.Options(aliases=pci_alias.parse_aliases(
        synthetic_cloud.ALIASES))
    report, (cpu, wall) = _timed(lambda: engine.compute(snapshot, options),
                                 rounds=1)
    results = {'hosts': args.hosts, 'flavors': args.flavors,
               'load_average_before': os.getloadavg(),
               'refresh_engine': {'cpu_s': round(cpu, 2),
                                  'wall_s': round(wall, 2)}}
    zone_names = _zone_names(report)

    def fragment():
        fragmentation.compute(report, zone_names, options,
                              engine._request_key)
        fragmentation.gpu_figures(report)
    _, (cpu, wall) = _timed(fragment)
    fragmented = [r for r in report.flavors
                  if r.fragmentation and r.fragmentation.fragmented]
    results['fragmentation'] = {
        'cpu_s': round(cpu, 3), 'wall_s': round(wall, 3),
        'flavors_fragmented': len(fragmented),
        'instances_fragmented': sum(r.fragmentation.fragmented
                                    for r in fragmented)}
    print('fragmentation', json.dumps(results['fragmentation']), flush=True)
    four = [r for r in report.flavors
            if r.gpu and r.gpu[1] == 4 and r.fragmentation]
    if not four:
        raise SystemExit('no 4-GPU flavor in the synthetic cloud')
    target = max(four, key=lambda r: (r.fragmentation.fragmented,
                                      r.flavor.name))
    names = worker_defrag.hosts_to_read(report, target, 20)
    servers = _servers(report, names)
    found, (cpu, wall) = _timed(lambda: defrag.plan(
        report, options, target, servers, 1), rounds=1)
    results['defrag_4_gpu'] = {
        'flavor': target.flavor.name, 'gpus': target.gpu,
        'available': target.available,
        'fragmented': target.fragmentation.fragmented,
        'hosts_read': len(names), 'servers': len(servers),
        'cpu_s': round(cpu, 2), 'wall_s': round(wall, 2),
        'found': found.found, 'moves': len(found.moves),
        'proven_minimal': found.proven_minimal, 'reason': found.reason,
        'nodes': found.nodes, 'cut': found.cut, 'never_moved': found.pinned}
    print('defrag', json.dumps(results['defrag_4_gpu']), flush=True)
    os.makedirs(os.path.dirname(args.output) or '.', exist_ok=True)
    with open(args.output, 'w') as stream:
        json.dump(results, stream, indent=2)
    return 0


if __name__ == '__main__':
    sys.exit(main())
