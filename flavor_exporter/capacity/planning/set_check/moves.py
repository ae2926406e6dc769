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
"""Servers moved one by one, as Nova schedules each migration or evacuation.

The what-if's evacuations (capacity/planning/whatif.py) go through the
same scheduler as set checks (scheduler.py), one server per request.
"""

from flavor_exporter.capacity.planning.set_check import api_checks
from flavor_exporter.capacity.planning.set_check import scheduler
from flavor_exporter.common import set_request


def place_each(report, options, settings, columns, servers,
               numa_counts=None):
    """Servers moved one by one, as Nova schedules each move: (placed, state).

    servers: [(flavor id or name, project id or None)] in the order Nova
    is asked; each is one request of one server (a migration or an
    evacuation schedules the instance alone), filtered and weighed on the
    hosts as the moves before left them, the project's tenant aggregates
    applying. placed: one (Placed or None, Stop or None) per server; a
    server no host takes does not stop the others (an operator's loop
    goes on). state: the scheduler.Scheduler, whose frees, numa and
    columns say what the hosts hold after (what-if,
    capacity/planning/whatif.py). A move keeps the server's flavor, so
    neither flavor access nor quota is checked.
    """
    state = scheduler.Scheduler(report, options, settings, columns,
                                set_request.SetRequest(()), None,
                                numa_counts)
    placed = []
    for key, project_id in servers:
        result = api_checks.lookup(report, key)
        if result is None or result.request is None:
            placed.append((None, api_checks.flavor_stop(
                result, set_request.Wanted(key, 1), state.request)))
            continue
        state.for_project(project_id)
        started, stop = state.servers(state.fits_of(result), 1, set(),
                                      multi=False)
        if started:
            # The compute node's record counts a boot as an I/O operation
            # and an instance at once (its claim updates the node's
            # stats), a move claim neither until the next audit: the
            # scheduler reads the record again for the next move.
            position = state.columns.position[started[0].host]
            state.columns.io_ops[position] -= 1
            state.columns.instances[position] -= 1
        placed.append((started[0] if started else None, stop))
    return placed, state
