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

"""Benchmark of the capacity engine and rendering on a synthetic cloud.

A refresh must stay cheap next to the 150 s interval on the largest clouds
we target (10,000 hosts x 1,000 flavors); this measures engine time (without
tracemalloc), then peak memory in a second run, and render time, for H
hosts x F flavors of the cloud fakecloud serves (synthetic_cloud: 25 host
models, aggregates per cell, rack and owner that no flavor reads, empty
and full hosts, private flavors), as the Placement source would read it.
``--tidy`` measures the older, tidier cloud of this module instead (six
host models, one aggregate), which the publish benchmark still uses.

    python -m tools.bench.engine [--sizes 1000x100,10000x1000] [--render]

Then again with each host's NUMA cells read from a cell database
(synthetic_numa) and the flavors with a guest NUMA topology counted with
them: the read (first and again), and the compute (first and again, with
the counts of unchanged host states kept, as a worker keeps them).
"""

import argparse
import dataclasses
import json
import os
import random
import tempfile
import time
import tracemalloc

import sqlalchemy

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.filters import host_reads
from flavor_exporter.capacity.fit import host_groups
from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.capacity.request import request as request_mod
from flavor_exporter.publication import render
from flavor_exporter.worker import cell_databases
from tools.bench import synthetic_cloud
from tools.bench import synthetic_numa

ALIASES = ['{"name": "V100", "vendor_id": "10de", "product_id": "1db4"}',
           '{"name": "A100", "vendor_id": "10de", "product_id": "20b0"}']
PCI_V100 = 'CUSTOM_PCI_10DE_1DB4'
DEFAULT_SIZES = ((1000, 100), (1000, 1000), (10000, 100), (10000, 1000))


def _root(i, vcpus, ram_gb, disk, pcpus=0, traits=()):
    inv = model.Inventory
    inventories = {
        'VCPU': inv(vcpus, max_unit=vcpus, allocation_ratio=4.0),
        'MEMORY_MB': inv(ram_gb * 1024, reserved=4096,
                         max_unit=ram_gb * 1024),
        'DISK_GB': inv(disk, max_unit=disk)}
    if pcpus:
        inventories['PCPU'] = inv(pcpus, max_unit=pcpus)
    return model.Provider('rp-%d' % i, 'node-%d.example.org' % i,
                          inventories=inventories, traits=frozenset(traits))


def _spread(rng, provider, share):
    """Usages: a random part (up to share) of each class's capacity."""
    provider.usages = {
        rc: rng.randint(0, int(inventory.capacity * share))
        for rc, inventory in provider.inventories.items()}


def _host(i, rng):
    """One host of a random model, with spread usages."""
    kind = rng.choices(('cpu', 'big', 'pinned', 'pci', 'vgpu', 'legacy'),
                       weights=(40, 20, 10, 10, 10, 10))[0]
    pools = []
    if kind == 'cpu':
        root = _root(i, 64, 256, 2000, traits=('HW_CPU_X86_AVX2',))
    elif kind == 'big':
        root = _root(i, 128, 1024, 4000,
                     traits=('HW_CPU_X86_AVX2', 'HW_CPU_X86_AVX512F'))
    elif kind == 'pinned':
        root = _root(i, 16, 512, 2000, pcpus=48)
    else:
        root = _root(i, 96, 768, 4000)
    _spread(rng, root, 0.9)
    providers = [root]
    if kind == 'pci':
        for d in range(4):
            providers.append(model.Provider(
                'rp-%d-pci-%d' % (i, d), 'pci', parent_uuid=root.uuid,
                inventories={PCI_V100: model.Inventory(1)},
                usages={PCI_V100: rng.randint(0, 1)}))
    elif kind == 'vgpu':
        for d in range(2):
            child = model.Provider(
                'rp-%d-vgpu-%d' % (i, d), 'pgpu', parent_uuid=root.uuid,
                inventories={'VGPU': model.Inventory(8, max_unit=8)})
            _spread(rng, child, 1.0)
            providers.append(child)
    elif kind == 'legacy':
        pools.append(model.GpuPool('A100', 8, used=rng.randint(0, 8)))
    state = rng.random()
    return model.Host(
        'host-%d' % i, root.name,
        enabled=state >= 0.02, up=not 0.02 <= state < 0.03,
        availability_zone='az%d' % (1 + i % 3),
        aggregates=([model.Aggregate('ssd', {'ssd': 'true'})]
                    if kind in ('big', 'pinned') else []),
        providers=providers, gpu_pools=pools)


# Flavor kinds and how often each comes up; GPU_KINDS ask for a GPU.
KINDS = {'cpu': 55, 'ssd': 10, 'pinned': 10, 'pci': 8, 'vgpu': 8,
         'legacy': 5, 'groups': 4}
GPU_KINDS = ('pci', 'vgpu', 'legacy')


def _flavor(j, rng, kinds=tuple(KINDS)):
    specs = {}
    kind = rng.choices(kinds, weights=[KINDS[k] for k in kinds])[0]
    vcpus = rng.choice((1, 2, 4, 8, 16, 32))
    ram = vcpus * rng.choice((1024, 2048, 4096, 8192))
    disk = rng.choice((10, 20, 50, 100, 200))
    if kind == 'ssd':
        specs['aggregate_instance_extra_specs:ssd'] = 'true'
        specs['trait:HW_CPU_X86_AVX512F'] = 'required'
    elif kind == 'pinned':
        specs['hw:cpu_policy'] = 'dedicated'
    elif kind == 'pci':
        specs['pci_passthrough:alias'] = 'V100:%d' % rng.choice((1, 2))
    elif kind == 'vgpu':
        specs['resources:VGPU'] = str(rng.choice((1, 2, 4)))
    elif kind == 'legacy':
        specs['pci_passthrough:alias'] = 'A100:%d' % rng.choice((1, 2))
    elif kind == 'groups':
        specs.update({'resources1:VGPU': '1', 'resources2:VGPU': '1',
                      'group_policy': rng.choice(('none', 'isolate'))})
    return model.Flavor('f-%d' % j, '%s-%04d' % (kind, j), vcpus=vcpus,
                        ram=ram, disk=disk, extra_specs=specs)


def synthetic_snapshot(hosts, flavors, seed=1, gpu_only=False):
    """hosts x flavors; gpu_only: every flavor asks for a GPU."""
    rng = random.Random(seed)
    kinds = GPU_KINDS if gpu_only else tuple(KINDS)
    return model.Snapshot('placement',
                          [_flavor(j, rng, kinds) for j in range(flavors)],
                          [_host(i, rng) for i in range(hosts)])


def _options():
    return engine.Options(aliases=pci_alias.parse_aliases(ALIASES))


def documents(hosts, flavors, gpu_only=False):
    """(documents, pointer) of a synthetic cloud, as the worker renders."""
    report = engine.compute(
        synthetic_snapshot(hosts, flavors, gpu_only=gpu_only), _options())
    return render.documents(report)


def _groups(snapshot, options):
    """(host groups, groups if every aggregate key were read, requests)."""
    requests = []
    for flavor in snapshot.flavors:
        try:
            requests.append(request_mod.build_request(flavor,
                                                      options.aliases))
        except request_mod.InvalidExtraSpec:
            pass
    zones = sorted({h.availability_zone for h in snapshot.hosts})
    every_key = {key for host in snapshot.hosts
                 for aggregate in host.aggregates
                 for key in aggregate.metadata}
    return (len(host_groups.group_hosts(snapshot.hosts, zones,
                                        host_reads.metadata_keys(
                                            requests, options,
                                            snapshot.hosts))),
            len(host_groups.group_hosts(snapshot.hosts, zones, every_key)),
            len({engine._request_key(r) for r in requests}))


def _cell_database(cloud, directory):
    """A cell database (SQLite) holding the NUMA cells of cloud's hosts."""
    url = 'sqlite:///%s' % os.path.join(directory, 'cell1.sqlite')
    db = sqlalchemy.create_engine(url)
    with db.begin() as connection:
        connection.execute(sqlalchemy.text(
            'CREATE TABLE compute_nodes (host TEXT, hypervisor_hostname TEXT,'
            ' numa_topology TEXT, cpu_allocation_ratio FLOAT,'
            ' ram_allocation_ratio FLOAT, stats TEXT, pci_stats TEXT,'
            ' deleted INTEGER DEFAULT 0)'))
        connection.execute(sqlalchemy.text(
            'INSERT INTO compute_nodes (host, hypervisor_hostname, '
            'numa_topology, cpu_allocation_ratio, ram_allocation_ratio) '
            'VALUES (:h, :n, :t, :c, :r)'), [
                dict(zip('hntcr', row)) for row in synthetic_numa.rows(cloud)])
    db.dispose()
    return url


def _with_numa(cloud, snapshot, options, figures):
    """Figures of the NUMA part: the cell database read, then compute."""
    with tempfile.TemporaryDirectory() as directory:
        reader = cell_databases.CellDatabases(
            [_cell_database(cloud, directory)])
        for run in ('cold', 'warm'):
            started = time.perf_counter()
            problems = []
            reader.attach(snapshot.hosts, problems)
            # A database the reader refuses would be measured as nothing.
            assert not problems, problems[:3]
            figures['cell_read_%s_seconds' % run] = round(
                time.perf_counter() - started, 3)
    figures['numa_host_states'] = len({host.numa for host in snapshot.hosts})
    options = dataclasses.replace(options,
                                  numa=numa_fit.Rules(enabled=True))
    counts = numa_fit.Counts(options.numa)
    started, cpu = time.perf_counter(), time.process_time()
    report = engine.compute(snapshot, options, numa_counts=counts)
    figures['numa_compute_seconds'] = round(time.perf_counter() - started, 3)
    figures['numa_compute_cpu_seconds'] = round(time.process_time() - cpu,
                                                3)
    # A worker's next refresh: the counts of unchanged host states kept.
    cpu = time.process_time()
    engine.compute(snapshot, options, numa_counts=counts)
    figures['numa_warm_compute_cpu_seconds'] = round(
        time.process_time() - cpu, 3)
    figures['numa_flavors'] = sum(1 for c in report.flavors
                                  if c.request and c.request.numa)
    figures['numa_flavors_unmodelled'] = sum(
        1 for c in report.flavors if c.request and c.request.numa
        and any('NUMATopologyFilter' in line
                for line in c.request.unsupported))
    return options


def measure(hosts, flavors, memory=True, rendered=False, tidy=False,
            numa=False):
    cloud = None
    if tidy:
        snapshot = synthetic_snapshot(hosts, flavors)
        options = _options()
    else:
        cloud = synthetic_cloud.Cloud(hosts, flavors)
        snapshot = cloud.snapshot()
        options = engine.Options(
            aliases=pci_alias.parse_aliases(synthetic_cloud.ALIASES))
    started, cpu = time.perf_counter(), time.process_time()
    report = engine.compute(snapshot, options)
    # CPU seconds too: on a shared machine wall time says more about the
    # neighbours than about the engine.
    figures = {'hosts': hosts, 'flavors': flavors,
               'compute_seconds': round(time.perf_counter() - started, 3),
               'compute_cpu_seconds': round(time.process_time() - cpu, 3),
               'load_average': os.getloadavg()[0]}
    if numa and cloud is not None:
        # The same snapshot, the hosts' NUMA cells read and modelled.
        options = _with_numa(cloud, snapshot, options, figures)
    (figures['host_groups'], figures['host_groups_if_every_label_read'],
     figures['distinct_requests']) = _groups(snapshot, options)
    if rendered:
        started = time.perf_counter()
        documents, _ = render.documents(report)
        figures.update({
            'render_seconds': round(time.perf_counter() - started, 3),
            'documents': len(documents),
            'documents_mb': round(sum(map(len, documents.values()))
                                  / 2 ** 20, 2)})
    del report
    if memory:
        # Memory in a second run: tracing slows Python several times over.
        tracemalloc.start()
        engine.compute(snapshot, options)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        figures['peak_memory_mb'] = round(peak / 2 ** 20, 1)
    return figures


def _sizes(text):
    return [tuple(int(n) for n in size.split('x'))
            for size in text.split(',')]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--sizes', type=_sizes,
                        default=list(DEFAULT_SIZES),
                        help='HOSTSxFLAVORS[,...] (default: %s)' % ','.join(
                            '%dx%d' % size for size in DEFAULT_SIZES))
    parser.add_argument('--no-memory', action='store_true',
                        help='skip the traced run that measures memory')
    parser.add_argument('--render', action='store_true',
                        help='also time rendering the documents')
    parser.add_argument('--tidy', action='store_true',
                        help='the tidy cloud of six host models instead')
    parser.add_argument('--no-numa', action='store_true',
                        help='skip reading the hosts\' NUMA cells from a '
                             'cell database and counting with them')
    parser.add_argument('--output', default='bench-results/engine.json')
    args = parser.parse_args(argv)
    figures = []
    for hosts, flavors in args.sizes:
        row = measure(hosts, flavors, memory=not args.no_memory,
                      rendered=args.render, tidy=args.tidy,
                      numa=not args.no_numa)
        figures.append(row)
        line = ('engine %(hosts)5d hosts x %(flavors)4d flavors: compute '
                '%(compute_seconds)7.2fs (CPU %(compute_cpu_seconds)7.2fs), '
                '%(host_groups)d host groups (%(host_groups_if_every_label_'
                'read)d if every label split them), %(distinct_requests)d '
                'requests, load %(load_average).1f' % row)
        if 'peak_memory_mb' in row:
            line += ' peak %(peak_memory_mb)7.1f MB' % row
        if 'numa_compute_seconds' in row:
            line += (' | NUMA: cells read %(cell_read_cold_seconds).2fs '
                     '(again %(cell_read_warm_seconds).2fs), %(numa_host_'
                     'states)d host states, compute %(numa_compute_seconds)'
                     '.2fs (CPU %(numa_compute_cpu_seconds).2fs, again '
                     '%(numa_warm_compute_cpu_seconds).2fs), %(numa_'
                     'flavors)d NUMA flavors' % row)
        if 'render_seconds' in row:
            line += (' render %(render_seconds)6.2fs %(documents)d '
                     'documents %(documents_mb).1f MB' % row)
        print(line, flush=True)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump(figures, out, indent=2)


if __name__ == '__main__':
    main()
