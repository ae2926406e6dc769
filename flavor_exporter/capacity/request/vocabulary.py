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
"""The words a flavor's extra specs may use.

Mirrors os-resource-classes (STANDARDS, normalize_name), the resource class
and trait name patterns of Placement's query schema, and the check Nova's
extra spec validators make of enumerated values
(nova.api.validation.extra_specs).
The granular, CPU, PCI and feature translations all check their words
here, so there is one list of standard classes and one naming rule.

The standard classes are a copy of os-resource-classes 1.1.0 rather than an
import, as that library is not a dependency of this project.
"""

import re

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
CUSTOM_PREFIX = 'CUSTOM_'

_CUSTOM_RESOURCE_CLASS = re.compile(r'CUSTOM_[A-Z0-9_]+')
_TRAIT = re.compile(r'[A-Z0-9_]+')


def is_resource_class(name):
    """Whether Placement accepts name as a resource class in a query."""
    return (name in STANDARD_RESOURCE_CLASSES
            or _CUSTOM_RESOURCE_CLASS.fullmatch(name) is not None)


def is_trait_name(name):
    """Whether name is spelled as Placement requires of a trait."""
    return _TRAIT.fullmatch(name) is not None


def custom_resource_class(name):
    """os_resource_classes.normalize_name: any text -> a CUSTOM_ class.

    Every run of characters other than A-Z, a-z, 0-9 becomes '_', the
    result is upper-cased and CUSTOM_ is prepended.
    """
    return CUSTOM_PREFIX + re.sub('[^0-9A-Za-z]+', '_', name).upper()


def choice(specs, key, allowed, fail):
    """specs[key] when it is one of allowed; None when unset or ''.

    '' is unset as in Nova, whose look-ups take "flavor value or image
    value"; any other value outside allowed calls fail(key, reason).
    """
    value = specs.get(key)
    if value and value not in allowed:
        fail(key, '%r is not one of %s' % (value, ', '.join(allowed)))
    return value or None
