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
"""numa_fit against Nova's own code, on many made-up hosts and flavors.

For each supported release, hundreds of random host NUMA topologies (1 to
4 cells, shared and dedicated CPUs, SMT, huge pages of two sizes, CPUs
already pinned and memory already used) and flavors (every CPU policy,
thread policy, isolated emulator threads, NUMA node counts and manual
splits, page sizes, some invalid) are counted twice: by numa_fit, from
the same JSON the cell database holds, and by that release's
nova.virt.hardware (testcloud/numa_reference.py). Every count, and every
refusal, must agree. The oracle scenarios (test_oracle) then boot real
servers on a few of these shapes.
"""

import collections
import json
import random
import subprocess

from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request import request as request_mod
from flavor_exporter.tests import base
from flavor_exporter.worker import cell_databases
from testcloud import cloud_venv

CASES = 2000
SEED = 2912


def _object(name, data, version='1.0'):
    return {'nova_object.name': name, 'nova_object.namespace': 'nova',
            'nova_object.version': version, 'nova_object.data': data}


def random_topology(rng):
    """A compute_nodes.numa_topology value, with some usage."""
    cells, next_cpu = [], 0
    threads = rng.choice((1, 1, 2))
    for index in range(rng.randint(1, 4)):
        shared = rng.choice((0, 2, 4, 8))
        dedicated = rng.choice((0, 2, 4, 8))
        cpus = list(range(next_cpu, next_cpu + shared + dedicated))
        next_cpu += len(cpus)
        memory = rng.choice((2048, 4096, 8192))
        huge = {2048: rng.choice((0, 0, 256, 512)),
                1048576: rng.choice((0, 0, 1)) if memory > 4096 else 0}
        huge_kb = sum(size * n for size, n in huge.items())
        pages = [(4, (memory * 1024 - huge_kb) // 4)] + [
            (size, n) for size, n in sorted(huge.items()) if n]
        pinned = [c for c in cpus[shared:] if rng.random() < 0.25]
        cells.append(_object('NUMACell', {
            'id': index, 'cpuset': cpus[:shared], 'pcpuset': cpus[shared:],
            'memory': memory, 'cpu_usage': rng.randint(0, shared * 2),
            'memory_usage': rng.choice((0, 0, 512, memory // 2)),
            'pinned_cpus': pinned, 'socket': index,
            'siblings': [cpus[i:i + threads]
                         for i in range(0, len(cpus), threads)],
            'mempages': [_object('NUMAPagesTopology', {
                'size_kb': size, 'total': total,
                'used': rng.choice((0, 0, total // 4)), 'reserved': 0},
                '1.1') for size, total in pages],
            'network_metadata': _object('NetworkMetadata', {
                'physnets': [], 'tunneled': False})}, '1.5'))
    return json.dumps(_object('NUMATopology', {'cells': cells}, '1.2'))


def random_flavor(rng):
    vcpus = rng.choice((1, 2, 3, 4, 6, 8))
    ram = rng.choice((512, 1024, 1536, 2048, 4096))
    specs = {}
    policy = rng.choice((None, 'shared', 'dedicated', 'dedicated', 'mixed',
                         'pcpu'))
    if policy == 'pcpu':
        specs['resources:PCPU'] = str(vcpus)
    elif policy:
        specs['hw:cpu_policy'] = policy
    if policy == 'mixed' and rng.random() < 0.9:
        specs['hw:cpu_dedicated_mask'] = rng.choice(('^0', '0', '1-2'))
    if rng.random() < 0.3:
        specs['hw:cpu_thread_policy'] = rng.choice(('prefer', 'isolate',
                                                    'require'))
    if rng.random() < 0.2:
        specs['hw:emulator_threads_policy'] = 'isolate'
        if policy == 'pcpu':
            specs['resources:PCPU'] = str(vcpus + 1)
    if rng.random() < 0.5:
        nodes = rng.randint(1, 3)
        specs['hw:numa_nodes'] = str(nodes)
        if nodes == 2 and vcpus > 1 and rng.random() < 0.4:
            first = rng.randint(1, vcpus - 1)
            specs.update({
                'hw:numa_cpus.0': '0-%d' % (first - 1),
                'hw:numa_cpus.1': '%d-%d' % (first, vcpus - 1),
                'hw:numa_mem.0': str(ram // 4),
                'hw:numa_mem.1': str(ram - ram // 4 + rng.choice(
                    (0, 0, 0, 512)))})
    if rng.random() < 0.4:
        specs['hw:mem_page_size'] = rng.choice(
            ('small', 'large', 'any', '2048', '1GB', '2MB'))
    return {'vcpus': vcpus, 'ram': ram, 'extra_specs': specs}


FEATURES = {
    'dedicated': lambda s: s.get('hw:cpu_policy') == 'dedicated',
    'mixed': lambda s: s.get('hw:cpu_policy') == 'mixed',
    'PCPU': lambda s: 'resources:PCPU' in s,
    'page size': lambda s: 'hw:mem_page_size' in s,
    'nodes': lambda s: int(s.get('hw:numa_nodes', 1)) > 1,
    'manual': lambda s: 'hw:numa_cpus.0' in s,
    'thread policy': lambda s: 'hw:cpu_thread_policy' in s,
    'emulator': lambda s: 'hw:emulator_threads_policy' in s,
}


def features(specs):
    return [name for name, has in FEATURES.items() if has(specs)]


def ours(case, rules):
    flavor = case['flavor']
    try:
        built = request_mod.build_request(model.Flavor(
            'f', 'f', vcpus=flavor['vcpus'], ram=flavor['ram'], disk=1,
            extra_specs=flavor['extra_specs']), {})
    except request_mod.InvalidExtraSpec as exc:
        return {'invalid': str(exc)}
    if built.numa is None:
        return {'count': None}
    host = cell_databases.topology(case['topology'], case['cpu_ratio'],
                                   case['ram_ratio'])
    counted = numa_fit.Counts(rules).of(built.numa).count(host,
                                                          case['bound'])
    # And one server after the other, as counts do when no shortcut
    # (numa_fit.counted) applies: both must be Nova's.
    placed, state = 0, host
    while placed < case['bound'] and state:
        claims = numa_fit.fit(state, built.numa, rules)
        state = claims and numa_fit.place(state, built.numa, claims)
        placed += bool(state)
    if placed != counted:
        return {'count': counted, 'one_by_one': placed}
    return {'count': counted}


class TestNumaFitIsNovas(base.BaseTestCase):

    def cases(self):
        rng = random.Random(SEED)
        return [{'topology': random_topology(rng),
                 'cpu_ratio': rng.choice((1.0, 4.0, 16.0)),
                 'ram_ratio': rng.choice((1.0, 1.5)),
                 'pack': rng.random() < 0.5, 'bound': 40,
                 'flavor': random_flavor(rng)} for _ in range(CASES)]

    def test_counts_and_refusals_agree(self):
        cases = self.cases()
        lines = ''.join(json.dumps(case) + '\n' for case in cases)
        for release in cloud_venv.supported():
            answers = subprocess.run(
                [cloud_venv.python(release), '-m',
                 'testcloud.numa_reference'], input=lines, check=True,
                capture_output=True, text=True, timeout=600,
                cwd=cloud_venv.REPO_ROOT).stdout.splitlines()
            self.assertEqual(len(cases), len(answers))
            wrong, fitted = [], collections.Counter()
            for case, answer in zip(cases, map(json.loads, answers)):
                rules = numa_fit.Rules(
                    enabled=True, pinned_memory_free=release != '2024.1',
                    pack=case['pack'])
                mine = ours(case, rules)
                if answer.get('count'):
                    fitted.update(features(case['flavor']['extra_specs']))
                if ('invalid' in answer) != ('invalid' in mine) or (
                        'invalid' not in answer
                        and answer['count'] != mine['count']) or (
                            'one_by_one' in mine):
                    wrong.append((release, case['flavor'], answer, mine))
            self.assertEqual([], wrong[:5], '%d of %d cases differ'
                             % (len(wrong), len(cases)))
            # The cases must exercise fits of every kind, not refusals.
            self.assertEqual(set(FEATURES), {name for name, n in
                                             fitted.items() if n >= 10},
                             (release, fitted))
