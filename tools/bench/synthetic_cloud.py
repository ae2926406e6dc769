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
"""The content of a synthetic cloud, generated deterministically.

What Nova and Placement would hold for H compute hosts and F flavors, shaped
like a large production cloud rather than a tidy one, since the engine's
cost grows with what tells hosts apart:

- 25 host models: three sizes of seven CPU generations (each generation
  with its own CPU traits), a dedicated-CPU model, 8 PCI devices reported
  to Placement as child providers, two VGPU children, GPUs known only from
  a GPU host aggregate; some hosts completely full, some empty, the rest in
  between; some disabled and some down compute services;
- aggregates labelled the way operators label them: three availability
  zones, one aggregate per cell (``cell=cellNN``, 91 cells at 10,000
  hosts), per rack, per owning team, a few under maintenance - labels no
  flavor reads - and an ``ssd=true`` aggregate that flavors do read
  (``aggregate_instance_extra_specs:ssd``);
- CPU, dedicated CPU, PCI, VGPU, aggregate GPU and SSD flavors, about a
  third private (each shared with a few projects, os-flavor-access), some
  disabled.

The same arguments always give the same cloud; fakecloud serves it.
"""

import dataclasses
import random
import uuid

from flavor_exporter.capacity import model

NAMESPACE = uuid.UUID('6f1c1a0e-4bb4-4f55-9f0b-0c6e1f3c9d2a')

PCI_RC = 'CUSTOM_PCI_10DE_20B0'
# flavor-exporter's [pci] alias for the flavors of this cloud.
ALIASES = [
    '{"name": "A100", "vendor_id": "10de", "product_id": "20b0", '
    '"device_type": "type-PCI"}',
    '{"name": "V100", "vendor_id": "10de", "product_id": "1db4", '
    '"device_type": "type-PCI"}',
]

ROOT_TRAITS = ('COMPUTE_NET_ATTACH_INTERFACE', 'COMPUTE_VOLUME_EXTEND',
               'COMPUTE_VOLUME_MULTI_ATTACH', 'COMPUTE_IMAGE_TYPE_QCOW2',
               'COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_TRUSTED_CERTS',
               'HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE42', 'HW_CPU_X86_AESNI',
               'COMPUTE_NODE')
DISABLED_TRAIT = 'COMPUTE_STATUS_DISABLED'

# CPU generations: (name, traits beyond ROOT_TRAITS); each comes in three
# sizes of (cores, memory GB, disk GB).
GENERATIONS = (
    ('haswell', ('HW_CPU_X86_AVX2',)),
    ('broadwell', ('HW_CPU_X86_AVX2', 'HW_CPU_X86_AESNI')),
    ('skylake', ('HW_CPU_X86_AVX2', 'HW_CPU_X86_AVX512F')),
    ('cascadelake', ('HW_CPU_X86_AVX2', 'HW_CPU_X86_AVX512F',
                     'HW_CPU_X86_AVX512VNNI')),
    ('icelake', ('HW_CPU_X86_AVX2', 'HW_CPU_X86_AVX512F',
                 'HW_CPU_X86_SHA')),
    ('rome', ('HW_CPU_X86_AVX2', 'HW_CPU_X86_AMD_SVM')),
    ('milan', ('HW_CPU_X86_AVX2', 'HW_CPU_X86_AMD_SVM',
               'HW_CPU_X86_AMD_SEV')),
)
SIZES = (('s', 32, 256, 1000), ('m', 64, 512, 2000), ('l', 128, 1024, 4000))
# Special models: (name, share of the hosts, cores, memory GB, disk GB).
SPECIAL_MODELS = (('pcpu', 0.08, 64, 512, 2000), ('pci8', 0.10, 96, 768, 4000),
                  ('vgpu', 0.05, 96, 768, 4000),
                  ('aggregate_gpu', 0.02, 96, 768, 4000))
# Hosts of one cell, rack; at 10,000 hosts: 91 cells, 250 racks.
CELL_SIZE = 110
RACK_SIZE = 40
OWNERS = ('team-hpc', 'team-ml', 'team-web', 'team-batch', 'team-db')
# Shares of the hosts with no usage at all and completely full ones
# (allocation candidates do not return full hosts).
EMPTY_SHARE = 0.10
FULL_SHARE = 0.03
PRIVATE_SHARE = 0.3
PROJECTS = ['project-%02d' % i for i in range(40)]


def _uuid(*parts):
    return str(uuid.uuid5(NAMESPACE, '/'.join(map(str, parts))))


def inventory(total, reserved=0, max_unit=None, ratio=1.0, step_size=1):
    return {'total': total, 'reserved': reserved, 'min_unit': 1,
            'max_unit': total if max_unit is None else max_unit,
            'step_size': step_size, 'allocation_ratio': ratio}


def capacity(inv):
    """Placement's capacity: int((total - reserved) * allocation_ratio)."""
    return int((inv['total'] - inv['reserved']) * inv['allocation_ratio'])


@dataclasses.dataclass
class Provider:
    uuid: str
    name: str
    root_uuid: str
    parent_uuid: str | None
    inventories: dict
    usages: dict
    traits: list
    generation: int = 1
    aggregates: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Host:
    name: str  # compute service host
    node: str  # hypervisor_hostname
    model: str
    uuid: str  # compute node = root provider
    zone: str
    traits: tuple = ()
    cores: int = 64
    memory_gb: int = 512
    disk_gb: int = 2000
    enabled: bool = True
    up: bool = True
    service_id: str = ''


class Cloud:
    """Everything the fake serves, as plain dicts and lists."""

    def __init__(self, hosts=10000, flavors=1000, seed=1):
        self.seed = seed
        self._rng = random.Random(seed)
        self.hosts = []
        self.providers = {}  # uuid -> Provider, parents before children
        self.aggregates = []
        self.servers = []
        self.flavors = []
        self.access = {}  # private flavor id -> [project id]
        self._make_hosts(hosts)
        self._make_aggregates()
        self._make_flavors(flavors)
        self._make_servers()
        self.churns = 0

    # -- hosts and providers ------------------------------------------------

    def _model(self):
        """(name, traits, cores, memory GB, disk GB) of a random model."""
        point = self._rng.random()
        for name, share, cores, memory, disk in SPECIAL_MODELS:
            if point < share:
                return name, (), cores, memory, disk
            point -= share
        generation, traits = self._rng.choice(GENERATIONS)
        size, cores, memory, disk = self._rng.choice(SIZES)
        return '%s-%s' % (generation, size), traits, cores, memory, disk

    def _make_hosts(self, count):
        for index in range(count):
            name = 'cmp%05d' % index
            model, traits, cores, memory, disk = self._model()
            host = Host(name=name, node=name + '.example.org', model=model,
                        uuid=_uuid('node', index), zone='az-%d' % (index % 3),
                        traits=traits, cores=cores, memory_gb=memory,
                        disk_gb=disk, service_id=_uuid('service', index))
            roll = self._rng.random()
            if roll < 0.02:
                host.enabled = False
            elif roll < 0.03:
                host.up = False
            self.hosts.append(host)
            self._make_tree(host)

    def _fill(self, inventories, load):
        """Usages of every class at load (0 empty, 1 full)."""
        return {rc: min(capacity(inv), int(capacity(inv) * load))
                for rc, inv in inventories.items()}

    def _add(self, provider):
        self.providers[provider.uuid] = provider
        return provider

    def _make_tree(self, host):
        rng = self._rng
        model = host.model
        inventories = {
            'MEMORY_MB': inventory(host.memory_gb * 1024, reserved=4096),
            'DISK_GB': inventory(host.disk_gb, reserved=10),
        }
        if model == 'pcpu':
            inventories['PCPU'] = inventory(host.cores - 16)
            inventories['VCPU'] = inventory(16, ratio=4.0)
        else:
            inventories['VCPU'] = inventory(host.cores, ratio=4.0)
        # The traits of a model, as the virt driver reports them: the
        # same on every host of the model.
        traits = sorted(set(ROOT_TRAITS) | set(host.traits))
        if not host.enabled:
            traits.append(DISABLED_TRAIT)
        roll = rng.random()
        load = (1.0 if roll < FULL_SHARE
                else 0.0 if roll < FULL_SHARE + EMPTY_SHARE
                else rng.random())
        full = load == 1.0
        root = self._add(Provider(
            uuid=host.uuid, name=host.node, root_uuid=host.uuid,
            parent_uuid=None, inventories=inventories,
            usages=self._fill(inventories, load), traits=traits,
            generation=rng.randrange(1, 500)))
        if model == 'pci8':
            for slot in range(8):
                address = '0000:%02x:00.0' % (0x81 + slot)
                inv = {PCI_RC: inventory(1)}
                used = 1 if full else 0 if load == 0 else rng.randrange(2)
                self._add(Provider(
                    uuid=_uuid('pci', host.uuid, slot),
                    name='%s_%s' % (host.node, address),
                    root_uuid=root.uuid, parent_uuid=root.uuid,
                    inventories=inv, usages={PCI_RC: used},
                    traits=['COMPUTE_MANAGED_PCI_DEVICE'],
                    generation=rng.randrange(1, 50)))
        elif model == 'vgpu':
            for slot in range(2):
                inv = {'VGPU': inventory(16, max_unit=16)}
                self._add(Provider(
                    uuid=_uuid('pgpu', host.uuid, slot),
                    name='%s_pci_0000_%02x_00_0' % (host.node, 0x41 + slot),
                    root_uuid=root.uuid, parent_uuid=root.uuid,
                    inventories=inv,
                    usages=self._fill(inv, load if load in (0, 1)
                                      else rng.random()),
                    traits=['CUSTOM_NVIDIA_A16_2Q'],
                    generation=rng.randrange(1, 50)))

    # -- aggregates -------------------------------------------------------

    def _aggregate(self, name, metadata, hosts, zone=None):
        self.aggregates.append({
            'id': len(self.aggregates) + 1, 'name': name,
            'uuid': _uuid('agg', name), 'availability_zone': zone,
            'metadata': metadata, 'hosts': hosts})

    def _make_aggregates(self):
        for zone in range(3):
            name = 'az-%d' % zone
            self._aggregate(name, {'availability_zone': name},
                            [h.name for h in self.hosts if h.zone == name],
                            zone=name)
        # Labels no flavor reads: cells, racks, owners, maintenance.
        for label, size, key in (('cell', CELL_SIZE, 'cell'),
                                 ('rack', RACK_SIZE, 'rack')):
            for number, start in enumerate(range(0, len(self.hosts), size)):
                value = '%s%02d' % (label, number + 1)
                self._aggregate(value, {key: value}, [
                    h.name for h in self.hosts[start:start + size]])
        rng = random.Random('%s/aggregates' % self.seed)
        for owner in OWNERS:
            self._aggregate(owner, {'owner': owner, 'billing': owner + '-cc'},
                            [h.name for h in self.hosts
                             if rng.random() < 0.05])
        self._aggregate('maintenance', {'maintenance': 'CHG-20261201',
                                        'note': 'firmware, do not drain'},
                        [h.name for h in self.hosts if rng.random() < 0.01])
        # A label flavors read.
        self._aggregate('ssd', {'ssd': 'true'}, [
            h.name for h in self.hosts if h.model.endswith('-l')])
        gpu_hosts = [h.name for h in self.hosts
                     if h.model == 'aggregate_gpu']
        if gpu_hosts:
            self._aggregate('gpu-v100', {'gpu': 'True', 'gpu_type': 'V100',
                                         'gpu_count': '4'}, gpu_hosts)
        # Placement knows the zones as provider aggregates of the roots.
        for host in self.hosts:
            self.providers[host.uuid].aggregates = [
                _uuid('agg', host.zone)]

    # -- flavors and servers ----------------------------------------------

    def _make_flavors(self, count):
        rng = self._rng
        for index in range(count):
            vcpus = rng.choice((1, 2, 4, 8, 16, 32))
            ram = vcpus * rng.choice((1024, 2048, 4096, 8192))
            specs = {}
            kind = index % 20
            if kind in (1, 2):
                specs['hw:cpu_policy'] = 'dedicated'
                prefix = 'd'
            elif kind == 3:
                specs['pci_passthrough:alias'] = 'A100:%d' % rng.choice(
                    (1, 2, 4, 8))
                prefix = 'g'
            elif kind == 4:
                specs['resources:VGPU'] = '1'
                prefix = 'v'
            elif kind == 6:
                specs['aggregate_instance_extra_specs:ssd'] = 'true'
                prefix = 's'
            elif kind == 5 and index % 40 == 5:
                specs['pci_passthrough:alias'] = 'V100:%d' % rng.choice(
                    (1, 2))
                prefix = 'a'
            else:
                prefix = 'c'
            if rng.random() < 0.2:
                specs['hw:mem_page_size'] = 'any'
            public = rng.random() >= PRIVATE_SHARE
            if not public:
                self.access[_uuid('flavor', index)] = sorted(
                    rng.sample(PROJECTS, rng.randint(1, 4)))
            self.flavors.append({
                'id': _uuid('flavor', index),
                'name': '%s%d.%03d' % (prefix, vcpus, index),
                'vcpus': vcpus, 'ram': ram,
                'disk': rng.choice((0, 10, 20, 40, 80, 160)),
                'OS-FLV-EXT-DATA:ephemeral': rng.choice((0, 0, 0, 20)),
                'swap': rng.choice((0, 0, 512)),
                'os-flavor-access:is_public': public,
                'OS-FLV-DISABLED:disabled': rng.random() < 0.01,
                'rxtx_factor': 1.0,
                'description': None,
                'extra_specs': specs,
            })
        self.flavors.sort(key=lambda f: f['id'])

    def _make_servers(self):
        """Servers of the aggregate GPU hosts, which Placement cannot see."""
        gpu_flavors = [f for f in self.flavors
                       if 'V100' in f['extra_specs'].get(
                           'pci_passthrough:alias', '')]
        if not gpu_flavors:
            return
        for host in self.hosts:
            if host.model != 'aggregate_gpu':
                continue
            for slot in range(self._rng.randrange(3)):
                flavor = self._rng.choice(gpu_flavors)
                self.servers.append({
                    'id': _uuid('server', host.name, slot),
                    'name': 'vm-%s-%d' % (host.name, slot),
                    'status': 'ACTIVE',
                    'OS-EXT-SRV-ATTR:host': host.name,
                    'OS-EXT-SRV-ATTR:hypervisor_hostname': host.node,
                    'flavor': {
                        'original_name': flavor['name'],
                        'vcpus': flavor['vcpus'], 'ram': flavor['ram'],
                        'disk': flavor['disk'],
                        'ephemeral': flavor['OS-FLV-EXT-DATA:ephemeral'],
                        'swap': flavor['swap'],
                        'extra_specs': dict(flavor['extra_specs'])}})
        self.servers.sort(key=lambda s: s['id'])

    # -- as the engine sees it ---------------------------------------------

    def snapshot(self):
        """The model.Snapshot the Placement source would read of it.

        For benchmarks of the engine alone; the collect benchmark reads
        the same cloud over HTTP through the source itself.
        """
        trees = {}
        for provider in self.providers.values():
            trees.setdefault(provider.root_uuid, []).append(model.Provider(
                uuid=provider.uuid, name=provider.name,
                parent_uuid=provider.parent_uuid,
                inventories={rc: model.Inventory(**inv) for rc, inv
                             in provider.inventories.items()},
                usages=dict(provider.usages),
                traits=frozenset(provider.traits),
                generation=provider.generation))
        aggregates = {}
        for aggregate in self.aggregates:
            found = model.Aggregate(aggregate['name'],
                                    dict(aggregate['metadata']),
                                    aggregate['uuid'])
            for name in aggregate['hosts']:
                aggregates.setdefault(name, []).append(found)
        used = {}
        for server in self.servers:
            alias = server['flavor']['extra_specs']['pci_passthrough:alias']
            name, _, count = alias.partition(':')
            host = server['OS-EXT-SRV-ATTR:host']
            used[host] = used.get(host, 0) + int(count)
        hosts = []
        for host in self.hosts:
            pools = []
            if host.model == 'aggregate_gpu':
                pools = [model.GpuPool('V100', 4, used.get(host.name, 0))]
            hosts.append(model.Host(
                name=host.name, node=host.node,
                enabled=host.enabled and DISABLED_TRAIT not in (
                    self.providers[host.uuid].traits),
                up=host.up, availability_zone=host.zone,
                aggregates=aggregates.get(host.name, []),
                providers=trees[host.uuid], gpu_pools=pools))
        flavors = [model.Flavor(
            id=f['id'], name=f['name'], vcpus=f['vcpus'], ram=f['ram'],
            disk=f['disk'], ephemeral=f['OS-FLV-EXT-DATA:ephemeral'],
            swap=f['swap'], is_public=f['os-flavor-access:is_public'],
            disabled=f['OS-FLV-DISABLED:disabled'],
            extra_specs=dict(f['extra_specs']),
            projects=tuple(self.access[f['id']]) if f['id'] in self.access
            else None) for f in self.flavors]
        return model.Snapshot('placement', flavors, hosts)

    # -- changes between refreshes ----------------------------------------

    def churn(self, usage_share=0.1, generation_share=0.01):
        """What a busy cloud does between two refreshes.

        Usages of usage_share of the providers move (boots and deletes;
        deletes leave generations as they are, as in Placement), and
        generation_share of them get a new trait and generation. Returns
        the uuids whose generation moved.
        """
        self.churns += 1
        rng = random.Random('%s/churn/%d' % (self.seed, self.churns))
        moved = []
        for provider in self.providers.values():
            if rng.random() < usage_share:
                provider.usages = {
                    rc: rng.randrange(capacity(inv) + 1)
                    for rc, inv in provider.inventories.items()}
            if rng.random() < generation_share:
                provider.traits = sorted(
                    set(provider.traits) | {'CUSTOM_CHURN_%d' % self.churns})
                provider.generation += 1
                moved.append(provider.uuid)
        return moved
