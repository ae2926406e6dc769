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

PLACEHOLDER INTERFACE - being implemented (see build_request).
"""

import dataclasses


class InvalidExtraSpec(ValueError):
    """A flavor extra spec Nova would reject; the flavor is skipped."""

    def __init__(self, flavor_name, key, reason):
        self.flavor_name = flavor_name
        self.key = key
        self.reason = reason
        super().__init__('flavor %r: extra spec %r: %s'
                         % (flavor_name, key, reason))


@dataclasses.dataclass(frozen=True)
class PciAlias:
    """One entry of nova.conf's [pci] alias."""

    name: str
    vendor_id: str | None = None
    product_id: str | None = None
    device_type: str | None = None
    numa_policy: str | None = None
    resource_class: str | None = None
    traits: frozenset = frozenset()

    @property
    def placement_resource_class(self):
        """The class Nova uses when PCI devices are reported to Placement."""
        raise NotImplementedError


@dataclasses.dataclass
class RequestGroup:
    """One group of a Placement allocation candidates query."""

    resources: dict  # resource class -> amount
    required_traits: frozenset = frozenset()
    forbidden_traits: frozenset = frozenset()
    suffix: str = ''  # '' is the unnumbered group


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

    @property
    def gpu(self):
        """(type, count) of the GPUs one instance gets, or None."""
        raise NotImplementedError


def parse_aliases(values):
    """Parse [pci] alias JSON strings into {name: PciAlias}."""
    raise NotImplementedError


def build_request(flavor, aliases):
    """The ResourceRequest Nova builds for flavor; InvalidExtraSpec if bad."""
    raise NotImplementedError
