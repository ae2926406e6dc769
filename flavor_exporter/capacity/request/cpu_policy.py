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
"""How many VCPU and PCPU a flavor's CPU policies ask Placement for.

Mirrors the CPU half of nova.virt.hardware.numa_get_constraints, which
Nova's API runs on every boot (hw:cpu_policy, hw:cpu_thread_policy,
hw:emulator_threads_policy, hw:cpu_dedicated_mask, hw:cpu_realtime_mask,
and their conflicts with resources:VCPU/PCPU and
trait:HW_CPU_HYPERTHREADING), and
nova.scheduler.utils.ResourceRequest._translate_pinning_policies, which
turns them into PCPU/VCPU amounts and the HW_CPU_HYPERTHREADING trait. A
flavor the API would refuse fails here instead of being counted.
"""

import dataclasses
import re

from oslo_utils import strutils

from flavor_exporter.capacity.request import vocabulary

# numa_get_constraints only looks at unsuffixed and numbered groups.
_CPU_RESOURCE_KEY = re.compile(r'resources([1-9][0-9]*)?:(VCPU|PCPU)')
_HT_TRAIT_KEY = re.compile(r'trait([1-9][0-9]*)?:HW_CPU_HYPERTHREADING')

_CPU_POLICIES = ('dedicated', 'shared', 'mixed')
_THREAD_POLICIES = ('prefer', 'isolate', 'require')
_EMULATOR_POLICIES = ('share', 'isolate')
_PINNED_POLICIES = ('dedicated', 'mixed')


@dataclasses.dataclass
class CpuRequest:
    """What hw:cpu_policy and its companions make Nova ask for."""

    policy: str | None  # hw:cpu_policy as set, None when unset
    pcpus: int  # PCPU to request for dedicated/mixed, emulator thread incl.
    vcpus: int  # VCPU to request for mixed
    thread_trait: str | None  # HW_CPU_HYPERTHREADING: required/forbidden
    # What the guest NUMA topology takes (guest_numa): the policy
    # resources:PCPU/VCPU imply too, the thread policy the trait implies
    # too, the guest CPUs pinned, and hw:emulator_threads_policy=isolate.
    effective_policy: str | None = None
    thread_policy: str | None = None
    dedicated_cpus: frozenset = frozenset()
    emulator_isolated: bool = False

    @property
    def pinned(self):
        """Whether hw:cpu_policy pins some of the guest's CPUs."""
        return self.policy in _PINNED_POLICIES


def parse_cpu_set(spec, fail, key):
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
    return parse_cpu_set(mask, fail, key)


def cpu_request(flavor, specs, fail):
    """CPU policies as numa_get_constraints checks and Nova translates them.

    Expects the resources*/trait* specs to be checked already: their
    amounts are read here without a second check.

    :param flavor: a model.Flavor.
    :param specs: its extra specs.
    :param fail: fail(key, reason), called on what Nova would refuse.
    :returns: a CpuRequest.
    """
    policy = vocabulary.choice(specs, 'hw:cpu_policy', _CPU_POLICIES, fail)
    thread = vocabulary.choice(specs, 'hw:cpu_thread_policy',
                               _THREAD_POLICIES, fail)
    emulator = vocabulary.choice(specs, 'hw:emulator_threads_policy',
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
    if policy in _PINNED_POLICIES and emulator == 'isolate':
        pcpus += 1
    pinned_cpus = frozenset()
    if effective == 'dedicated':
        pinned_cpus = frozenset(all_cpus)
    elif effective == 'mixed':
        pinned_cpus = frozenset(dedicated or realtime)
    return CpuRequest(policy, pcpus, vcpus,
                      {'isolate': 'forbidden',
                       'require': 'required'}.get(thread),
                      effective_policy=effective,
                      thread_policy=effective_thread,
                      dedicated_cpus=pinned_cpus,
                      emulator_isolated=emulator == 'isolate')
