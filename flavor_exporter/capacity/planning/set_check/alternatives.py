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
"""Flavors like one that does not fit, that would start now instead.

Named for a request the check stops on resources, a server group or the
quota: flavors of the same GPU kind the project may use, nearest in size
first (log ratios of vCPUs and RAM, and the GPU count), each with how
many of it would start one by one on the hosts as the set left them.
"""

import math

from flavor_exporter.capacity.planning.set_check import api_checks

#: Alternatives named for a request that does not fit.
ALTERNATIVES = 3
# Flavors of the same kind counted, nearest first, to find them.
_ALTERNATIVES_TRIED = 20


def find(state, result, placed_hosts):
    """Flavors like result's that would start now, nearest first."""
    kind = result.gpu[0] if result.gpu else None
    tried = 0
    found = []
    for other in sorted(
            (r for r in state.report.flavors
             if r is not result and r.request is not None
             and (r.gpu[0] if r.gpu else None) == kind
             and api_checks.usable_by(r.flavor, state.request.project_id)),
            key=lambda r: (_distance(result, r), r.flavor.name)):
        if tried == _ALTERNATIVES_TRIED or len(found) == ALTERNATIVES:
            break
        tried += 1
        count = state.would_start(other, placed_hosts)
        if count:
            found.append((other.flavor, count))
    return found


def _distance(result, other):
    """How far other's flavor is in size from result's (log ratios)."""
    a, b = result.flavor, other.flavor

    def ratio(x, y):
        return abs(math.log2(max(x, 1) / max(y, 1)))
    gpus = abs((result.gpu[1] if result.gpu else 0)
               - (other.gpu[1] if other.gpu else 0))
    return ratio(a.vcpus, b.vcpus) + ratio(a.ram, b.ram) + gpus
