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
"""[pci] alias and a flavor's pci_passthrough:alias, read as Nova reads them.

Mirrors nova.pci.request: get_alias_from_config (the JSON schema and the
rules for several entries sharing a name) and the NAME:COUNT[,...] value
of pci_passthrough:alias as _translate_alias_to_requests splits it.
The resource class and traits an alias's devices have in Placement follow
nova.compute.pci_placement_translator: a flavor's pci_passthrough:alias
only finds devices in Placement through the names computed here.
"""

import dataclasses
import json
import re

import os_traits
from oslo_utils import strutils

from flavor_exporter.capacity.request import vocabulary

# nova.objects.fields.PCINUMAAffinityPolicy; hw:pci_numa_affinity_policy
# takes the same values.
NUMA_POLICIES = ('required', 'legacy', 'preferred', 'socket')
DEVICE_TYPES = ('type-PCI', 'type-PF', 'type-VF')

FLAVOR_KEY = 'pci_passthrough:alias'

_KEYS = frozenset(('name', 'capability_type', 'product_id', 'vendor_id',
                   'device_type', 'numa_policy', 'resource_class', 'traits',
                   'live_migratable'))
_PCI_ID = re.compile(r'[0-9a-fA-F]{4}')


def normalize_resource_class(name):
    """Nova's normalisation of a PCI resource_class (pci_placement_translator).

    Upper-cased; kept when standard or already CUSTOM_*, otherwise every run
    of non-alphanumerics becomes '_' and CUSTOM_ is prepended.
    """
    name = name.upper()
    if (name in vocabulary.STANDARD_RESOURCE_CLASSES
            or name.startswith(vocabulary.CUSTOM_PREFIX)):
        return name
    return vocabulary.custom_resource_class(name)


def normalize_traits(traits):
    """Nova's normalisation of a PCI alias/device_spec ``traits`` string.

    Comma separated, not stripped (as Nova); standard traits are kept,
    anything else is upper-cased and made CUSTOM_ unless it already is.
    """
    if not traits:
        return frozenset()
    standard, rest = os_traits.check_traits(traits.split(','))
    custom = set()
    for name in rest:
        name = name.upper()
        custom.add(name if os_traits.is_custom(name)
                   else os_traits.normalize_name(name))
    return frozenset(standard) | frozenset(custom)


@dataclasses.dataclass(frozen=True)
class PciAlias:
    """One entry of nova.conf's [pci] alias."""

    name: str
    vendor_id: str | None = None
    product_id: str | None = None
    device_type: str | None = None
    numa_policy: str | None = None
    resource_class: str | None = None
    traits: frozenset = frozenset()  # normalised as Placement sees them
    live_migratable: bool | None = None
    # Further entries with the same name: without PCI in Placement Nova
    # accepts a device matching any of them; with it Nova refuses them.
    alternatives: tuple = ()

    @property
    def placement_resource_class(self):
        """The class Nova uses when PCI devices are reported to Placement.

        nova.compute.pci_placement_translator.get_resource_class: the
        alias's resource_class, normalised, else
        CUSTOM_PCI_<VENDOR_ID>_<PRODUCT_ID> upper-cased; None when the alias
        has neither (Nova would not accept such an alias then).
        """
        if self.resource_class:
            return normalize_resource_class(self.resource_class)
        if self.vendor_id and self.product_id:
            return ('CUSTOM_PCI_%s_%s'
                    % (self.vendor_id, self.product_id)).upper()
        return None


def _alias_error(value, reason):
    return ValueError('[pci] alias %s: %s' % (value, reason))


def _parse_alias(value):
    try:
        spec = json.loads(value)
    except (TypeError, ValueError) as exc:
        raise _alias_error(value, 'not valid JSON (%s)' % exc) from None
    if not isinstance(spec, dict):
        raise _alias_error(value, 'must be a JSON object')
    unknown = sorted(set(spec) - _KEYS)
    if unknown:
        raise _alias_error(value, 'unknown key(s) %s' % ', '.join(unknown))
    for key, item in spec.items():
        if not isinstance(item, str):
            raise _alias_error(value, '%s must be a string' % key)
    name = spec.get('name')
    if not name or len(name) > 256:
        raise _alias_error(value, 'name is required (1 to 256 characters)')
    for key in ('vendor_id', 'product_id'):
        if key in spec and not _PCI_ID.fullmatch(spec[key]):
            raise _alias_error(value, '%s must be 4 hex digits' % key)
    if spec.get('capability_type', 'pci') != 'pci':
        raise _alias_error(value, "capability_type must be 'pci'")
    if spec.get('device_type', DEVICE_TYPES[0]) not in DEVICE_TYPES:
        raise _alias_error(value, 'device_type must be one of %s'
                           % ', '.join(DEVICE_TYPES))
    numa_policy = spec.get('numa_policy') or 'legacy'
    if numa_policy not in NUMA_POLICIES:
        raise _alias_error(value, 'numa_policy must be one of %s'
                           % ', '.join(NUMA_POLICIES))
    live_migratable = spec.get('live_migratable')
    if live_migratable is not None:
        try:
            live_migratable = strutils.bool_from_string(
                live_migratable, strict=True)
        except ValueError:
            raise _alias_error(
                value, 'live_migratable must be a boolean') from None
    return PciAlias(
        name=name.strip(),
        vendor_id=spec.get('vendor_id'),
        product_id=spec.get('product_id'),
        device_type=spec.get('device_type'),
        numa_policy=numa_policy,
        resource_class=spec.get('resource_class'),
        traits=normalize_traits(spec.get('traits', '')),
        live_migratable=live_migratable)


def parse_aliases(values, pci_in_placement=None):
    """Parse [pci] alias JSON strings into {name: PciAlias}.

    Validates as nova.pci.request.get_alias_from_config does. Several
    entries may share a name only when they agree on numa_policy and all
    set the same device_type (Nova fails on a missing one); the later ones
    become ``alternatives`` of the first. What every spec must identify
    depends on [filter_scheduler]pci_in_placement: with it, vendor_id and
    product_id or a resource_class, and one spec per name; without it,
    vendor_id and product_id. None (unknown) asks for ids or a class.

    :raises ValueError: with a message naming the offending alias.
    """
    aliases = {}
    for value in values or ():
        alias = _parse_alias(value)
        first = aliases.get(alias.name)
        if first is None:
            aliases[alias.name] = alias
            continue
        if first.numa_policy != alias.numa_policy:
            raise _alias_error(
                value, 'NUMA policy mismatch for alias %r' % alias.name)
        if first.device_type is None or first.device_type != (
                alias.device_type):
            raise _alias_error(value, 'aliases named %r must all set the '
                               'same device_type' % alias.name)
        aliases[alias.name] = dataclasses.replace(
            first, alternatives=first.alternatives + (alias,))
    for alias in aliases.values():
        specs = (alias,) + alias.alternatives
        if pci_in_placement and alias.alternatives:
            raise ValueError(
                '[pci] alias %r has %d specs; PCI in Placement supports one '
                'spec per alias' % (alias.name, len(specs)))
        for spec in specs:
            ids = bool(spec.vendor_id and spec.product_id)
            if pci_in_placement is False and not ids:
                raise ValueError('[pci] alias %r needs vendor_id and '
                                 'product_id' % alias.name)
            if not ids and not spec.resource_class:
                raise ValueError('[pci] alias %r needs vendor_id and '
                                 'product_id, or resource_class' % alias.name)
    return aliases


def requested_counts(specs, fail):
    """pci_passthrough:alias=NAME:COUNT[,NAME:COUNT] as [(NAME, COUNT)].

    Split as nova.pci.request._translate_alias_to_requests splits it, the
    count read with int() as there. The API's pattern takes any run of
    digits, 0 included; a missing, non-integer or negative count calls
    fail(key, reason). int() also lets ' 2' and '+2' pass, which the API
    pattern would refuse.
    """
    value = specs.get(FLAVOR_KEY)
    if value is None:
        return []
    counts = []
    for entry in value.split(','):
        parts = entry.split(':')
        if len(parts) != 2 or not parts[0].strip():
            fail(FLAVOR_KEY, '%r is not NAME:COUNT' % entry.strip())
        name = parts[0].strip()
        try:
            count = int(parts[1])
        except ValueError:
            fail(FLAVOR_KEY, 'count of %r is not an integer' % name)
        if count < 0:
            fail(FLAVOR_KEY, 'count of %r is negative' % name)
        counts.append((name, count))
    return counts


def devices_by_alias(specs):
    """{alias name: devices} an instance of a flavor with these specs holds.

    What nova.pci.request._translate_alias_to_requests asks for, summed
    per name (a name listed twice makes two requests); names asked with
    a count of 0 hold no device and are left out. Only the
    pci_passthrough:alias spec is read: the instance holds its devices
    whatever else its flavor says.

    :raises ValueError: naming the spec and what is wrong with it.
    """
    def fail(key, reason):
        raise ValueError('%s: %s' % (key, reason))

    devices = {}
    for name, count in requested_counts(specs, fail):
        if count:
            devices[name] = devices.get(name, 0) + count
    return devices
