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
"""What answering projects costs, at 10,000 hosts x 1,000 flavors.

Two measurements, figures in bench-results/projects.json:

- cost: over the synthetic cloud of tools/bench/synthetic_cloud.py (its
  five owner aggregates named to the tenant filters for the isolation
  case),
  the worker's CPU per refresh for the project parts of a generation,
  per project the CPU and memcached bytes of its quota part (5,000
  projects published to an in-memory cache and counted), the API's CPU
  to join one project's document (once per project and generation; the
  memo keeps it), and the upstream calls per quota reading;
- crowd: ``flavor-exporter-api`` over memcached, no worker, serving the
  synthetic cloud: wrk's p50 and p99 of ``GET /v2/flavors/`` alone, then
  beside a crowd of clients asking about made-up project ids (wrk with a
  Lua script, 32 connections), with the share per client
  ([projects] new_per_client) as shipped and unbounded.

    python -m tools.bench.projects [--hosts 10000] [--flavors 1000]
        [--projects 5000] [--duration 10]
"""

import argparse
import json
import os
import sys
import time

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.filters import tenancy
from flavor_exporter.capacity.quota import projects as projects_mod
from flavor_exporter.capacity.quota import quota
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import projects as project_docs
from flavor_exporter.publication import publisher
from flavor_exporter.publication import render
from flavor_exporter.worker import projects as worker_projects
from tools.bench import crowd as crowd_mod
from tools.bench import synthetic_cloud

CROWD_SCRIPT = '''
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/v3/projects/bogus" ..
                    math.random(1, 1000000000) .. "/flavors/")
end
'''


def _report(hosts, flavors, isolation):
    cloud = synthetic_cloud.Cloud(hosts, flavors)
    for aggregate in cloud.aggregates:
        owner = aggregate['metadata'].get('owner')
        if owner:
            aggregate['metadata']['filter_tenant_id'] = 'proj-' + owner
    snapshot = cloud.snapshot()
    seen = {}
    for host in snapshot.hosts:
        for aggregate in host.aggregates:
            seen[aggregate.name] = aggregate
    snapshot.aggregates = list(seen.values())
    options = engine.Options(aliases=pci_alias.parse_aliases(
        synthetic_cloud.ALIASES), tenancy=isolation)
    return engine.compute(snapshot, options)


def _cpu(function):
    started = time.process_time()
    result = function()
    return result, time.process_time() - started


def cost(args):
    figures = {}
    counting = quota.Counting()
    reading = quota.ProjectQuota(
        quota.DB, limits={'instances': 20, 'cores': 80, 'ram': 204800},
        in_use={'instances': 3, 'cores': 12, 'ram': 24576},
        read_at=time.time())
    for label, isolation in (('isolation_off', tenancy.OFF),
                             ('host_filter', tenancy.TenantIsolation(
                                 host_filter=True))):
        report = _report(args.hosts, args.flavors, isolation)
        docs, refresh_cpu = _cpu(lambda: worker_projects.generation_documents(
            counting, report, isolation))
        body, prints, identity = worker_projects.footprints(counting, report)
        backend = cache.MemoryBackend()
        store = publisher.Publisher(backend, 'bench', 0)
        started = time.process_time()
        for i in range(args.projects):
            part = project_docs.quota_document(
                'project-%05d' % i, reading,
                projects_mod.headrooms(reading, prints), identity)
            store.publish_project('project-%05d' % i, {
                pub.QUOTA_READ_AT: reading.read_at,
                project_docs.FOOTPRINTS_IDENTITY: identity}, 900, part)
        per_project_cpu = (time.process_time() - started) / args.projects
        stored = sum(len(key) + len(value) for key, (value, _, _)
                     in backend._items.items())
        listed = pub.decode(render.list_document(report))
        patterns = pub.decode(docs[pub.PROJECT_PATTERNS])
        pattern = project_docs.pattern_of(patterns, 'project-00001')
        capacity = (pub.decode(docs[pub.project_capacity(pattern)])
                    if pattern else None)
        access = pub.decode(render.access_document(report))
        joins = [_cpu(lambda: pub.encode(project_docs.join(
            render.pointer_of(report), listed,
            pub.decode(docs[pub.FOOTPRINTS]), patterns, capacity,
            pub.decode(part),
            project_docs.visible_to(access, 'project-00001'), False)))
            for _ in range(5)]
        served = joins[0][0]
        join_cpu = min(cpu for _, cpu in joins)
        figures[label] = {
            'patterns': sum(1 for name in docs
                            if name.startswith('projects/capacity/')),
            'footprints': len(prints),
            'generation_part_bytes': sum(map(len, docs.values())),
            'refresh_cpu_seconds': round(refresh_cpu, 3),
            'quota_part_bytes': len(part),
            'per_project_worker_cpu_ms': round(per_project_cpu * 1000, 2),
            'memcached_bytes_per_project': round(stored / args.projects),
            'memcached_mb_for_all_projects': round(stored / 2 ** 20, 1),
            'join_cpu_ms': round(join_cpu * 1000, 1),
            'served_document_bytes': len(served),
        }
        print(label, json.dumps(figures[label]), flush=True)
    figures['upstream_calls_per_quota_reading'] = {
        'nova_legacy': 1,
        'unified_limits': '3 (+2 per [projects] max_age for the '
                          'registered limits and the service, shared by '
                          'every project)'}
    return figures


def crowd(args):
    """p50/p99 of the seed's list alone and beside a crowd of projects."""
    return crowd_mod.crowd(args.duration, CROWD_SCRIPT, 'projects')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--flavors', type=int, default=1000)
    parser.add_argument('--projects', type=int, default=5000)
    parser.add_argument('--duration', type=int, default=10)
    parser.add_argument('--output', default='bench-results/projects.json')
    args = parser.parse_args(argv)
    report = {'hosts': args.hosts, 'flavors': args.flavors,
              'projects': args.projects,
              'load_average_before': os.getloadavg(),
              'cost': cost(args), 'crowd': crowd(args)}
    os.makedirs(os.path.dirname(args.output) or '.', exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump(report, out, indent=2)
    print('written to %s' % args.output)


if __name__ == '__main__':
    sys.exit(main())
