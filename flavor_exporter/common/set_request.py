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
"""A set of servers to check (capacity/planning/set_check/), as asked.

Plain values, apart from the engine: the API process builds them from a
request body (publication/checks.py) without importing the capacity
code, which only the worker runs.
"""

import dataclasses

SUCCESSIVE = 'successive'
MULTI_CREATE = 'multi-create'
POLICIES = ('affinity', 'anti-affinity', 'soft-affinity',
            'soft-anti-affinity')


@dataclasses.dataclass(frozen=True)
class Wanted:
    """One request of the set: count servers of a flavor (id or name).

    min_count set: one multi-create request of min_count..count servers;
    None: count successive requests of one server each.
    """

    flavor: str
    count: int
    min_count: int | None = None

    @property
    def mode(self):
        return SUCCESSIVE if self.min_count is None else MULTI_CREATE


@dataclasses.dataclass(frozen=True)
class ServerGroup:
    """The new server group every server of the set joins."""

    policy: str
    max_server_per_host: int | None = None


@dataclasses.dataclass(frozen=True)
class SetRequest:
    servers: tuple  # Wanted, in launch order
    project_id: str | None = None
    availability_zone: str | None = None
    group: ServerGroup | None = None
