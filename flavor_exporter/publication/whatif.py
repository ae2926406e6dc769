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
"""The what-if's contract: the changes asked, the answer given.

One module for the three ways of asking (POST /v3/whatif, `openstack
capacity whatif`, `flavor-exporter-report --whatif FILE`)::

    {"drain": [{"hosts": ["c1", "c2"], "servers": "evacuate"},
               {"aggregate": "rack-7"}, {"availability_zone": "az2"}],
     "add": [{"like": "gpu-17", "count": 10, "aggregates": ["a100"],
              "availability_zone": "az-gpu"}],
     "remove": [{"hosts": ["old-1"]}],
     "change": [{"aggregate": "general", "allocation_ratio": {"VCPU": 8},
                 "reserved": {"MEMORY_MB": 8192}}],
     "flavors": [{"flavor": "m1.large", "vcpus": 8},
                 {"name": "g.a100.8", "vcpus": 64, "ram": 491520,
                  "disk": 200, "extra_specs": {"resources:PGPU": "8"}}]}

A key the contract does not know is refused, as in set checks: a
misspelt "aggregte" must not answer for the whole cloud without a word.
Host names and aggregates the cloud lacks are refused by the worker,
which alone knows them (400).
"""

import hashlib
import json

from flavor_exporter.common import whatif_request as wr
from flavor_exporter.publication import contract as pub

WHATIF = 'whatif'
DRAIN = 'drain'
ADD = 'add'
REMOVE = 'remove'
CHANGE = 'change'
FLAVORS = 'flavors'
HOSTS = 'hosts'
AGGREGATE = 'aggregate'
AGGREGATES = 'aggregates'
SERVERS = 'servers'
LIKE = 'like'
COUNT = 'count'
NAMES = 'names'
RATIO = 'allocation_ratio'
RESERVED = 'reserved'
FLAVOR = 'flavor'
EXTRA_SPECS = 'extra_specs'
EVACUATION = 'evacuation'
NOTES = 'notes'

#: Bounds of one what-if's body (the body itself: 64 KiB at most).
MAX_ENTRIES = 50  # per list
MAX_HOSTS = 1000  # host names in all
MAX_ADDED = 1000  # hosts added in all
#: Servers of evacuated hosts one what-if simulates, checked by the worker.
MAX_EVACUATED = 5000

NOT_JSON = ('The body is not JSON: send {"drain": [{"hosts": [...]}], '
            '"add": [...], ...}.')

_KEYS = {DRAIN, ADD, REMOVE, CHANGE, FLAVORS}
_SELECTOR = (HOSTS, AGGREGATE, pub.ZONE)
_FLAVOR_INTS = ('vcpus', 'ram', 'disk', 'ephemeral', 'swap')
_FLAVOR_KEYS = {FLAVOR, pub.NAME, 'is_public', EXTRA_SPECS} | set(
    _FLAVOR_INTS)
_NAME_LENGTH = 255


class InvalidWhatIf(ValueError):
    """A body the contract refuses; the message says what to change."""


def _name(value, what):
    if not isinstance(value, str) or not value.strip() or \
            len(value) > _NAME_LENGTH:
        raise InvalidWhatIf('%s must be a non-empty string of at most %d '
                            'characters' % (what, _NAME_LENGTH))
    return value


def _integer(value, what, low):
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise InvalidWhatIf('%s must be an integer of at least %d, not %s'
                            % (what, low, json.dumps(value)[:40]))
    return value


def _unknown(found, known, where):
    extra = sorted(set(found) - set(known))
    if extra:
        raise InvalidWhatIf('%s: unknown key(s) %s; the keys are %s' % (
            where, ', '.join(extra), ', '.join(sorted(known))))


def _object(value, where, example):
    if not isinstance(value, dict):
        raise InvalidWhatIf('%s must be an object %s' % (where, example))
    return value


def _list(body, key):
    value = body.get(key, [])
    if not isinstance(value, list):
        raise InvalidWhatIf('"%s" must be a list' % key)
    if len(value) > MAX_ENTRIES:
        raise InvalidWhatIf('"%s" has %d entries; a what-if takes at most %d'
                            % (key, len(value), MAX_ENTRIES))
    return value


def _selector(item, where):
    given = [key for key in _SELECTOR if key in item]
    if len(given) != 1:
        raise InvalidWhatIf('%s names its hosts by exactly one of "hosts" '
                            '(a list of names), "aggregate" or '
                            '"availability_zone"' % where)
    if HOSTS in item:
        hosts = item[HOSTS]
        if not isinstance(hosts, list) or not hosts:
            raise InvalidWhatIf('%s.hosts must be a non-empty list of host '
                                'names' % where)
        names = tuple(_name(h, '%s.hosts[%d]' % (where, i))
                      for i, h in enumerate(hosts))
        return wr.Selector(hosts=tuple(dict.fromkeys(names)))
    if AGGREGATE in item:
        return wr.Selector(aggregate=_name(item[AGGREGATE],
                                           where + '.aggregate'))
    return wr.Selector(availability_zone=_name(item[pub.ZONE],
                                               where + '.availability_zone'))


def _drain(index, item):
    where = 'drain[%d]' % index
    _object(item, where, '{"hosts": [...], "servers": "stay"}')
    _unknown(item, _SELECTOR + (SERVERS,), where)
    servers = item.get(SERVERS, wr.STAY)
    if servers not in wr.SERVERS:
        raise InvalidWhatIf('%s.servers must be "stay" (their servers stay '
                            'on the disabled hosts) or "evacuate" (moved to '
                            'the others)' % where)
    return wr.Drain(_selector(item, where), servers)


def _remove(index, item):
    where = 'remove[%d]' % index
    _object(item, where, '{"hosts": [...]}')
    _unknown(item, _SELECTOR, where)
    return _selector(item, where)


def _add(index, item):
    where = 'add[%d]' % index
    _object(item, where, '{"like": host, "count": N}')
    _unknown(item, (LIKE, COUNT, NAMES, AGGREGATES, pub.ZONE), where)
    if LIKE not in item:
        raise InvalidWhatIf('%s: "like" (the existing host the new ones are '
                            'copies of) is missing' % where)
    like = _name(item[LIKE], where + '.like')
    count = _integer(item.get(COUNT, 1), where + '.count', 1)
    names = item.get(NAMES, [])
    if not isinstance(names, list) or (names and len(names) != count):
        raise InvalidWhatIf('%s.names must be a list of %d host names, or '
                            'left out' % (where, count))
    names = tuple(_name(n, '%s.names[%d]' % (where, i))
                  for i, n in enumerate(names))
    if len(set(names)) != len(names):
        raise InvalidWhatIf('%s.names repeats a name' % where)
    aggregates = item.get(AGGREGATES)
    if aggregates is not None:
        if not isinstance(aggregates, list):
            raise InvalidWhatIf('%s.aggregates must be a list of aggregate '
                                'names' % where)
        aggregates = tuple(_name(a, '%s.aggregates[%d]' % (where, i))
                           for i, a in enumerate(aggregates))
    zone = item.get(pub.ZONE)
    if zone is not None:
        zone = _name(zone, where + '.availability_zone')
    return wr.Add(like, count, names, aggregates, zone)


def _classes(value, where, number):
    if not isinstance(value, dict) or not value:
        raise InvalidWhatIf('%s must be an object {resource class: value}'
                            % where)
    found = []
    for rc, amount in sorted(value.items()):
        _name(rc, where)
        if number is float:
            if not isinstance(amount, (int, float)) or \
                    isinstance(amount, bool) or not 0 < amount <= 1e6:
                raise InvalidWhatIf('%s.%s must be a number above 0'
                                    % (where, rc))
            amount = float(amount)
        else:
            amount = _integer(amount, '%s.%s' % (where, rc), 0)
        found.append((rc, amount))
    return tuple(found)


def _change(index, item):
    where = 'change[%d]' % index
    _object(item, where, '{"aggregate": name, "allocation_ratio": {...}}')
    _unknown(item, _SELECTOR + (RATIO, RESERVED), where)
    if RATIO not in item and RESERVED not in item:
        raise InvalidWhatIf('%s changes nothing: give "allocation_ratio" '
                            'or "reserved"' % where)
    return wr.HostChange(
        _selector(item, where),
        _classes(item[RATIO], where + '.allocation_ratio', float)
        if RATIO in item else (),
        _classes(item[RESERVED], where + '.reserved', int)
        if RESERVED in item else ())


def _flavor(index, item):
    where = 'flavors[%d]' % index
    _object(item, where, '{"flavor": id or name, "vcpus": N, ...}')
    _unknown(item, _FLAVOR_KEYS, where)
    flavor = item.get(FLAVOR)
    if flavor is not None:
        flavor = _name(flavor, where + '.flavor')
    name = item.get(pub.NAME)
    if name is not None:
        name = _name(name, where + '.name')
    fields = {key: _integer(item[key], '%s.%s' % (where, key),
                            1 if key in ('vcpus', 'ram') else 0)
              for key in _FLAVOR_INTS if key in item}
    if 'is_public' in item:
        if not isinstance(item['is_public'], bool):
            raise InvalidWhatIf('%s.is_public must be true or false' % where)
        fields['is_public'] = item['is_public']
    if flavor is None:
        missing = [key for key in ('vcpus', 'ram', 'disk')
                   if key not in fields]
        if name is None or missing:
            raise InvalidWhatIf(
                '%s: a new flavor needs "name", "vcpus", "ram" and "disk" '
                '(to change one, name it in "flavor")' % where)
    specs = item.get(EXTRA_SPECS, {})
    if not isinstance(specs, dict) or not all(
            isinstance(v, str) or v is None for v in specs.values()):
        raise InvalidWhatIf('%s.extra_specs must be an object of strings '
                            '(null drops a key of the flavor)' % where)
    return wr.FlavorChange(flavor, name, tuple(sorted(fields.items())),
                           tuple(sorted(specs.items())))


def parse(body):
    """The whatif_request.WhatIf of a decoded body; InvalidWhatIf if bad."""
    if not isinstance(body, dict):
        raise InvalidWhatIf('The body must be a JSON object {"drain": [...], '
                            '"add": [...], "remove": [...], "change": [...], '
                            '"flavors": [...]}')
    _unknown(body, _KEYS, 'the body')
    whatif = wr.WhatIf(
        drain=tuple(_drain(i, x) for i, x in enumerate(_list(body, DRAIN))),
        add=tuple(_add(i, x) for i, x in enumerate(_list(body, ADD))),
        remove=tuple(_remove(i, x)
                     for i, x in enumerate(_list(body, REMOVE))),
        change=tuple(_change(i, x)
                     for i, x in enumerate(_list(body, CHANGE))),
        flavors=tuple(_flavor(i, x)
                      for i, x in enumerate(_list(body, FLAVORS))))
    if whatif == wr.WhatIf():
        raise InvalidWhatIf('The body changes nothing: give "drain", "add", '
                            '"remove", "change" or "flavors"')
    selectors = [d.hosts for d in whatif.drain] + list(whatif.remove) + [
        c.hosts for c in whatif.change]
    named = sum(len(s.hosts) for s in selectors) + sum(
        len(a.names) for a in whatif.add)
    if named > MAX_HOSTS:
        raise InvalidWhatIf('%d host names given; a what-if takes at most %d'
                            % (named, MAX_HOSTS))
    added = sum(a.count for a in whatif.add)
    if added > MAX_ADDED:
        raise InvalidWhatIf('%d hosts added; a what-if adds at most %d'
                            % (added, MAX_ADDED))
    return whatif


def _selector_body(selector):
    if selector.hosts:
        return {HOSTS: list(selector.hosts)}
    if selector.aggregate is not None:
        return {AGGREGATE: selector.aggregate}
    return {pub.ZONE: selector.availability_zone}


def canonical(whatif):
    """The body of a WhatIf, as the answer repeats it."""
    return {
        DRAIN: [dict(_selector_body(d.hosts), **{SERVERS: d.servers})
                for d in whatif.drain],
        ADD: [{LIKE: a.like, COUNT: a.count, NAMES: list(a.names),
               AGGREGATES: None if a.aggregates is None
               else list(a.aggregates), pub.ZONE: a.availability_zone}
              for a in whatif.add],
        REMOVE: [_selector_body(s) for s in whatif.remove],
        CHANGE: [dict(_selector_body(c.hosts),
                      **({RATIO: dict(c.allocation_ratio)}
                         if c.allocation_ratio else {}),
                      **({RESERVED: dict(c.reserved)} if c.reserved else {}))
                 for c in whatif.change],
        FLAVORS: [dict({FLAVOR: f.flavor, pub.NAME: f.name,
                        EXTRA_SPECS: dict(f.extra_specs)}, **dict(f.fields))
                  for f in whatif.flavors]}


def identity(whatif):
    """A short id of a WhatIf: equal changes, equal ids."""
    text = json.dumps(canonical(whatif), sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def _figures(total, available):
    return {'total': total, 'available': available}


def _zones(before, after):
    zones = {}
    for zone in sorted(set(before) | set(after), key=str):
        b = before.get(zone, [0, 0])
        a = after.get(zone, [0, 0])
        if b == [0, 0] and a == [0, 0]:
            continue
        zones[zone or ''] = {'before': _figures(*b), 'after': _figures(*a),
                             'difference': _figures(a[0] - b[0],
                                                    a[1] - b[1])}
    return zones


def flavor_item(before, after):
    """One flavor's figures (engine.FlavorCapacity before and/or after).

    before None: a flavor the what-if adds; after None: one it leaves
    uncounted (made invalid or skipped).
    """
    shown = after or before
    b = _figures(before.total, before.available) if before else \
        _figures(0, 0)
    a = _figures(after.total, after.available) if after else _figures(0, 0)
    gpu = shown.gpu
    return {
        pub.ID: shown.flavor.id, pub.NAME: shown.flavor.name,
        'gpu': {'type': gpu[0], 'count': gpu[1]} if gpu else None,
        'added': before is None,
        'before': b, 'after': a,
        'difference': {key: a[key] - b[key] for key in a},
        'availability_zones': _zones(before.zones if before else {},
                                     after.zones if after else {}),
        'limited_by': after.limited_by if after else None,
        'excluded': dict(after.excluded) if after else {},
        'error': after.error if after else None}


def _devices(devices):
    # usable: the free devices some flavor that takes them can start on.
    return {'total': devices.total, 'used': devices.used,
            'free': devices.free, 'stranded': devices.stranded,
            'usable': devices.free - devices.stranded}


def gpu_item(name, before, after):
    """One GPU type's devices before and after (gpus.GpuType or None).

    A drained host's devices still exist: they count in total, and its
    free ones as stranded (free where no flavor can start), not usable.
    """
    zero = {'total': 0, 'used': 0, 'free': 0, 'stranded': 0, 'usable': 0}
    b = _devices(before.devices) if before else zero
    a = _devices(after.devices) if after else zero
    return {pub.TYPE: name, 'before': b, 'after': a,
            'difference': {key: a[key] - b[key] for key in a}}


def document(whatif, flavors, gpus, hosts, evacuation, notes, collected_at):
    """The answer document (a dict).

    flavors: [flavor_item()], GPU flavors first; gpus: [gpu_item()];
    hosts: {"drained": [...], "evacuated": [...], "added": [...],
    "removed": [...], "changed": [...]} names; evacuation: its dict or
    None; collected_at: when the cloud was read.
    """
    return {WHATIF: dict(canonical(whatif), **{
        'results': {FLAVORS: flavors, 'gpus': gpus},
        HOSTS: hosts, EVACUATION: evacuation, NOTES: notes,
        pub.TIMESTAMP: pub.iso_timestamp(collected_at)})}


def without_hosts(document_):
    """document_ without host names, for callers who may not see hosts.

    The caller named some hosts itself; the hosts the cloud chose (where
    evacuated servers go, the hosts of an aggregate or zone) it may not
    see: counts instead.
    """
    answer = dict(document_[WHATIF])
    answer[HOSTS] = {key: len(names) for key, names in answer[HOSTS].items()}
    evacuation = answer.get(EVACUATION)
    if evacuation:
        hidden = dict(evacuation)
        hidden['moves'] = [{key: value for key, value in move.items()
                            if key not in ('from', 'to', 'tied_with')}
                           for move in evacuation['moves']]
        hidden['not_placed'] = [{key: value for key, value in item.items()
                                 if key != 'from'}
                                for item in evacuation['not_placed']]
        answer[EVACUATION] = hidden
    return {WHATIF: answer}
