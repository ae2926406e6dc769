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
we target; this measures compute and render time and peak memory for
H hosts x F flavors, with VGPU and PCI children on a share of the hosts.

    python -m tools.bench.engine [--hosts 500] [--flavors 500]
"""

import argparse
import json
import os
import time
import tracemalloc

from flavor_exporter.capacity import engine
from flavor_exporter.capacity import model
from flavor_exporter.capacity import pci_alias
from flavor_exporter.capacity import render

ALIASES = ['{"name": "V100", "vendor_id": "10de", "product_id": "1db4"}']


def synthetic_snapshot(hosts, flavors, gpu_only=False):
    """hosts x flavors; gpu_only: every flavor asks for a V100 or a VGPU."""
    inv = model.Inventory
    result = []
    for i in range(hosts):
        root = model.Provider(
            'rp-%d' % i, 'node-%d.example.org' % i,
            inventories={'VCPU': inv(64, max_unit=64, allocation_ratio=4.0),
                         'MEMORY_MB': inv(512 * 1024, reserved=512),
                         'DISK_GB': inv(4000)},
            usages={'VCPU': i % 97, 'MEMORY_MB': (i % 13) * 4096,
                    'DISK_GB': i % 400})
        providers = [root]
        if i % 5 == 0:
            providers += [model.Provider(
                'rp-%d-pci-%d' % (i, d), 'dev', parent_uuid=root.uuid,
                inventories={'CUSTOM_PCI_10DE_1DB4': inv(1)},
                usages={'CUSTOM_PCI_10DE_1DB4': int(d < i % 3)})
                for d in range(4)]
        if i % 7 == 0:
            providers += [model.Provider(
                'rp-%d-vgpu-%d' % (i, d), 'pgpu', parent_uuid=root.uuid,
                inventories={'VGPU': inv(8)}, usages={'VGPU': d})
                for d in range(2)]
        result.append(model.Host('host-%d' % i, root.name,
                                 availability_zone='az%d' % (i % 3),
                                 providers=providers))
    flavor_list = []
    for j in range(flavors):
        specs = {}
        kind = 1 + j % 2 if gpu_only else j % 4
        if kind == 1:
            specs['pci_passthrough:alias'] = 'V100:%d' % (1 + j % 2)
        elif kind == 2:
            specs['resources:VGPU'] = '1'
        flavor_list.append(model.Flavor(
            'f-%d' % j, 'flavor-%03d' % j, vcpus=1 + j % 32,
            ram=1024 * (1 + j % 64), disk=10 + j % 100,
            extra_specs=specs))
    return model.Snapshot('placement', flavor_list, result)


def _options():
    return engine.Options(aliases=pci_alias.parse_aliases(ALIASES))


def documents(hosts, flavors, gpu_only=False):
    """(documents, pointer) of a synthetic cloud, as the worker renders."""
    report = engine.compute(synthetic_snapshot(hosts, flavors, gpu_only),
                            _options())
    return render.documents(report)


def measure(hosts, flavors):
    snapshot = synthetic_snapshot(hosts, flavors)
    options = _options()
    started = time.perf_counter()
    report = engine.compute(snapshot, options)
    computed = time.perf_counter()
    documents, _ = render.documents(report)
    rendered = time.perf_counter()
    # Memory in a second run: tracing slows Python several times over.
    tracemalloc.start()
    render.documents(engine.compute(snapshot, options))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        'hosts': hosts, 'flavors': flavors,
        'compute_seconds': round(computed - started, 3),
        'render_seconds': round(rendered - computed, 3),
        'peak_memory_mb': round(peak / 2 ** 20, 1),
        'documents': len(documents),
        'documents_mb': round(sum(map(len, documents.values())) / 2 ** 20,
                              2),
        'largest_document_kb': round(max(map(len, documents.values()))
                                     / 1024, 1),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--hosts', type=int, default=500)
    parser.add_argument('--flavors', type=int, default=500)
    parser.add_argument('--output', default='bench-results/engine.json')
    args = parser.parse_args(argv)
    figures = [measure(h, f) for h, f in
               sorted({(50, 50), (args.hosts, args.flavors)})]
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump(figures, out, indent=2)
    for row in figures:
        print('engine %(hosts)4d hosts x %(flavors)4d flavors: compute '
              '%(compute_seconds)6.2fs render %(render_seconds)5.2fs peak '
              '%(peak_memory_mb)6.1f MB, %(documents)d documents '
              '%(documents_mb).1f MB (largest %(largest_document_kb).0f KB)'
              % row)


if __name__ == '__main__':
    main()
