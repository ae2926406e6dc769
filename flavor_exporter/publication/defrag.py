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
"""POST /v3/defrag: the request body, its limits, and the answer's shape.

Both sides read this module: the API checks a body before it asks the
leading worker, the worker parses it again and publishes the answer
made here (capacity/planning/defrag.py finds the plan).

A body::

    {"flavor": "gpu.a100x4", "count": 1,
     "max_moves": 8, "max_hosts": 20, "max_seconds": 8}

Only ``flavor`` (an id or a name) is required.
"""

import dataclasses
import hashlib
import json

from flavor_exporter.publication import contract as pub

DEFRAG = 'defrag'
FLAVOR = 'flavor'
COUNT = 'count'
MAX_MOVES = 'max_moves'
MAX_HOSTS = 'max_hosts'
MAX_SECONDS = 'max_seconds'

#: Limits of a body: instances wanted, moves in a plan, hosts whose
#: servers are read (one Nova and one Placement call per provider each),
#: seconds of search.
LIMITS = {COUNT: (1, 1, 20), MAX_MOVES: (8, 1, 16), MAX_HOSTS: (20, 1, 50),
          MAX_SECONDS: (8, 1, 10)}

NOT_JSON = ('The body is not JSON: send {"flavor": "<id or name>", '
            '"count": 1}')


class InvalidDefrag(ValueError):
    """A body the API refuses (400), one line."""


@dataclasses.dataclass(frozen=True)
class DefragRequest:
    flavor: str
    count: int = 1
    max_moves: int = 8
    max_hosts: int = 20
    max_seconds: int = 8


def parse(body):
    """The DefragRequest of a decoded JSON body; InvalidDefrag if bad."""
    if not isinstance(body, dict):
        raise InvalidDefrag('The body must be an object: {"flavor": ..., '
                            '"count": N}')
    unknown = sorted(set(body) - {FLAVOR} - set(LIMITS))
    if unknown:
        raise InvalidDefrag('Unknown field(s): %s' % ', '.join(
            str(key)[:40] for key in unknown[:5]))
    flavor = body.get(FLAVOR)
    if not isinstance(flavor, str) or not flavor.strip() or \
            len(flavor) > 255:
        raise InvalidDefrag('"flavor" must be a flavor id or name (a '
                            'string of 1 to 255 characters)')
    values = {}
    for key, (default, low, high) in LIMITS.items():
        value = body.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or \
                not low <= value <= high:
            raise InvalidDefrag('"%s" must be an integer from %d to %d'
                                % (key, low, high))
        values[key] = value
    return DefragRequest(flavor, **values)


def canonical(request):
    """The body of a DefragRequest, as the answer repeats it."""
    return dataclasses.asdict(request)


def identity(request):
    """A short id of a DefragRequest: equal bodies, equal ids."""
    text = json.dumps(canonical(request), sort_keys=True)
    return 'defrag-' + hashlib.blake2b(text.encode(),
                                       digest_size=12).hexdigest()


def document(request, found, commands, actions, collected_at):
    """The answer of a defrag.Plan: {DEFRAG: ...}."""
    flavor = found.flavor
    return {DEFRAG: {
        'request': canonical(request),
        FLAVOR: {pub.ID: flavor.id, pub.NAME: flavor.name},
        COUNT: found.count,
        pub.AVAILABLE: found.available,
        pub.FRAGMENTED: found.fragmented,
        'found': found.found,
        'reason': found.reason,
        'moves': [{'server': move.server.id, pub.NAME: move.server.name,
                   FLAVOR: move.server.flavor.name,
                   'from': move.source, 'to': move.destination,
                   'from_node': move.source_node,
                   'to_node': move.destination_node}
                  for move in found.moves],
        'commands': commands,
        'actions': actions,
        'gained': found.gained,
        'gains': [{pub.HOST: host, 'instances': e}
                  for host, e in found.gains],
        'proven_minimal': found.proven_minimal,
        'lower_bound': found.lower_bound,
        'search': {'hosts': found.hosts_searched, 'nodes': found.nodes,
                   'seconds': found.seconds, 'cut': found.cut},
        'never_moved': found.pinned,
        pub.TIMESTAMP: pub.iso_timestamp(collected_at),
    }}
