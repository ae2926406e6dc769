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

"""GPU devices and their types, as the hosts of a snapshot have them.

GPUs reach Nova three ways, and each is a device here:

- PCI devices reported to Placement: one unit of the alias's class on a
  child provider (nova.compute.pci_placement_translator);
- PCI devices counted from GPU host aggregates (gpu, gpu_count,
  gpu_type) where Placement does not have them: as fit._pci_unit, the
  aggregate counts only on hosts whose tree lacks the alias's class;
- VGPU (and PGPU) inventories, and custom classes of child providers
  (devices an operator or Cyborg reports): one unit each.

A type is named by the [pci] alias whose class (and traits) the devices
have, else by the resource class and the provider's custom traits
(``VGPU:CUSTOM_NVIDIA_11``): two providers of one class are told apart
by their traits, as flavors requiring a trait tell them apart. A root
provider's custom classes are the compute node's own resources, not
devices.
"""

import dataclasses

from flavor_exporter.capacity.fit import fit

# Standard classes whose every unit is a device, wherever it is reported.
DEVICE_CLASSES = frozenset(('VGPU', 'PGPU'))
CUSTOM = 'CUSTOM_'
PLACEMENT = 'placement'
AGGREGATES = 'aggregates'


@dataclasses.dataclass(frozen=True)
class Kind:
    """What a type is: its name, Placement class and traits."""

    name: str
    resource_class: str | None
    traits: tuple


@dataclasses.dataclass(frozen=True)
class Row:
    """Devices of one type on one provider or GPU aggregate pool.

    where: the provider's index in the host's providers, or the pool
    class (fit.pool_class); rc: the class counted there.
    """

    kind: Kind
    where: object
    rc: str

    @property
    def counted_from(self):
        return PLACEMENT if isinstance(self.where, int) else AGGREGATES


def aliases_by_class(aliases):
    """{resource class: [(traits, name)]}, the most specific alias first."""
    by_class = {}
    for name, alias in sorted(aliases.items()):
        rc = alias.placement_resource_class
        if rc:
            by_class.setdefault(rc, []).append((alias.traits, name))
    for candidates in by_class.values():
        candidates.sort(key=lambda item: (-len(item[0]), item[1]))
    return by_class


def _kind(rc, traits, root, by_class):
    # Only Nova's own device providers serve a PCI alias (fit._pci_unit);
    # another service's of the same class is a type of its class.
    for alias_traits, name in by_class.get(rc, ()):
        if fit.MANAGED_PCI_TRAIT in traits and alias_traits <= traits:
            return Kind(name, rc, tuple(sorted(alias_traits)))
    if rc in DEVICE_CLASSES or (not root and rc.startswith(CUSTOM)):
        custom = tuple(sorted(t for t in traits if t.startswith(CUSTOM)))
        return Kind(rc + (':' + ','.join(custom) if custom else ''), rc,
                    custom)
    return None


def device_rows(host, aliases, by_class=None):
    """[Row] of host: its devices by type, in a fixed order.

    Only the host's shape decides them (inventories, traits, GPU pools),
    so every host of a host group has the same rows.
    """
    if by_class is None:
        by_class = aliases_by_class(aliases)
    rows = []
    for index, provider in enumerate(host.providers):
        for rc in sorted(provider.inventories):
            kind = _kind(rc, provider.traits, index == 0, by_class)
            if kind is not None:
                rows.append(Row(kind, index, rc))
    classes = {rc for p in host.providers for rc in p.inventories
               if fit.MANAGED_PCI_TRAIT in p.traits}
    seen = set()
    for pool in host.gpu_pools:
        if pool.gpu_type in seen:
            continue  # the first pool of a type is the one matched (fit)
        seen.add(pool.gpu_type)
        alias = aliases.get(pool.gpu_type)
        rc = alias.placement_resource_class if alias else None
        if rc and rc in classes:
            continue  # Nova's providers have them: fit takes them there
        rows.append(Row(Kind(pool.gpu_type, rc, tuple(sorted(
            alias.traits)) if alias else ()), fit.pool_class(pool.gpu_type),
            fit.pool_class(pool.gpu_type)))
    return rows


def amounts(host, row):
    """(capacity, used) of row on host."""
    if isinstance(row.where, int):
        provider = host.providers[row.where]
        return (provider.inventories[row.rc].capacity,
                provider.usages.get(row.rc, 0))
    for pool in host.gpu_pools:
        if fit.pool_class(pool.gpu_type) == row.where:
            return pool.count, pool.used
    raise KeyError(row.where)


def row_key(host, row):
    """What fit.units names row's provider by, and the class."""
    if isinstance(row.where, int):
        return host.providers[row.where].uuid, row.rc
    return row.where, row.rc


def by_type(rows):
    """{type name: (Kind, {counted from}, [row index])}, in row order."""
    found = {}
    for index, row in enumerate(rows):
        entry = found.setdefault(row.kind.name, (row.kind, set(), []))
        entry[1].add(row.counted_from)
        entry[2].append(index)
    return found
