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
"""What decides where a flavor lands but is outside Placement.

Nova's scheduler filters act on facts Placement does not hold: PCI
devices in the PCI tracker (PciPassthroughFilter), host capabilities
(ComputeCapabilitiesFilter), Cyborg device profiles and image properties.
Each such spec the engine does not model is reported as one line instead
of being silently ignored. Guest NUMA topologies are modelled where the
hosts' NUMA cells are known (numa_bounds says where they are not).
"""

from flavor_exporter.capacity.request import flavor_features

# Memory encryption models that also need a stateless firmware image.
_STATELESS_FIRMWARE_MODELS = ('amd-sev-snp', 'intel-tdx')


def notes(specs, numa, pci, aliases, idle_aliases=()):
    """One line for each placement decision the engine does not model.

    :param specs: a flavor's extra specs, already checked.
    :param numa: whether the flavor has a guest NUMA topology.
    :param pci: the flavor's request.PciDemand list.
    :param aliases: {name: PciAlias} of [pci] alias.
    :param idle_aliases: names asked for with a count of 0.
    """
    lines = []
    if specs.get('hw:pmem'):
        lines.append('hw:pmem: vPMEM namespaces are requested from '
                     'Placement, their NUMA placement is not modelled')
    if pci and numa:
        policies = sorted({specs.get('hw:pci_numa_affinity_policy')
                           or (aliases[demand.alias].numa_policy
                               if demand.alias in aliases else None)
                           or 'legacy' for demand in pci})
        lines.append('PCI NUMA affinity (%s) of a NUMA guest is not '
                     'modelled' % ', '.join(policies))
    elif specs.get('hw:pci_numa_affinity_policy'):
        lines.append('hw:pci_numa_affinity_policy=%s: PCI NUMA affinity is '
                     'not modelled' % specs['hw:pci_numa_affinity_policy'])
    capabilities = sorted(key for key in specs
                          if key.startswith('capabilities:')
                          or key == 'hw:maxphysaddr_bits')
    if capabilities:
        lines.append('%s: ComputeCapabilitiesFilter is not modelled'
                     % ', '.join(capabilities))
    if specs.get('accel:device_profile'):
        lines.append('accel:device_profile=%s: Cyborg device profile groups '
                     'are not modelled' % specs['accel:device_profile'])
    model = flavor_features.mem_encryption_model(specs)
    if model:
        lines.append('hw:mem_encryption (%s): boots only images with '
                     'hw_firmware_type=uefi%s (image-dependent)'
                     % (model, ' and hw_firmware_stateless'
                        if model in _STATELESS_FIRMWARE_MODELS else ''))
    for demand in pci:
        alias = aliases.get(demand.alias)
        # An alias missing from [pci] alias is noted by the engine, which
        # knows whether GPU host aggregates counted it.
        if alias is not None and alias.alternatives:
            lines.append('PCI alias %r has %d specs: Nova refuses that with '
                         'PCI in Placement, else any of them matches; only '
                         'the first is modelled'
                         % (demand.alias, 1 + len(alias.alternatives)))
    for name in idle_aliases:
        # Nova still makes a PCI request for 0 devices: no Placement group,
        # but PciPassthroughFilter (nova.pci.stats._filter_pools) passes
        # only hosts with a free device matching the alias.
        lines.append('PCI alias %r with count 0: no device is allocated, '
                     'but PciPassthroughFilter still wants a free one on '
                     'the host%s; not modelled'
                     % (name, '' if name in aliases else
                        ' (and the alias is not in [pci] alias)'))
    return lines
