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

"""A fake virt driver whose hardware comes from the scenario.

Nova builds the driver itself (``nova.virt.<compute_driver>``) and gives it
nothing but the service host name, so the sizes of every host are looked up
in :data:`HOSTS` when Nova calls ``init_host``. Import this module only in
the cloud's interpreter: it imports Nova.
"""

import sys

from oslo_serialization import jsonutils

from nova.compute import pci_placement_translator
from nova import objects
from nova.virt import fake

from testcloud import nova_release
from testcloud import scenario

#: service host name -> scenario.Host; filled by the cloud before it starts
#: a compute.
HOSTS = {}

#: The value of ``[DEFAULT] compute_driver``: Nova only loads drivers from
#: the ``nova.virt`` package, so this module is registered there too.
DRIVER_NAME = 'flavor_exporter_scenario.ScenarioDriver'


_REPORT_PCI = pci_placement_translator.update_provider_tree_for_pci


def _report_pci(provider_tree, nodename, *args, **kwargs):
    """[pci] report_in_placement per compute, as during a rolling upgrade.

    Nova reads the option from each compute's nova.conf; the computes of
    the test cloud share one, so a host that says otherwise does here
    what Nova's translator does when the option is off.
    """
    spec = next((h for h in HOSTS.values() if h.node == nodename), None)
    if spec is not None and spec.report_in_placement is False:
        pci_placement_translator.ensure_tracking_was_not_enabled_before(
            provider_tree)
        return False
    return _REPORT_PCI(provider_tree, nodename, *args, **kwargs)


def register():
    """Make Nova's driver loader find this module."""
    sys.modules['nova.virt.flavor_exporter_scenario'] = sys.modules[__name__]
    # The resource tracker calls it through the module.
    pci_placement_translator.update_provider_tree_for_pci = _report_pci


def pci_address(index):
    """A stable, unique PCI address for the index-th device of a host."""
    return '0000:%02x:00.0' % (0x81 + index)


def numa_topology(spec):
    """The host NUMA topology of a host, or None.

    As the libvirt driver reports a host configured with ``[compute]
    cpu_shared_set`` (CPUs 0 .. vcpus-1) and ``cpu_dedicated_set`` (the
    next pcpus CPUs): each cell gets its share of both sets and of the
    memory; thread siblings are consecutive CPUs of a cell (``threads``
    per core); the memory is 4 KiB pages but for the cell's huge pages.
    Usage stays empty: the resource tracker adds the instances' on every
    update. A host without ``numa`` has one cell, and only with pcpus.
    """
    numa = spec.numa
    if numa is None:
        if not spec.pcpus:
            return None
        numa = scenario.HostNuma()
    cells = []
    shared_per_cell = spec.vcpus // numa.cells
    dedicated_per_cell = spec.pcpus // numa.cells
    memory = spec.memory_mb // numa.cells
    for index in range(numa.cells):
        shared = set(range(index * shared_per_cell,
                           (index + 1) * shared_per_cell))
        first = spec.vcpus + index * dedicated_per_cell
        dedicated = set(range(first, first + dedicated_per_cell))
        cpus = sorted(shared) + sorted(dedicated)
        huge_kb = sum(size * count for size, count in numa.hugepages.items())
        pages = [objects.NUMAPagesTopology(
            size_kb=4, total=(memory * 1024 - huge_kb) // 4, used=0,
            reserved=0)]
        pages += [objects.NUMAPagesTopology(size_kb=size, total=count,
                                            used=0, reserved=0)
                  for size, count in sorted(numa.hugepages.items())]
        cells.append(objects.NUMACell(
            id=index, socket=index, cpuset=shared, pcpuset=dedicated,
            memory=memory, cpu_usage=0, memory_usage=0, pinned_cpus=set(),
            siblings=[set(cpus[i:i + numa.threads])
                      for i in range(0, len(cpus), numa.threads)],
            mempages=pages,
            network_metadata=objects.NetworkMetadata(physnets=set(),
                                                     tunneled=False)))
    return objects.NUMATopology(cells=cells)


class ScenarioDriver(fake.FakeDriver):
    """FakeDriver with per-host CPUs, memory, disk, PCI devices and VGPUs.

    A host with ``pcpus`` also gets a NUMA topology and PCPU inventory, so
    that pinned (hw:cpu_policy=dedicated/mixed) servers can be claimed.
    """

    def init_host(self, host):
        spec = HOSTS[host]
        self.spec = spec
        # FakeDriver reads these class attributes for its inventory and its
        # hypervisor statistics; instance attributes shadow them per host.
        self.vcpus = spec.vcpus
        self.memory_mb = spec.memory_mb
        self.local_gb = spec.local_gb
        self.resources = fake.Resources(vcpus=spec.vcpus,
                                        memory_mb=spec.memory_mb,
                                        local_gb=spec.local_gb)
        super().init_host(host)
        # The hypervisor node may be an FQDN while the service host is short,
        # as on many production clouds.
        self._set_nodes([spec.node])

    def _pci_devices(self):
        devices = []
        for dev in self.spec.pci_devices:
            for _ in range(dev.count):
                devices.append({
                    'address': pci_address(len(devices)),
                    'vendor_id': dev.vendor_id,
                    'product_id': dev.product_id,
                    'dev_type': 'type-PCI',
                    'status': 'available',
                    'parent_addr': None,
                    'numa_node': None,
                    'label': 'label_%s_%s' % (dev.vendor_id, dev.product_id),
                })
        return devices

    def get_available_resource(self, nodename):
        status = super().get_available_resource(nodename)
        if status and self.spec.pci_devices:
            status['pci_passthrough_devices'] = jsonutils.dumps(
                self._pci_devices())
        topology = numa_topology(self.spec)
        if status and topology:
            # ComputeNode.numa_topology is a string, as the libvirt driver
            # reports it.
            status['numa_topology'] = topology._to_json()
        return status

    def update_provider_tree(self, provider_tree, nodename, allocations=None):
        super().update_provider_tree(provider_tree, nodename,
                                     allocations=allocations)
        spec = self.spec
        inventory = provider_tree.data(nodename).inventory
        inventory = {rc: dict(inv) for rc, inv in inventory.items()}
        if not spec.vcpus:
            # Only dedicated CPUs: like libvirt, no VCPU inventory at all.
            inventory.pop('VCPU', None)
        if spec.pcpus:
            # As the libvirt driver reports cpu_dedicated_set: pinned CPUs
            # cannot be overcommitted and none are reserved.
            inventory['PCPU'] = {'total': spec.pcpus, 'reserved': 0,
                                 'min_unit': 1, 'max_unit': spec.pcpus,
                                 'step_size': 1, 'allocation_ratio': 1.0}
        for rc, total in spec.custom_resources.items():
            inventory[rc] = {'total': int(total), 'reserved': 0,
                             'min_unit': 1, 'max_unit': int(total),
                             'step_size': 1, 'allocation_ratio': 1.0}
        # Per-host overrides, as an operator would set them with
        # [DEFAULT] *_allocation_ratio / reserved_* on that one compute.
        for rc, reserved in spec.reserved.items():
            inventory[rc]['reserved'] = int(reserved)
        for rc, ratio in spec.allocation_ratio.items():
            inventory[rc]['allocation_ratio'] = float(ratio)
        for rc, limits in spec.unit_limits.items():
            inventory[rc].update(limits)
        provider_tree.update_inventory(nodename, inventory)
        if spec.traits:
            provider_tree.add_traits(nodename, *spec.traits)
        if spec.numa and spec.numa.threads > 1:
            # As libvirt reports a host with SMT.
            provider_tree.add_traits(nodename, 'HW_CPU_HYPERTHREADING')
        if spec.vtpm:
            provider_tree.add_traits(nodename, *nova_release.vtpm_traits())
        if spec.vgpu:
            self._update_vgpu_children(provider_tree, nodename, spec.vgpu)

    @staticmethod
    def _update_vgpu_children(provider_tree, nodename, vgpu):
        # One child per physical GPU, named like the libvirt driver does.
        for index in range(vgpu.children):
            child = '%s_pci_%s' % (
                nodename, pci_address(0x40 + index).replace(':', '_')
                .replace('.', '_'))
            if not provider_tree.exists(child):
                provider_tree.new_child(child, nodename)
            provider_tree.update_inventory(child, {
                'VGPU': {'total': vgpu.total, 'reserved': 0, 'min_unit': 1,
                         'max_unit': vgpu.total, 'step_size': 1,
                         'allocation_ratio': 1.0}})
            if vgpu.traits:
                provider_tree.add_traits(child, *vgpu.traits)
