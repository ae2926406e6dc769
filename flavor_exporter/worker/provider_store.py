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
"""Resource providers' inventories and traits in the shared cache.

A worker keeps what it read of each provider (placement_providers) and
reads it again only when the provider generation moves. That knowledge
used to die with the process: a new leader, after a failover or a
restart, read every provider of the cloud again (19,284 calls at 10,000
hosts). Here the leader also writes it to memcached, one item per provider
and generation, so that the next leader reads the providers whose
generation did not move in a few get_many round trips.

The generation is part of the key: an entry of a provider that changed is
simply not found, and expires. An entry that is missing, of another
provider or generation, or unreadable is a miss, and the provider is read
from Placement: the store can make a refresh cheaper, never different.
Only answers the worker could use are written (placement_providers keeps
nothing else), and only after its collect succeeded.
"""

import json

from oslo_log import log

from flavor_exporter.capacity import model
from flavor_exporter.publication import cache

LOG = log.getLogger(__name__)

# Bumped when the encoding changes: older entries are then misses.
FORMAT = 1
# How long an entry lives in memcached. An entry is written when its
# provider is read from Placement, and again by the leader once it is
# older than REWRITE_AFTER, so entries of providers that never change
# outlive any failover. Generations also move with every allocation
# Placement writes (a boot, a migration): the entries of generations
# gone are never read again, and a day bounds what they hold (about
# 270 bytes each).
ENTRY_TTL = 86400
REWRITE_AFTER = ENTRY_TTL // 2
# Keys per memcached round trip: bounds one command's size.
BATCH = 2000
# Keys asked first: when none of them is found, the cache holds nothing
# of this cloud (its first start, or memcached restarted) and the rest
# is not asked, which would cost a cold refresh 0.5 s of CPU at 19,284
# providers. A store that only misses the sample costs calls, as any
# miss does, never a different number.
SAMPLE = 100
# The fields of a model.Inventory in an entry, in order.
_FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
           'allocation_ratio')


def key(prefix, uuid, generation):
    """The cache key of one provider at one generation (< 250 bytes)."""
    return '%s:rp:%s:%d' % (prefix, uuid, generation)


def encode(uuid, generation, inventories, traits, written_at):
    """The bytes of one entry: compact JSON, never a pickle."""
    return json.dumps(
        [FORMAT, uuid, generation, int(written_at),
         {rc: [getattr(inventory, name) for name in _FIELDS]
          for rc, inventory in inventories.items()},
         sorted(traits)], separators=(',', ':')).encode()


def _integer(value, minimum):
    return (isinstance(value, int) and not isinstance(value, bool)
            and value >= minimum)


def _inventory(values):
    """A model.Inventory of an entry's list, or None if it is not one.

    The bounds are those placement_providers.parse_inventories applies to
    Placement's answers (it writes only what passed them), checked again
    here: an entry written by another version, or damaged, is a miss.
    """
    if not isinstance(values, list) or len(values) != len(_FIELDS):
        return None
    total, reserved, min_unit, max_unit, step_size, ratio = values
    if not (_integer(total, 1) and _integer(reserved, 0)
            and _integer(min_unit, 1) and _integer(max_unit, 1)
            and _integer(step_size, 1)
            and isinstance(ratio, float) and ratio > 0):
        return None
    return model.Inventory(total=total, reserved=reserved,
                           min_unit=min_unit, max_unit=max_unit,
                           step_size=step_size, allocation_ratio=ratio)


def decode(uuid, generation, data):
    """(inventories, traits, written_at) of an entry, or None (a miss)."""
    try:
        entry = json.loads(data)
    except (TypeError, ValueError):
        return None
    if not isinstance(entry, list) or len(entry) != 6:
        return None
    version, of, at, written_at, inventories, traits = entry
    if (version != FORMAT or of != uuid or at != generation
            or not _integer(written_at, 0)
            or not isinstance(inventories, dict)
            or not isinstance(traits, list)
            or not all(isinstance(trait, str) for trait in traits)):
        return None
    parsed = {}
    for rc, values in inventories.items():
        inventory = _inventory(values)
        if inventory is None:
            return None
        parsed[rc] = inventory
    return parsed, frozenset(traits), written_at


class ProviderStore:
    """One cloud's providers in a cache backend (cache.MemcachedBackend).

    prefix: the cloud's key prefix ([document_cache] key_prefix, or the
    cloud's), so that two clouds never read each other's providers.
    """

    def __init__(self, backend, prefix):
        self._backend = backend
        self._prefix = prefix

    def load(self, wanted):
        """{uuid: (inventories, traits, written_at)} of wanted.

        wanted: {uuid: generation}. Entries not found, or not of that
        generation, or unreadable are left out; so is everything when the
        cache cannot be read (the providers are then read from Placement)
        or holds none of the first SAMPLE.
        """
        found = {}
        keys = {key(self._prefix, uuid, generation): (uuid, generation)
                for uuid, generation in wanted.items()}
        names = list(keys)
        try:
            for start, end in self._batches(len(names)):
                got = self._backend.get_many(names[start:end])
                for name, data in got.items():
                    uuid, generation = keys[name]
                    entry = decode(uuid, generation, data)
                    if entry is not None:
                        found[uuid] = entry
                if not found:
                    break  # nothing in the sample: a cold cache
        except cache.CacheError as exc:
            LOG.debug('Providers not read from the cache, read from '
                      'Placement instead: %s', exc)
            return {}
        return found

    @staticmethod
    def _batches(count):
        """(start, end) of the keys each round trip asks: sample first."""
        bounds = [0, min(SAMPLE, count)]
        while bounds[-1] < count:
            bounds.append(min(bounds[-1] + BATCH, count))
        return zip(bounds, bounds[1:])

    def save(self, entries):
        """Write entries: {uuid: (generation, inventories, traits, at)}.

        cache.CacheError when some could not be written: the caller
        writes them again at its next refresh.
        """
        items = [(key(self._prefix, uuid, generation),
                  encode(uuid, generation, inventories, traits, at))
                 for uuid, (generation, inventories, traits, at)
                 in entries.items()]
        for start in range(0, len(items), BATCH):
            self._backend.set_many(dict(items[start:start + BATCH]),
                                   ENTRY_TTL)
