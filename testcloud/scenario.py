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

"""Declarative test-cloud scenarios.

A scenario is a YAML file that says what a cloud looks like: compute hosts
and their hardware, PCI aliases, host aggregates, flavors, servers to boot
and services to disable or force down. This module only parses and checks
the file; it imports nothing from Nova so the test interpreter can use it
too. Unknown keys are errors: a typo must not silently give another cloud.

The schema is documented in ``scenarios/README.rst``.
"""

import dataclasses
import os

import yaml

SCENARIO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            'scenarios')

# Nova's defaults in the fixtures minus the two filters the exporter's
# eligibility rules depend on. Nova reads this list once, when the scheduler
# starts, so the server must set it before starting the scheduler.
DEFAULT_FILTERS = (
    'ComputeFilter',
    'ComputeCapabilitiesFilter',
    'ImagePropertiesFilter',
    'ServerGroupAntiAffinityFilter',
    'ServerGroupAffinityFilter',
    'PciPassthroughFilter',
    'AggregateInstanceExtraSpecsFilter',
)


class ScenarioError(ValueError):
    """The scenario file does not describe a valid cloud."""


@dataclasses.dataclass(frozen=True)
class PciDevice:
    vendor_id: str
    product_id: str
    count: int = 1


@dataclasses.dataclass(frozen=True)
class Vgpu:
    """VGPU child providers hung below a host's root provider."""
    children: int = 1
    total: int = 1
    #: Traits of every child, as an operator sets them to tell GPU models
    #: (mdev types) apart.
    traits: tuple = ()


@dataclasses.dataclass(frozen=True)
class Host:
    name: str
    node: str
    vcpus: int
    memory_mb: int
    local_gb: int
    reserved: dict
    allocation_ratio: dict
    #: Per resource class inventory limits on the root provider:
    #: {rc: {min_unit: n, max_unit: n, step_size: n}}.
    unit_limits: dict
    pci_devices: tuple
    vgpu: Vgpu
    custom_resources: dict
    traits: tuple
    #: Dedicated host CPUs ([compute] cpu_dedicated_set); ``vcpus`` is then
    #: the shared set. Non-zero gives the host a NUMA topology and PCPU.
    pcpus: int = 0
    #: Whether the host offers vTPM, as libvirt with swtpm_enabled.
    vtpm: bool = False
    #: Host NUMA cells (HostNuma), None: one cell, and only with pcpus.
    numa: 'HostNuma' = None
    #: This compute's [pci] report_in_placement; None: the scenario's.
    report_in_placement: bool = None


@dataclasses.dataclass(frozen=True)
class HostNuma:
    """How a host's CPUs and memory split into NUMA cells."""

    cells: int = 1
    #: Thread siblings per core (SMT), within each cell.
    threads: int = 1
    #: {page size in KiB: pages} of each cell besides its 4 KiB pages.
    hugepages: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Aggregate:
    name: str
    hosts: tuple
    availability_zone: str
    metadata: dict


@dataclasses.dataclass(frozen=True)
class Flavor:
    name: str
    vcpus: int
    ram: int
    disk: int
    ephemeral: int
    swap: int
    is_public: bool
    extra_specs: dict
    id: str
    projects: tuple


@dataclasses.dataclass(frozen=True)
class Boot:
    flavor: str
    count: int
    host: str
    #: Deleted again while reclaim_instance_interval holds it back:
    #: SOFT_DELETED, its resources still held.
    soft_deleted: bool = False


@dataclasses.dataclass(frozen=True)
class ServiceState:
    host: str
    disabled: bool
    reason: str
    forced_down: bool
    stop: bool


@dataclasses.dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    default_flavors: bool
    hosts: tuple
    pci_aliases: tuple
    pci_in_placement: bool
    enabled_filters: tuple
    config: dict
    aggregates: tuple
    flavors: tuple
    servers: tuple
    services: tuple

    @property
    def numa(self):
        """Whether a host reports a NUMA topology (see driver.py)."""
        return any(host.numa or host.pcpus for host in self.hosts)

    def host(self, name):
        for host in self.hosts:
            if host.name == name:
                return host
        raise KeyError(name)

    def flavor(self, name):
        for flavor in self.flavors:
            if flavor.name == name:
                return flavor
        raise KeyError(name)


def _take(mapping, where, required=(), optional=None):
    """Return a copy of ``mapping`` after checking its keys.

    ``optional`` maps each optional key to its default.
    """
    optional = optional or {}
    if not isinstance(mapping, dict):
        raise ScenarioError('%s: expected a mapping, got %r'
                            % (where, mapping))
    unknown = set(mapping) - set(required) - set(optional)
    if unknown:
        raise ScenarioError('%s: unknown keys %s' % (where, sorted(unknown)))
    missing = [key for key in required if key not in mapping]
    if missing:
        raise ScenarioError('%s: missing keys %s' % (where, missing))
    values = dict(optional)
    values.update(mapping)
    return values


def _str_map(mapping, where):
    """Nova stores metadata and extra specs as strings; YAML may not."""
    if mapping is None:
        return {}
    if not isinstance(mapping, dict):
        raise ScenarioError('%s: expected a mapping' % where)
    return {str(k): _as_str(v) for k, v in mapping.items()}


def _as_str(value):
    # YAML reads True as a bool; the predecessor's aggregates say "True".
    if isinstance(value, bool):
        return 'True' if value else 'False'
    return str(value)


def _parse_numa(raw, vcpus, pcpus, memory_mb, where):
    if raw is None:
        return None
    where += '.numa'
    values = _take(raw, where, optional={'cells': 1, 'threads': 1,
                                         'hugepages': {}})
    numa = HostNuma(int(values['cells']), int(values['threads']),
                    {int(size): int(count)
                     for size, count in values['hugepages'].items()})
    cells = numa.cells
    if cells < 1 or vcpus % cells or pcpus % cells or memory_mb % cells:
        raise ScenarioError('%s: vcpus, pcpus and memory_mb must split '
                            'evenly over %d cells' % (where, cells))
    if (vcpus // cells) % numa.threads or (pcpus // cells) % numa.threads:
        raise ScenarioError('%s: each cell\'s CPUs must make whole cores '
                            'of %d threads' % (where, numa.threads))
    huge_mb = sum(size * count for size, count in numa.hugepages.items())
    if huge_mb // 1024 >= memory_mb // cells:
        raise ScenarioError('%s: the huge pages take all of a cell\'s '
                            'memory' % where)
    return numa


def _parse_hosts(raw):
    hosts = []
    for i, item in enumerate(raw or []):
        where = 'hosts[%d]' % i
        values = _take(item, where, required=('name', 'vcpus', 'memory_mb',
                                              'local_gb'),
                       optional={'node': None, 'count': None,
                                 'reserved': {}, 'allocation_ratio': {},
                                 'unit_limits': {},
                                 'pci_devices': [], 'vgpu': None,
                                 'custom_resources': {}, 'traits': [],
                                 'pcpus': 0, 'vtpm': False, 'numa': None,
                                 'report_in_placement': None})
        vcpus, pcpus = int(values['vcpus']), int(values['pcpus'])
        if vcpus < 0 or pcpus < 0 or not vcpus + pcpus:
            raise ScenarioError('%s: vcpus and pcpus must not be negative '
                                'and give at least one CPU' % where)
        devices = tuple(
            PciDevice(**_take(dev, '%s.pci_devices' % where,
                              required=('vendor_id', 'product_id'),
                              optional={'count': 1}))
            for dev in values['pci_devices'])
        devices = tuple(PciDevice(str(d.vendor_id).lower(),
                                  str(d.product_id).lower(), int(d.count))
                        for d in devices)
        vgpu = None
        if values['vgpu'] is not None:
            vgpu = _take(values['vgpu'], '%s.vgpu' % where,
                         optional={'children': 1, 'total': 1, 'traits': []})
            vgpu = Vgpu(int(vgpu['children']), int(vgpu['total']),
                        tuple(vgpu['traits']))
        numa = _parse_numa(values['numa'], vcpus, pcpus,
                           int(values['memory_mb']), where)
        count = values['count']
        indexes = [None] if count is None else range(1, int(count) + 1)
        for index in indexes:
            name = str(values['name'])
            node = values['node']
            if index is not None:
                name = name.format(index=index)
                node = node.format(index=index) if node else None
            hosts.append(Host(
                name=name, node=node or name,
                vcpus=vcpus,
                memory_mb=int(values['memory_mb']),
                local_gb=int(values['local_gb']),
                reserved=dict(values['reserved']),
                allocation_ratio=dict(values['allocation_ratio']),
                unit_limits=_parse_unit_limits(values['unit_limits'],
                                               where),
                pci_devices=devices, vgpu=vgpu,
                custom_resources=dict(values['custom_resources']),
                traits=tuple(values['traits']),
                vtpm=bool(values['vtpm']), pcpus=pcpus, numa=numa,
                report_in_placement=(
                    None if values['report_in_placement'] is None
                    else bool(values['report_in_placement']))))
    names = [h.name for h in hosts]
    if len(set(names)) != len(names):
        raise ScenarioError('host names must be unique: %s' % names)
    if not hosts:
        raise ScenarioError('a scenario needs at least one host')
    return tuple(hosts)


def _parse_unit_limits(raw, where):
    """{rc: {min_unit, max_unit, step_size}}, as positive integers."""
    if not isinstance(raw, dict):
        raise ScenarioError('%s.unit_limits: expected a mapping' % where)
    limits = {}
    for rc, values in raw.items():
        values = _take(values, '%s.unit_limits.%s' % (where, rc),
                       optional={'min_unit': None, 'max_unit': None,
                                 'step_size': None})
        limits[str(rc)] = {key: int(value) for key, value in values.items()
                           if value is not None}
        if any(value < 1 for value in limits[str(rc)].values()):
            raise ScenarioError('%s.unit_limits.%s: limits must be '
                                'positive' % (where, rc))
    return limits


def _parse_aggregates(raw, host_names):
    aggregates = []
    for i, item in enumerate(raw or []):
        where = 'aggregates[%d]' % i
        values = _take(item, where, required=('name',),
                       optional={'hosts': [], 'availability_zone': None,
                                 'metadata': {}})
        for host in values['hosts']:
            if host not in host_names:
                raise ScenarioError('%s: unknown host %s' % (where, host))
        aggregates.append(Aggregate(
            name=values['name'], hosts=tuple(values['hosts']),
            availability_zone=values['availability_zone'],
            metadata=_str_map(values['metadata'], where + '.metadata')))
    return tuple(aggregates)


def _parse_flavors(raw):
    flavors = []
    for i, item in enumerate(raw or []):
        where = 'flavors[%d]' % i
        values = _take(item, where, required=('name', 'vcpus', 'ram'),
                       optional={'disk': 0, 'ephemeral': 0, 'swap': 0,
                                 'is_public': True, 'extra_specs': {},
                                 'id': None, 'projects': []})
        flavors.append(Flavor(
            name=values['name'], vcpus=int(values['vcpus']),
            ram=int(values['ram']), disk=int(values['disk']),
            ephemeral=int(values['ephemeral']), swap=int(values['swap']),
            is_public=bool(values['is_public']),
            extra_specs=_str_map(values['extra_specs'],
                                 where + '.extra_specs'),
            id=None if values['id'] is None else str(values['id']),
            projects=tuple(values['projects'])))
    return tuple(flavors)


def _parse_servers(raw, flavor_names, host_names, default_flavors):
    servers = []
    for i, item in enumerate(raw or []):
        where = 'servers[%d]' % i
        values = _take(item, where, required=('flavor',),
                       optional={'count': 1, 'host': None,
                                 'soft_deleted': False})
        if values['host'] and values['host'] not in host_names:
            raise ScenarioError('%s: unknown host %s' % (where,
                                                         values['host']))
        servers.append(Boot(flavor=values['flavor'],
                            count=int(values['count']),
                            host=values['host'],
                            soft_deleted=bool(values['soft_deleted'])))
        # Nova's preloaded m1.* flavors may be booted if they are kept.
        known = values['flavor'] in flavor_names or (
            default_flavors and values['flavor'].startswith('m1.'))
        if not known:
            raise ScenarioError('%s: unknown flavor %s' % (where,
                                                           values['flavor']))
    return tuple(servers)


def _parse_services(raw, host_names):
    services = []
    for i, item in enumerate(raw or []):
        where = 'services[%d]' % i
        values = _take(item, where, required=('host',),
                       optional={'disabled': False, 'reason': None,
                                 'forced_down': False, 'stop': False})
        if values['host'] not in host_names:
            raise ScenarioError('%s: unknown host %s' % (where,
                                                         values['host']))
        services.append(ServiceState(**values))
    return tuple(services)


def parse(data, name='scenario'):
    """Build a :class:`Scenario` from the mapping a YAML file holds."""
    values = _take(data, name, required=('hosts',),
                   optional={'name': name, 'description': '',
                             'default_flavors': False,
                             'pci': {}, 'scheduler': {}, 'config': {},
                             'aggregates': [], 'flavors': [],
                             'servers': [], 'services': []})
    pci = _take(values['pci'], 'pci',
                optional={'aliases': [], 'report_in_placement': False})
    scheduler = _take(values['scheduler'], 'scheduler',
                      optional={'enabled_filters': list(DEFAULT_FILTERS)})
    hosts = _parse_hosts(values['hosts'])
    host_names = {h.name for h in hosts}
    flavors = _parse_flavors(values['flavors'])
    for key, group in (values['config'] or {}).items():
        if not isinstance(group, dict):
            raise ScenarioError('config.%s: expected a mapping' % key)
    return Scenario(
        name=values['name'],
        description=values['description'],
        default_flavors=bool(values['default_flavors']),
        hosts=hosts,
        pci_aliases=tuple(dict(a) for a in pci['aliases']),
        pci_in_placement=bool(pci['report_in_placement']),
        enabled_filters=tuple(scheduler['enabled_filters']),
        config=dict(values['config'] or {}),
        aggregates=_parse_aggregates(values['aggregates'], host_names),
        flavors=flavors,
        servers=_parse_servers(values['servers'],
                               {f.name for f in flavors}, host_names,
                               bool(values['default_flavors'])),
        services=_parse_services(values['services'], host_names))


def path_of(scenario):
    """Return the file of a scenario given by name (``"vgpu"``) or path."""
    if os.path.sep in scenario or scenario.endswith(('.yaml', '.yml')):
        return os.path.abspath(scenario)
    return os.path.join(SCENARIO_DIR, scenario + '.yaml')


def names():
    """The names of the scenarios testcloud ships, sorted."""
    return sorted(os.path.splitext(name)[0]
                  for name in os.listdir(SCENARIO_DIR)
                  if name.endswith('.yaml'))


def load(scenario):
    """Load a scenario by name or path."""
    path = path_of(scenario)
    with open(path) as f:
        data = yaml.safe_load(f)
    default_name = os.path.splitext(os.path.basename(path))[0]
    if isinstance(data, dict):
        data.setdefault('name', default_name)
    return parse(data, default_name)
