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

What Nova and Placement would hold for H compute hosts and F flavors:
several host models (plain, large, dedicated CPUs, 8 PCI devices reported
to Placement as child providers, two VGPU children, GPUs known only from
a GPU host aggregate), usages spread between empty and full (some hosts
completely full), three availability zones, some disabled and some down
compute services, and CPU, dedicated CPU, PCI, VGPU and aggregate GPU
flavors, some private and some disabled. The same arguments always give
the same cloud; fakecloud serves it.
"""

import dataclasses
import random
import uuid

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

# (model, share of the hosts); the rest are 'standard'.
HOST_MODELS = (('large', 0.15), ('pcpu', 0.10), ('pci8', 0.08),
               ('vgpu', 0.05), ('aggregate_gpu', 0.02))


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
        self._make_hosts(hosts)
        self._make_aggregates()
        self._make_flavors(flavors)
        self._make_servers()
        self.churns = 0

    # -- hosts and providers ------------------------------------------------

    def _model(self):
        point = self._rng.random()
        for model, share in HOST_MODELS:
            if point < share:
                return model
            point -= share
        return 'standard'

    def _make_hosts(self, count):
        for index in range(count):
            name = 'cmp%05d' % index
            host = Host(name=name, node=name + '.example.org',
                        model=self._model(),
                        uuid=_uuid('node', index), zone='az-%d' % (index % 3),
                        service_id=_uuid('service', index))
            roll = self._rng.random()
            if roll < 0.02:
                host.enabled = False
            elif roll < 0.03:
                host.up = False
            self.hosts.append(host)
            self._make_tree(host)

    def _fill(self, inventories, full=False):
        """Usages of every class, between empty and full."""
        usages = {}
        load = 1.0 if full else self._rng.random()
        for rc, inv in inventories.items():
            usages[rc] = min(capacity(inv), int(capacity(inv) * load))
        return usages

    def _add(self, provider):
        self.providers[provider.uuid] = provider
        return provider

    def _make_tree(self, host):
        rng = self._rng
        model = host.model
        if model == 'large':
            cores, memory, disk = 128, 1024 * 1024, 8000
        elif model in ('pci8', 'vgpu', 'aggregate_gpu'):
            cores, memory, disk = 96, 768 * 1024, 4000
        else:
            cores, memory, disk = 64, 512 * 1024, 4000
        inventories = {
            'MEMORY_MB': inventory(memory, reserved=4096),
            'DISK_GB': inventory(disk, reserved=10),
        }
        if model == 'pcpu':
            inventories['PCPU'] = inventory(48)
            inventories['VCPU'] = inventory(16, ratio=4.0)
        else:
            inventories['VCPU'] = inventory(cores, ratio=4.0)
        traits = sorted(ROOT_TRAITS[:6 + rng.randrange(5)])
        if not host.enabled:
            traits.append(DISABLED_TRAIT)
        # About 3 % of the hosts are completely full: allocation
        # candidates do not return them.
        full = rng.random() < 0.03
        root = self._add(Provider(
            uuid=host.uuid, name=host.node, root_uuid=host.uuid,
            parent_uuid=None, inventories=inventories,
            usages=self._fill(inventories, full), traits=traits,
            generation=rng.randrange(1, 500)))
        if model == 'pci8':
            for slot in range(8):
                address = '0000:%02x:00.0' % (0x81 + slot)
                inv = {PCI_RC: inventory(1)}
                self._add(Provider(
                    uuid=_uuid('pci', host.uuid, slot),
                    name='%s_%s' % (host.node, address),
                    root_uuid=root.uuid, parent_uuid=root.uuid,
                    inventories=inv,
                    usages={PCI_RC: 1 if full else rng.randrange(2)},
                    traits=['COMPUTE_MANAGED_PCI_DEVICE'],
                    generation=rng.randrange(1, 50)))
        elif model == 'vgpu':
            for slot in range(2):
                inv = {'VGPU': inventory(16, max_unit=16)}
                self._add(Provider(
                    uuid=_uuid('pgpu', host.uuid, slot),
                    name='%s_pci_0000_%02x_00_0' % (host.node, 0x41 + slot),
                    root_uuid=root.uuid, parent_uuid=root.uuid,
                    inventories=inv, usages=self._fill(inv, full),
                    traits=['CUSTOM_NVIDIA_A16_2Q'],
                    generation=rng.randrange(1, 50)))

    # -- aggregates -------------------------------------------------------

    def _make_aggregates(self):
        for zone in range(3):
            name = 'az-%d' % zone
            self.aggregates.append({
                'id': zone + 1, 'name': name, 'uuid': _uuid('agg', name),
                'availability_zone': name,
                'metadata': {'availability_zone': name},
                'hosts': [h.name for h in self.hosts if h.zone == name]})
        gpu_hosts = [h.name for h in self.hosts
                     if h.model == 'aggregate_gpu']
        if gpu_hosts:
            self.aggregates.append({
                'id': 4, 'name': 'gpu-v100', 'uuid': _uuid('agg', 'gpu'),
                'availability_zone': None,
                'metadata': {'gpu': 'True', 'gpu_type': 'V100',
                             'gpu_count': '4'},
                'hosts': gpu_hosts})
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
            elif kind == 5 and index % 40 == 5:
                specs['pci_passthrough:alias'] = 'V100:%d' % rng.choice(
                    (1, 2))
                prefix = 'a'
            else:
                prefix = 'c'
            if rng.random() < 0.2:
                specs['hw:mem_page_size'] = 'any'
            self.flavors.append({
                'id': _uuid('flavor', index),
                'name': '%s%d.%03d' % (prefix, vcpus, index),
                'vcpus': vcpus, 'ram': ram,
                'disk': rng.choice((0, 10, 20, 40, 80, 160)),
                'OS-FLV-EXT-DATA:ephemeral': rng.choice((0, 0, 0, 20)),
                'swap': rng.choice((0, 0, 512)),
                'os-flavor-access:is_public': rng.random() >= 0.1,
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
