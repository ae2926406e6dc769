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
"""What a set check answers: per request, the servers placed or the stop.

The shapes check.check returns and the API renders
(publication/checks.py): each request's Outcome, where its servers
start (Placed) and, for the first request Nova would refuse, why
(Stop, whose kind is one of the constants below).
"""

import dataclasses

from flavor_exporter.common import set_request

# What stops a request (Stop.kind).
FLAVOR = 'flavor'
ZONE = 'availability_zone'
QUOTA = 'quota'
SERVER_GROUP = 'server_group'
RESOURCES = 'resources'


@dataclasses.dataclass(frozen=True)
class Placed:
    """Where one server starts: the host, and the others of equal weight.

    Nova takes one of the tied hosts in an order its process's string
    hashing decides; the one named here is the first by name.
    """

    host: str
    node: str
    zone: str | None
    tied: tuple = ()


@dataclasses.dataclass(frozen=True)
class Stop:
    """Why a request does not start (whole, or beyond its started ones)."""

    kind: str
    reason: str
    limit: str | None = None


@dataclasses.dataclass
class Outcome:
    """What one request of the set does."""

    wanted: set_request.Wanted
    flavor: object = None  # model.Flavor, None when not found
    started: list = dataclasses.field(default_factory=list)  # Placed
    stop: Stop | None = None
    reached: bool = True
    # [(model.Flavor, how many would start)] when it does not fit.
    alternatives: list = dataclasses.field(default_factory=list)
    notes: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class SetAnswer:
    fits: bool
    outcomes: list
    notes: list
