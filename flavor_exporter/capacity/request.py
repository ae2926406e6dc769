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
"""Translate a flavor into the request Nova's scheduler makes for it.

The rules follow Nova's scheduler (nova.scheduler.utils.ResourceRequest
.from_request_spec and resources_from_request_spec), the checks Nova's API
makes before a boot reaches the scheduler (nova.virt.hardware
.numa_get_constraints, nova.pci.request), the request filters that add
traits (nova.scheduler.request_filter) and what Placement refuses to answer
(placement.lib, placement.handlers.allocation_candidate). Only what the
flavor alone decides is modelled: image properties, boot from volume, ports
and server groups belong to one boot, not to the flavor.

Where Nova's scheduler merely logs a malformed resources/trait/group_policy
extra spec and carries on without it, this module raises InvalidExtraSpec,
as Nova's API does when such a spec is set (microversion 2.86 and later): a
flavor whose numbers cannot be trusted is reported, not counted.

This module is longer than most because it gathers, in one place, rules
that Nova spreads over half a dozen modules.
"""

import dataclasses
import json
import math
import re

from oslo_utils import strutils

from flavor_exporter.capacity import extra_specs as agg_specs

try:
    import os_traits
except ImportError:  # optional: only sharpens alias trait normalisation
    os_traits = None


class InvalidExtraSpec(ValueError):
    """A flavor extra spec Nova would reject; the flavor is skipped."""

    def __init__(self, flavor_name, key, reason):
        self.flavor_name = flavor_name
        self.key = key
        self.reason = reason
        super().__init__('flavor %r: extra spec %r: %s'
                         % (flavor_name, key, reason))


# os-resource-classes 1.1.0 STANDARDS; custom classes are CUSTOM_*.
STANDARD_RESOURCE_CLASSES = frozenset((
    'VCPU', 'MEMORY_MB', 'DISK_GB', 'PCI_DEVICE', 'SRIOV_NET_VF',
    'NUMA_SOCKET', 'NUMA_CORE', 'NUMA_THREAD', 'NUMA_MEMORY_MB',
    'IPV4_ADDRESS', 'VGPU', 'VGPU_DISPLAY_HEAD',
    'NET_BW_EGR_KILOBIT_PER_SEC', 'NET_BW_IGR_KILOBIT_PER_SEC', 'PCPU',
    'MEM_ENCRYPTION_CONTEXT', 'FPGA', 'PGPU',
    'NET_PACKET_RATE_KILOPACKET_PER_SEC',
    'NET_PACKET_RATE_EGR_KILOPACKET_PER_SEC',
    'NET_PACKET_RATE_IGR_KILOPACKET_PER_SEC',
))
# The namespaces of os-traits; every standard trait starts with one.
_STANDARD_TRAIT_PREFIXES = ('COMPUTE_', 'HW_', 'MISC_', 'OWNER_', 'STORAGE_')

_CUSTOM_RC = re.compile(r'CUSTOM_[A-Z0-9_]+')
_TRAIT = re.compile(r'[A-Z0-9_]+')
# resources[$S]:$RC and trait[$S]:$TRAIT, $S as Placement 1.33 allows.
_GRANULAR_KEY = re.compile(r'(resources|trait)([a-zA-Z0-9_-]{1,64})?:(.*)')
# numa_get_constraints only looks at unsuffixed and numbered groups here.
_CPU_RESOURCE_KEY = re.compile(r'resources([1-9][0-9]*)?:(VCPU|PCPU)')
_HT_TRAIT_KEY = re.compile(r'trait([1-9][0-9]*)?:HW_CPU_HYPERTHREADING')
_NUMA_KEY = re.compile(r'hw:numa_(nodes|cpus\.\d+|mem\.\d+)')
_PCI_ID = re.compile(r'[0-9a-fA-F]{4}')

_CPU_POLICIES = ('dedicated', 'shared', 'mixed')
_THREAD_POLICIES = ('prefer', 'isolate', 'require')
_EMULATOR_POLICIES = ('share', 'isolate')
_PCI_NUMA_POLICIES = ('required', 'legacy', 'preferred', 'socket')
_PCI_DEVICE_TYPES = ('type-PCI', 'type-PF', 'type-VF')
_MEM_ENCRYPTION_TRAITS = {
    'amd-sev': 'HW_CPU_X86_AMD_SEV',
    'amd-sev-es': 'HW_CPU_X86_AMD_SEV_ES',
    'amd-sev-snp': 'HW_CPU_X86_AMD_SEV_SNP',
    'intel-tdx': 'HW_CPU_X86_INTEL_TDX',
}
_TPM_VERSION_TRAITS = {'1.2': 'COMPUTE_SECURITY_TPM_1_2',
                       '2.0': 'COMPUTE_SECURITY_TPM_2_0'}
_TPM_MODEL_TRAITS = {'tpm-tis': 'COMPUTE_SECURITY_TPM_TIS',
                     'tpm-crb': 'COMPUTE_SECURITY_TPM_CRB'}
_TPM_SECRET_TRAITS = {
    'user': 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER',
    'host': 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST',
    'deployment': 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT',
}
_MAXPHYSADDR_TRAITS = {'passthrough': 'COMPUTE_ADDRESS_SPACE_PASSTHROUGH',
                       'emulate': 'COMPUTE_ADDRESS_SPACE_EMULATED'}
_SECURE_BOOT_POLICIES = ('required', 'disabled', 'optional')
_EPHEMERAL_FORMATS = ('plain', 'luks', 'luksv2')
_SOUND_MODELS = ('sb16', 'es1370', 'pcspk', 'ac97', 'ich6', 'ich9', 'usb',
                 'virtio')
_ALIAS_KEYS = frozenset(('name', 'capability_type', 'product_id',
                         'vendor_id', 'device_type', 'numa_policy',
                         'resource_class', 'traits', 'live_migratable'))

VGPU = 'VGPU'


def normalize_resource_class(name):
    """Nova's normalisation of a PCI resource_class (pci_placement_translator).

    Upper-cased; kept when standard or already CUSTOM_*, otherwise every run
    of non-alphanumerics becomes '_' and CUSTOM_ is prepended.
    """
    name = name.upper()
    if name in STANDARD_RESOURCE_CLASSES or name.startswith('CUSTOM_'):
        return name
    return 'CUSTOM_' + re.sub('[^0-9A-Za-z]+', '_', name).upper()


def _is_standard_trait(name):
    if os_traits is not None:
        return bool(os_traits.check_traits([name])[0])
    return (_TRAIT.fullmatch(name) is not None
            and name.startswith(_STANDARD_TRAIT_PREFIXES))


def normalize_traits(traits):
    """Nova's normalisation of a PCI alias/device_spec ``traits`` string.

    Comma separated, not stripped (as Nova); standard traits are kept,
    anything else is upper-cased and made CUSTOM_ unless it already is.
    """
    if not traits:
        return frozenset()
    result = set()
    for name in traits.split(','):
        if _is_standard_trait(name):
            result.add(name)
            continue
        name = name.upper()
        if not name.startswith('CUSTOM_'):
            name = 'CUSTOM_' + re.sub('[^0-9A-Za-z]+', '_', name).upper()
        result.add(name)
    return frozenset(result)


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


@dataclasses.dataclass
class RequestGroup:
    """One group of a Placement allocation candidates query."""

    resources: dict  # resource class -> amount
    required_traits: frozenset = frozenset()
    forbidden_traits: frozenset = frozenset()
    suffix: str = ''  # '' is the unnumbered group

    @property
    def granular(self):
        """Whether one provider must satisfy the whole group."""
        return bool(self.suffix)


@dataclasses.dataclass(frozen=True)
class PciDemand:
    """Devices of one alias that one instance needs."""

    alias: str
    count: int
    resource_class: str | None  # None: alias not in [pci] alias
    traits: frozenset = frozenset()


@dataclasses.dataclass
class ResourceRequest:
    """What one instance of a flavor needs from one host."""

    groups: list  # RequestGroup, the unnumbered one first
    group_policy: str | None = None
    pci: list = dataclasses.field(default_factory=list)  # PciDemand
    # aggregate_instance_extra_specs (and unscoped) keys -> required value.
    aggregate_specs: dict = dataclasses.field(default_factory=dict)
    # What the engine cannot model (NUMA topology, ...), one line each.
    unsupported: list = dataclasses.field(default_factory=list)
    # Traits Nova's request filters require on the compute node (root)
    # provider because of this flavor (Placement's root_required).
    root_required: frozenset = frozenset()
    # Granular groups the flavor itself defines, counted as Nova counts
    # them for the group_policy default: before zero amounts are dropped.
    flavor_group_count: int = 0
    # hw:cpu_policy=dedicated only: the VCPU instead of PCPU query Nova
    # also makes unless [workarounds]disable_fallback_pcpu_query is set.
    # It can only add capacity on hosts that report no PCPU inventory
    # (legacy vcpu_pin_set hosts): elsewhere NUMATopologyFilter pins into
    # the same dedicated CPUs that PCPU inventory counts.
    fallback: 'ResourceRequest | None' = None
    flavor_name: str | None = None

    @property
    def gpu(self):
        """(type, count) of the GPUs one instance gets, or None.

        VGPU in any group gives ('VGPU', total); otherwise PCI aliases give
        (their names joined by ',', total device count).
        """
        vgpus = sum(group.resources.get(VGPU, 0) for group in self.groups)
        if vgpus:
            return VGPU, vgpus
        if self.pci:
            names = list(dict.fromkeys(demand.alias for demand in self.pci))
            return ','.join(names), sum(demand.count for demand in self.pci)
        return None

    def pci_groups(self):
        """The request groups Nova adds for PCI devices in Placement.

        With [filter_scheduler]pci_in_placement, Nova
        (RequestSpec.generate_request_groups_from_pci_requests) turns every
        requested device into its own granular group of exactly one unit
        of the alias's resource class, requiring the alias's traits: a
        flavor asking ``a100:2`` sends two groups ``{CUSTOM_..: 1}`` so the
        two devices may come from different providers (one provider per
        physical device or PF). No same_subtree is sent for them, so the
        devices can come from anywhere in the compute node's tree. Nova 34
        also requires OWNER_NOVA on these groups and on the root once every
        compute is new enough (request_filter.owner_nova_filter); that is a
        deployment fact, not a flavor one, and is left out here.

        Demands whose alias is not configured here are left out: Nova
        would refuse the boot, but this service still matches them against
        GPU host aggregates.
        """
        taken = {group.suffix for group in self.groups}
        groups = []
        for index, demand in enumerate(self.pci):
            if demand.resource_class is None:
                continue
            for device in range(demand.count):
                suffix = 'pci%d-%d' % (index, device)
                while suffix in taken:
                    suffix = '_' + suffix
                taken.add(suffix)
                groups.append(RequestGroup(
                    resources={demand.resource_class: 1},
                    required_traits=frozenset(demand.traits),
                    suffix=suffix))
        return groups

    def placement_groups(self, pci_in_placement=False):
        """Every group of Nova's allocation candidates query."""
        groups = list(self.groups)
        if pci_in_placement:
            groups.extend(self.pci_groups())
        return groups

    def placement_group_policy(self, pci_in_placement=False):
        """The group_policy Nova sends to Placement.

        nova.scheduler.utils.resources_from_request_spec: with two or more
        granular groups and no group_policy in the flavor, Nova uses 'none'
        when the flavor itself defined at most one granular group (the
        others come from PCI devices or ports); otherwise Placement refuses
        the query and nothing can be booted, which raises InvalidExtraSpec.
        'isolate' keeps every granular group, PCI ones included, on a
        provider of its own.
        """
        if self.group_policy:
            return self.group_policy
        granular = sum(1 for group in self.placement_groups(pci_in_placement)
                       if group.granular)
        if granular < 2:
            return None
        if self.flavor_group_count <= 1:
            return 'none'
        raise InvalidExtraSpec(
            self.flavor_name, 'group_policy',
            'required by Placement with %d granular groups' % granular)


# --------------------------------------------------------------- [pci] alias


def _alias_error(value, reason):
    return ValueError('[pci] alias %s: %s' % (value, reason))


def _parse_alias(value):
    try:
        spec = json.loads(value)
    except (TypeError, ValueError) as exc:
        raise _alias_error(value, 'not valid JSON (%s)' % exc) from None
    if not isinstance(spec, dict):
        raise _alias_error(value, 'must be a JSON object')
    unknown = sorted(set(spec) - _ALIAS_KEYS)
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
    if spec.get('device_type', _PCI_DEVICE_TYPES[0]) not in _PCI_DEVICE_TYPES:
        raise _alias_error(value, 'device_type must be one of %s'
                           % ', '.join(_PCI_DEVICE_TYPES))
    numa_policy = spec.get('numa_policy') or 'legacy'
    if numa_policy not in _PCI_NUMA_POLICIES:
        raise _alias_error(value, 'numa_policy must be one of %s'
                           % ', '.join(_PCI_NUMA_POLICIES))
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


# ------------------------------------------------------------ build_request


@dataclasses.dataclass
class _Group:
    resources: dict = dataclasses.field(default_factory=dict)
    required: set = dataclasses.field(default_factory=set)
    forbidden: set = dataclasses.field(default_factory=set)


class _Builder:
    """The groups of one query, as Nova's ResourceRequest accumulates them."""

    def __init__(self, groups=None):
        self.groups = {}
        for suffix, group in (groups or {}).items():
            self.groups[suffix] = _Group(dict(group.resources),
                                         set(group.required),
                                         set(group.forbidden))

    def group(self, suffix=''):
        return self.groups.setdefault(suffix, _Group())

    def set_resource(self, rc, amount, suffix=''):
        self.group(suffix).resources[rc] = amount

    def add_trait(self, trait, value, suffix=''):
        group = self.group(suffix)
        (group.required if value == 'required' else group.forbidden).add(
            trait)

    def requested(self, rc):
        """Whether any group names rc, even with 0 (Nova's merge)."""
        return any(rc in group.resources for group in self.groups.values())

    def finish(self, fail, pci=False):
        """Drop zero amounts and empty groups; refuse what Placement does.

        An empty query is refused too, unless PCI devices may fill it (with
        PCI in Placement they are groups of their own).
        """
        result = []
        for suffix in sorted(self.groups):
            group = self.groups[suffix]
            resources = {rc: n for rc, n in group.resources.items() if n}
            if not (resources or group.required or group.forbidden):
                continue
            if not resources:
                fail('trait%s:%s' % (suffix, sorted(group.required
                                                    | group.forbidden)[0]),
                     'a request group with traits but no resources is '
                     'refused by Placement')
            both = group.required & group.forbidden
            if both:
                fail('trait%s:%s' % (suffix, sorted(both)[0]),
                     'both required and forbidden in one group')
            result.append(RequestGroup(
                resources=resources,
                required_traits=frozenset(group.required),
                forbidden_traits=frozenset(group.forbidden),
                suffix=suffix))
        if not result and not pci:
            fail('resources', 'the flavor requests no resources at all')
        return result


def _parse_amount(value, fail, key):
    try:
        amount = int(value)
    except (TypeError, ValueError):
        fail(key, 'amount %r is not an integer' % (value,))
    if amount < 0:
        fail(key, 'amount %r is negative' % (value,))
    return amount


def _granular_specs(specs, fail):
    """resources[$S]:, trait[$S]: and group_policy, as Nova parses them."""
    builder = _Builder()
    group_policy = None
    for key, value in specs.items():
        if key == 'group_policy':
            if value not in ('none', 'isolate'):
                fail(key, "must be 'none' or 'isolate', not %r" % (value,))
            group_policy = value
            continue
        match = _GRANULAR_KEY.fullmatch(key)
        if not match:
            continue
        prefix, suffix, name = match.groups()
        suffix = suffix or ''
        if prefix == 'resources':
            if not (name in STANDARD_RESOURCE_CLASSES
                    or _CUSTOM_RC.fullmatch(name)):
                fail(key, 'unknown resource class %r' % name)
            builder.set_resource(name, _parse_amount(value, fail, key),
                                 suffix)
        else:
            if not _TRAIT.fullmatch(name):
                fail(key, 'invalid trait name %r' % name)
            if value not in ('required', 'forbidden'):
                fail(key, "must be 'required' or 'forbidden', not %r"
                     % (value,))
            builder.add_trait(name, value, suffix)
    return builder, group_policy


def _parse_cpu_set(spec, fail, key):
    """nova.virt.hardware.parse_cpu_spec: "0-3,^2,5" -> {0, 1, 3, 5}."""
    cpus, rejected = set(), set()
    for rule in spec.split(','):
        rule = rule.strip()
        if not rule:
            continue
        target = cpus
        if rule.startswith('^'):
            target, rule = rejected, rule[1:]
        first, dash, last = rule.partition('-')
        try:
            start = int(first)
            end = int(last) if dash else start
        except ValueError:
            fail(key, 'invalid CPU set expression %r' % spec)
        if start > end:
            fail(key, 'invalid CPU range %r' % rule)
        target.update(range(start, end + 1))
    return cpus - rejected


def _cpu_mask(specs, key, vcpus, fail):
    """A CPU mask over the guest's CPUs; '^' alone means all but these."""
    mask = specs[key]
    if mask.strip().startswith('^'):
        mask = '0-%d,%s' % (vcpus - 1, mask)
    return _parse_cpu_set(mask, fail, key)


def _choice(specs, key, allowed, fail):
    value = specs.get(key)
    if value and value not in allowed:
        fail(key, '%r is not one of %s' % (value, ', '.join(allowed)))
    return value or None


@dataclasses.dataclass
class _Cpu:
    policy: str | None
    pcpus: int  # PCPU to request for dedicated/mixed, emulator thread incl.
    vcpus: int  # VCPU to request for mixed
    thread_trait: str | None  # HW_CPU_HYPERTHREADING: required/forbidden


def _cpu_request(flavor, specs, fail):
    """CPU policies as numa_get_constraints checks and Nova translates them.

    nova.virt.hardware.numa_get_constraints (run by the API on every boot)
    and ResourceRequest._translate_pinning_policies.
    """
    policy = _choice(specs, 'hw:cpu_policy', _CPU_POLICIES, fail)
    thread = _choice(specs, 'hw:cpu_thread_policy', _THREAD_POLICIES, fail)
    emulator = _choice(specs, 'hw:emulator_threads_policy',
                       _EMULATOR_POLICIES, fail)
    all_cpus = set(range(flavor.vcpus))

    realtime = None
    if strutils.bool_from_string(specs.get('hw:cpu_realtime')):
        key = 'hw:cpu_realtime_mask'
        realtime = (_cpu_mask(specs, key, flavor.vcpus, fail)
                    if specs.get(key) else set(all_cpus))
        if not realtime or (realtime == all_cpus and not emulator):
            fail(key, 'realtime needs a mask leaving a non-realtime vCPU, '
                 'or hw:emulator_threads_policy')
        if not realtime <= all_cpus:
            fail(key, 'mask names vCPUs the flavor does not have')

    dedicated = None
    key = 'hw:cpu_dedicated_mask'
    if specs.get(key):
        dedicated = _cpu_mask(specs, key, flavor.vcpus, fail)
        if not dedicated or not all_cpus - dedicated:
            fail(key, 'a mixed instance needs both dedicated and shared '
                 'vCPUs')
        if not dedicated <= all_cpus:
            fail(key, 'mask names vCPUs the flavor does not have')

    asked = {'VCPU': 0, 'PCPU': 0}
    ht_trait = None
    for key, value in specs.items():
        match = _CPU_RESOURCE_KEY.fullmatch(key)
        if match:
            asked[match.group(2)] += int(value)  # checked as resources
        if _HT_TRAIT_KEY.fullmatch(key):
            ht_trait = value

    effective = policy
    if policy and (asked['VCPU'] or asked['PCPU']):
        fail('hw:cpu_policy', 'cannot be combined with resources:VCPU or '
             'resources:PCPU')
    if asked['VCPU'] and asked['PCPU']:
        fail('resources:PCPU', 'cannot be combined with resources:VCPU')
    if asked['PCPU']:
        wanted = flavor.vcpus + (1 if emulator == 'isolate' else 0)
        if asked['PCPU'] != wanted:
            fail('resources:PCPU', 'must be exactly %d for %d vCPUs%s'
                 % (wanted, flavor.vcpus, ' and isolated emulator threads'
                    if emulator == 'isolate' else ''))
        effective = 'dedicated'
    if asked['VCPU']:
        effective = 'shared'
    if thread and ht_trait:
        fail('hw:cpu_thread_policy', 'cannot be combined with '
             'trait:HW_CPU_HYPERTHREADING')
    effective_thread = thread or {'forbidden': 'isolate',
                                  'required': 'require'}.get(ht_trait)

    if effective in ('shared', None):
        if effective_thread:
            fail('hw:cpu_thread_policy' if thread else
                 'trait:HW_CPU_HYPERTHREADING',
                 'needs hw:cpu_policy=dedicated or mixed')
        if emulator == 'isolate':
            fail('hw:emulator_threads_policy',
                 'isolate needs hw:cpu_policy=dedicated or mixed')
        if dedicated:
            fail('hw:cpu_dedicated_mask', 'needs hw:cpu_policy=mixed')
        if realtime:
            fail('hw:cpu_realtime', 'needs hw:cpu_policy=dedicated or mixed')
    elif effective == 'dedicated':
        if dedicated:
            fail('hw:cpu_dedicated_mask', 'needs hw:cpu_policy=mixed')
    elif realtime and dedicated or not (realtime or dedicated):
        fail('hw:cpu_dedicated_mask', 'hw:cpu_policy=mixed needs exactly '
             'one of hw:cpu_dedicated_mask and hw:cpu_realtime_mask')

    # The translation itself looks at hw:cpu_policy only, not at the
    # policy implied by resources:PCPU.
    pcpus = vcpus = 0
    if policy == 'dedicated':
        pcpus = flavor.vcpus
    elif policy == 'mixed':
        pcpus = len(dedicated or realtime)
        vcpus = flavor.vcpus - pcpus
    if policy in ('dedicated', 'mixed') and emulator == 'isolate':
        pcpus += 1
    return _Cpu(policy, pcpus, vcpus,
                {'isolate': 'forbidden', 'require': 'required'}.get(thread))


def _check_memory_specs(specs, fail):
    """The rest of numa_get_constraints that a flavor alone can fail."""
    nodes = specs.get('hw:numa_nodes')
    if nodes is not None and (not strutils.is_int_like(nodes)
                              or int(nodes) < 1):
        fail('hw:numa_nodes', '%r is not a positive integer' % (nodes,))
    page_size = specs.get('hw:mem_page_size')
    if page_size and page_size not in ('any', 'large', 'small') and (
            not page_size.isdigit()):
        try:
            strutils.string_to_bytes(page_size, return_int=True)
        except ValueError:
            fail('hw:mem_page_size', 'invalid page size %r' % page_size)
    if (strutils.bool_from_string(specs.get('hw:locked_memory'))
            and not page_size):
        fail('hw:locked_memory', 'needs hw:mem_page_size')


def _hardware_features(specs, fail):
    """Other flavor-only translations of from_request_spec and the filters.

    Returns (unnumbered resources, {trait: 'required'/'forbidden'},
    root_required traits).
    """
    resources, traits, root = {}, {}, set()

    if strutils.bool_from_string(specs.get('hw:mem_encryption')):
        model = specs.get('hw:mem_encryption_model') or 'amd-sev'
        if model not in _MEM_ENCRYPTION_TRAITS:
            fail('hw:mem_encryption_model', 'unknown model %r' % model)
        resources['MEM_ENCRYPTION_CONTEXT'] = 1
        traits[_MEM_ENCRYPTION_TRAITS[model]] = 'required'

    labels = [label.strip() for label in
              (specs.get('hw:pmem') or '').split(',') if label.strip()]
    for label in labels:
        rc = 'CUSTOM_' + re.sub('[^0-9A-Za-z]+', '_',
                                'PMEM_NAMESPACE_' + label).upper()
        resources[rc] = resources.get(rc, 0) + 1

    # Nova reads these with "flavor value or image value": '' is unset.
    version = specs.get('hw:tpm_version')
    if version:
        if version not in _TPM_VERSION_TRAITS:
            fail('hw:tpm_version', 'unknown TPM version %r' % version)
        model = specs.get('hw:tpm_model') or 'tpm-tis'
        if model not in _TPM_MODEL_TRAITS:
            fail('hw:tpm_model', 'unknown TPM model %r' % model)
        if model == 'tpm-crb' and version != '2.0':
            fail('hw:tpm_model', 'tpm-crb needs hw:tpm_version=2.0')
        traits[_TPM_MODEL_TRAITS[model]] = 'required'
        traits[_TPM_VERSION_TRAITS[version]] = 'required'
        secret = specs.get('hw:tpm_secret_security') or 'user'
        if secret not in _TPM_SECRET_TRAITS:
            fail('hw:tpm_secret_security', 'unknown policy %r' % secret)
        root.add(_TPM_SECRET_TRAITS[secret])

    policy = _choice(specs, 'hw:pci_numa_affinity_policy',
                     _PCI_NUMA_POLICIES, fail)
    if policy == 'socket':
        traits['COMPUTE_SOCKET_PCI_NUMA_AFFINITY'] = 'required'

    if _choice(specs, 'os:secure_boot', _SECURE_BOOT_POLICIES,
               fail) == 'required':
        traits['COMPUTE_SECURITY_UEFI_SECURE_BOOT'] = 'required'

    mode = specs.get('hw:maxphysaddr_mode')
    if mode:
        if mode not in _MAXPHYSADDR_TRAITS:
            fail('hw:maxphysaddr_mode', 'unknown mode %r' % mode)
        traits[_MAXPHYSADDR_TRAITS[mode]] = 'required'

    # nova.scheduler.request_filter: traits on the root provider.
    if specs.get('accel:device_profile'):
        root.add('COMPUTE_ACCELERATORS')
    if strutils.bool_from_string(specs.get('hw:virtio_packed_ring')):
        root.add('COMPUTE_NET_VIRTIO_PACKED')
    if strutils.bool_from_string(specs.get('hw:ephemeral_encryption')):
        root.add('COMPUTE_EPHEMERAL_ENCRYPTION')
        fmt = _choice(specs, 'hw:ephemeral_encryption_format',
                      _EPHEMERAL_FORMATS, fail)
        if fmt:
            root.add('COMPUTE_EPHEMERAL_ENCRYPTION_' + fmt.upper())
    if _choice(specs, 'hw:sound_model', _SOUND_MODELS, fail) == 'virtio':
        root.add('COMPUTE_SOUND_MODEL_VIRTIO')
    return resources, traits, frozenset(root)


def _pci_demands(specs, aliases, fail):
    """pci_passthrough:alias=NAME:COUNT[,NAME:COUNT] (nova.pci.request)."""
    key = 'pci_passthrough:alias'
    value = specs.get(key)
    if value is None:
        return []
    demands = []
    for entry in value.split(','):
        parts = entry.split(':')
        if len(parts) != 2 or not parts[0].strip():
            fail(key, '%r is not NAME:COUNT' % entry.strip())
        name = parts[0].strip()
        try:
            count = int(parts[1])
        except ValueError:
            fail(key, 'count of %r is not an integer' % name)
        if count < 1:
            fail(key, 'count of %r must be at least 1' % name)
        alias = aliases.get(name)
        demands.append(PciDemand(
            alias=name, count=count,
            resource_class=alias.placement_resource_class if alias else None,
            traits=alias.traits if alias else frozenset()))
    return demands


def _unmodelled(specs, cpu, pci, aliases):
    """What decides placement but is outside Placement, one line each."""
    notes = []
    numa_keys = sorted(key for key in specs if _NUMA_KEY.fullmatch(key))
    pinned = cpu.policy in ('dedicated', 'mixed') or any(
        _GRANULAR_KEY.fullmatch(key) and key.endswith(':PCPU')
        and int(value) > 0 for key, value in specs.items())
    numa = bool(numa_keys or pinned or specs.get('hw:mem_page_size')
                or specs.get('hw:pmem'))
    if numa_keys:
        notes.append('%s: the guest NUMA topology must fit host NUMA nodes '
                     '(NUMATopologyFilter); not modelled'
                     % ', '.join(numa_keys))
    if pinned:
        notes.append('pinned CPUs must fit in the free dedicated CPUs of '
                     'host NUMA nodes (NUMATopologyFilter); only PCPU '
                     'totals are modelled')
    if specs.get('hw:mem_page_size'):
        notes.append('hw:mem_page_size=%s: huge pages per host NUMA node '
                     'are not in Placement; not modelled'
                     % specs['hw:mem_page_size'])
    if specs.get('hw:pmem'):
        notes.append('hw:pmem: vPMEM namespaces are requested from '
                     'Placement, their NUMA placement is not modelled')
    if pci and numa:
        policies = sorted({specs.get('hw:pci_numa_affinity_policy')
                           or (aliases[demand.alias].numa_policy
                               if demand.alias in aliases else None)
                           or 'legacy' for demand in pci})
        notes.append('PCI NUMA affinity (%s) of a NUMA guest is not '
                     'modelled' % ', '.join(policies))
    elif specs.get('hw:pci_numa_affinity_policy'):
        notes.append('hw:pci_numa_affinity_policy=%s: PCI NUMA affinity is '
                     'not modelled' % specs['hw:pci_numa_affinity_policy'])
    capabilities = sorted(key for key in specs
                          if key.startswith('capabilities:')
                          or key == 'hw:maxphysaddr_bits')
    if capabilities:
        notes.append('%s: ComputeCapabilitiesFilter is not modelled'
                     % ', '.join(capabilities))
    if specs.get('accel:device_profile'):
        notes.append('accel:device_profile=%s: Cyborg device profile groups '
                     'are not modelled' % specs['accel:device_profile'])
    if strutils.bool_from_string(specs.get('hw:mem_encryption')):
        model = specs.get('hw:mem_encryption_model') or 'amd-sev'
        notes.append('hw:mem_encryption (%s): boots only images with '
                     'hw_firmware_type=uefi%s (image-dependent)'
                     % (model, ' and hw_firmware_stateless'
                        if model in ('amd-sev-snp', 'intel-tdx') else ''))
    for demand in pci:
        alias = aliases.get(demand.alias)
        if alias is None:
            notes.append('PCI alias %r is not in [pci] alias: no Placement '
                         'resource class known' % demand.alias)
        elif alias.alternatives:
            notes.append('PCI alias %r has %d specs: Nova refuses that with '
                         'PCI in Placement, else any of them matches; only '
                         'the first is modelled'
                         % (demand.alias, 1 + len(alias.alternatives)))
    return notes


def _assemble(flavor, granular, cpu, features, pin, fail, pci):
    """One query's groups, in from_request_spec's order of operations."""
    builder = _Builder(granular.groups)
    if pin:
        if cpu.policy == 'mixed':
            builder.set_resource('VCPU', cpu.vcpus)
        if cpu.policy in ('dedicated', 'mixed'):
            builder.set_resource('PCPU', cpu.pcpus)
        if cpu.thread_trait:
            builder.add_trait('HW_CPU_HYPERTHREADING', cpu.thread_trait)
    # Flavor fields fill in only what no group (not even with 0) names.
    if not builder.requested('VCPU') and not builder.requested('PCPU'):
        builder.set_resource('VCPU', flavor.vcpus)
    if not builder.requested('MEMORY_MB'):
        builder.set_resource('MEMORY_MB', flavor.ram)
    if not builder.requested('DISK_GB'):
        # Swap is in MB; Nova rounds it up to whole GB
        # (compute_utils.convert_mb_to_ceil_gb).
        disk = (flavor.disk + (flavor.ephemeral or 0)
                + math.ceil((flavor.swap or 0) / 1024))
        if disk:
            builder.set_resource('DISK_GB', disk)
    resources, traits, _root = features
    for rc, amount in resources.items():
        builder.set_resource(rc, amount)
    for trait, value in traits.items():
        builder.add_trait(trait, value)
    return builder.finish(fail, pci=pci)


def build_request(flavor, aliases):
    """The ResourceRequest Nova builds for flavor; InvalidExtraSpec if bad.

    :param flavor: a model.Flavor.
    :param aliases: {name: PciAlias}, as parse_aliases() returns.
    """
    specs = dict(flavor.extra_specs or {})
    aliases = aliases or {}

    def fail(key, reason):
        raise InvalidExtraSpec(flavor.name, key, reason)

    granular, group_policy = _granular_specs(specs, fail)
    flavor_group_count = sum(1 for suffix in granular.groups if suffix)
    cpu = _cpu_request(flavor, specs, fail)
    _check_memory_specs(specs, fail)
    features = _hardware_features(specs, fail)
    pci = _pci_demands(specs, aliases, fail)

    def request(pin, fail):
        return ResourceRequest(
            groups=_assemble(flavor, granular, cpu, features, pin, fail,
                             bool(pci)),
            group_policy=group_policy,
            pci=list(pci),
            aggregate_specs=agg_specs.aggregate_specs(specs),
            unsupported=_unmodelled(specs, cpu, pci, aliases),
            root_required=features[2],
            flavor_group_count=flavor_group_count,
            flavor_name=flavor.name)

    result = request(True, fail)
    # Placement refuses two granular groups without a group_policy; PCI
    # groups alone get Nova's 'none' default (placement_group_policy).
    result.placement_group_policy(pci_in_placement=False)
    if cpu.policy == 'dedicated':
        try:
            result.fallback = request(False, fail)
        except InvalidExtraSpec:
            # Nova ignores a fallback query Placement refuses.
            result.fallback = None
    return result
