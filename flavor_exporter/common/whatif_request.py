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
"""Changes to today's cloud a what-if asks about (capacity/planning/whatif.py).

Plain values, apart from the engine: the API process builds them from a
request body (publication/whatif.py) without importing the capacity
code, which only the worker runs.
"""

import dataclasses

#: What happens to the servers of drained hosts.
STAY = 'stay'
EVACUATE = 'evacuate'
SERVERS = (STAY, EVACUATE)


@dataclasses.dataclass(frozen=True)
class Selector:
    """Hosts by name, or every host of an aggregate, or of a zone."""

    hosts: tuple = ()
    aggregate: str | None = None
    availability_zone: str | None = None


@dataclasses.dataclass(frozen=True)
class Drain:
    """The hosts' compute services disabled; their servers stay or go."""

    hosts: Selector
    servers: str = STAY


@dataclasses.dataclass(frozen=True)
class Add:
    """count new hosts like an existing one, empty.

    names: theirs (count of them), () for <like>-new-1...; aggregates:
    the aggregates they join (names), None for those of like; zone: the
    availability zone they are in, None for like's.
    """

    like: str
    count: int
    names: tuple = ()
    aggregates: tuple | None = None
    availability_zone: str | None = None


@dataclasses.dataclass(frozen=True)
class HostChange:
    """Placement inventory changes of the selected hosts.

    allocation_ratio, reserved: ((resource class, value), ...), sorted.
    """

    hosts: Selector
    allocation_ratio: tuple = ()
    reserved: tuple = ()


@dataclasses.dataclass(frozen=True)
class FlavorChange:
    """A flavor changed (flavor: its id or name) or added (flavor None).

    fields: ((name, value), ...) of vcpus, ram, disk, ephemeral, swap,
    is_public, sorted; extra_specs: ((key, value or None to drop), ...).
    """

    flavor: str | None
    name: str | None
    fields: tuple = ()
    extra_specs: tuple = ()


@dataclasses.dataclass(frozen=True)
class WhatIf:
    """The changes, applied in order: flavors, add, change, remove, drain.

    The host selectors of remove and drain read the cloud as it is today;
    those of change include the added hosts.
    """

    drain: tuple = ()  # Drain
    add: tuple = ()  # Add
    remove: tuple = ()  # Selector
    change: tuple = ()  # HostChange
    flavors: tuple = ()  # FlavorChange
