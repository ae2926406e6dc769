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
"""Resource providers as Placement describes them, cached by generation.

Placement has no bulk call for inventories, so a provider whose generation
moved costs one call. Inventories and traits only change together with
the provider generation (every inventory or trait write increments it),
so they are kept between refreshes and read again only when the
generation moved.

Usages are a different matter: Placement's DELETE /allocations/{consumer}
removes allocations WITHOUT incrementing the generation of the providers
involved, and Nova deletes a server's allocations that way whenever
[DEFAULT] reclaim_instance_interval is 0 (the default), after local
deletes and after failed builds. A usage cache keyed on the generation
would keep counting deleted servers forever, so usages are read every
refresh. They are read in one call: GET /allocation_candidates for one
unit of the class most trees had free at the previous refresh. Its
provider_summaries carry, for every provider of every tree that could take
that unit, the used amount of every class it has an inventory of -
Placement's research_context.get_usages_by_provider_trees sums the same
allocations per provider and class as usage.get_all_by_resource_provider_
uuid does for GET /resource_providers/{uuid}/usages - and its traits.
Trees that cannot take the unit (full hosts, hosts without that class, or
beyond [placement] max_allocation_candidates) are absent: their providers'
usages (and traits, when their generation moved) are read one by one, as
they are when Placement is older than microversion 1.29.
"""

import collections
import dataclasses
import re

from oslo_log import log
from oslo_utils import uuidutils

from flavor_exporter.capacity import model
from flavor_exporter.worker import notices as notices_mod
from flavor_exporter.worker import openstack

LOG = log.getLogger(__name__)

# 1.14 (Queens) is the first microversion whose resource providers carry
# parent_provider_uuid and root_provider_uuid, which is all this module
# needs beyond 1.0 (generation) and 1.6 (provider traits). Nothing later
# changes the provider, inventory, usage or trait documents it reads, and
# the lowest sufficient version works against every Placement since Queens.
PLACEMENT_MICROVERSION = '1.14'
# Allocation candidates' provider_summaries hold every provider of each
# returned tree with its parent and root from 1.29 (Rocky), every class of
# a provider (not only the requested ones) from 1.27, traits from 1.17.
CANDIDATES_MICROVERSION = '1.29'
# The class the usage query asks one unit of at the first refresh, and
# the favourite on ties.
DEFAULT_PROBE_CLASS = 'VCPU'
# Answers meaning this Placement cannot give summaries (too old for the
# microversion, or no allocation candidates at all, or a 200 whose body is
# not JSON); usages are then read one provider at a time, which costs
# calls but changes no number.
_NO_CANDIDATES = (200, 400, 404, 406)
# The notices topic of a refresh without allocation candidates.
_CANDIDATES = 'allocation candidates'

# Placement's own bounds for inventory fields (placement/schemas).
_INVENTORY_FIELDS = {
    # field: (default when absent, smallest allowed value)
    'reserved': (0, 0),
    'min_unit': (1, 1),
    'max_unit': (None, 1),
    'step_size': (1, 1),
}


class _Malformed(ValueError):
    """Placement answered something this module cannot use."""


@dataclasses.dataclass(frozen=True)
class _Failed:
    """Placement answered one provider's call with an error.

    Kept in place of the answer, so that the provider is unreadable in
    this refresh only: it is not cached, and the next refresh asks again.
    """

    message: str


def _is_number(value):
    # bool is an int to Python, not to Placement.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _integer(value, rc, what, minimum=0):
    """value as an int; _Malformed unless a whole number >= minimum.

    rc, what: the class and field, for the message only: formatted when
    the value is refused, not for each of the ~300,000 a cold refresh
    of 10,000 hosts checks.
    """
    if type(value) is int:  # nearly always: neither a float nor a bool
        if value >= minimum:
            return value
    elif _is_number(value) and value == int(value) and value >= minimum:
        return int(value)
    raise _Malformed('%s %s is %r, not an integer >= %d'
                     % (rc, what, value, minimum))


def parse_inventories(body):
    """{rc: model.Inventory} from GET /resource_providers/{u}/inventories."""
    inventories = body.get('inventories') if isinstance(body, dict) else None
    if not isinstance(inventories, dict):
        raise _Malformed('no "inventories" object')
    parsed = {}
    for rc, fields in inventories.items():
        if not isinstance(fields, dict):
            raise _Malformed('inventory of %s is %r' % (rc, fields))
        if 'total' not in fields:
            raise _Malformed('inventory of %s has no total' % rc)
        values = {'total': _integer(fields['total'], rc, 'total', 1)}
        for name, (default, minimum) in _INVENTORY_FIELDS.items():
            value = fields.get(name)
            values[name] = (default if value is None
                            else _integer(value, rc, name, minimum))
        if values['max_unit'] is None:
            values['max_unit'] = values['total']
        ratio = fields.get('allocation_ratio', 1.0)
        if not _is_number(ratio) or ratio <= 0:
            raise _Malformed('%s allocation_ratio is %r' % (rc, ratio))
        values['allocation_ratio'] = float(ratio)
        parsed[rc] = model.Inventory(**values)
    return parsed


def parse_usages(body):
    """{rc: used} from GET /resource_providers/{u}/usages."""
    usages = body.get('usages') if isinstance(body, dict) else None
    if not isinstance(usages, dict):
        raise _Malformed('no "usages" object')
    return {rc: _integer(used, rc, 'usage')
            for rc, used in usages.items()}


def _usages(body, inventories):
    """parse_usages, refused unless it covers every class in inventories.

    Placement answers a used amount (0 when nothing is allocated) for
    every class the provider has an inventory of, in GET
    /resource_providers/{u}/usages and in the allocation candidates'
    summaries alike; a class missing from the answer is not known to be
    unused, and counting it free would show a GPU in use as available.
    """
    used = parse_usages(body)
    _cover(used, inventories)
    return used


def _cover(used, inventories):
    """_Malformed unless used has an amount for every class inventoried."""
    if used.keys() >= inventories.keys():
        return
    missing = sorted(set(inventories) - set(used))
    raise _Malformed('no used amount of %s' % ', '.join(missing))


def parse_traits(body):
    """frozenset of trait names from GET /resource_providers/{u}/traits."""
    traits = body.get('traits') if isinstance(body, dict) else None
    if not isinstance(traits, list):
        raise _Malformed('no "traits" list')
    if not all(isinstance(trait, str) for trait in traits):
        raise _Malformed('traits %r are not all names' % (traits,))
    return frozenset(traits)


def parse_provider_summaries(body):
    """{uuid: (usages, traits)} from GET /allocation_candidates (1.29).

    usages as parse_usages gives them ({rc: used} for every class the
    provider has an inventory of), traits a frozenset. An entry this
    module cannot use is left out, so that its provider is read on its
    own; _Malformed when there is no provider_summaries object at all.
    """
    summaries = (body.get('provider_summaries')
                 if isinstance(body, dict) else None)
    if not isinstance(summaries, dict):
        raise _Malformed('no "provider_summaries" object')
    parsed = {}
    for uuid, summary in summaries.items():
        try:
            resources = (summary.get('resources')
                         if isinstance(summary, dict) else None)
            if not isinstance(resources, dict):
                raise _Malformed('no "resources" object')
            usages = {}
            for rc, figures in resources.items():
                if not isinstance(figures, dict) or 'used' not in figures:
                    raise _Malformed('%s has no used amount' % rc)
                usages[rc] = _integer(figures['used'], rc, 'used')
            traits = parse_traits(summary)
        except _Malformed as exc:
            LOG.debug('Provider summary of %s unusable (%s); read on its '
                      'own', uuid, exc)
            continue
        parsed[uuid] = (usages, traits)
    return parsed


@dataclasses.dataclass(frozen=True)
class Summary:
    """One provider as GET /resource_providers lists it."""

    uuid: str
    name: str
    generation: int
    parent_uuid: str | None
    root_uuid: str

    @property
    def label(self):
        return '%s (%s)' % (self.name, self.uuid)


# What oslo_utils.uuidutils.is_uuid_like accepts of Placement (which only
# writes canonical lowercase UUIDs), without parsing each of the tens of
# thousands a refresh lists: a third of a warm listing's time.
_UUID = re.compile(r'[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
                   r'[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}')


def _uuid_or_none(value):
    if isinstance(value, str) and (_UUID.fullmatch(value)
                                   or uuidutils.is_uuid_like(value)):
        return value
    return None


def _summary(item):
    if not isinstance(item, dict):
        raise _Malformed('provider entry %r' % (item,))
    uuid = item.get('uuid')
    if _uuid_or_none(uuid) is None:
        raise _Malformed('provider uuid %r' % (uuid,))
    generation = item.get('generation')
    if not _is_number(generation) or generation != int(generation):
        raise _Malformed('provider %s generation %r' % (uuid, generation))
    # Both are in every entry from 1.14; a tree read without them would
    # lose its children, or make a child a host of its own.
    root, parent = (item.get('root_provider_uuid'),
                    item.get('parent_provider_uuid'))
    if _uuid_or_none(root) is None or (
            parent is not None and _uuid_or_none(parent) is None):
        raise _Malformed('provider %s root %r, parent %r'
                         % (uuid, root, parent))
    return Summary(uuid=uuid, name=str(item.get('name') or uuid),
                   generation=int(generation), parent_uuid=parent,
                   root_uuid=root)


def _tree_of(item):
    """The root uuid an unreadable listing entry belongs to, or None."""
    if not isinstance(item, dict):
        return None
    root = _uuid_or_none(item.get('root_provider_uuid'))
    if root is None and item.get('parent_provider_uuid') is None:
        # A root names no other root: its own uuid is its tree's.
        root = _uuid_or_none(item.get('uuid'))
    return root


def list_providers(client):
    """({uuid: Summary} of every provider, {root uuid: why}), one call.

    The second: the trees of which the listing has an entry it cannot
    read; counting such a tree without the provider could count its host
    for less (or more) than it holds. CloudError when the answer is no
    list, or an entry cannot be placed in any tree: which host lacks a
    provider is then unknown.
    """
    body = client.get('placement', '/resource_providers',
                      PLACEMENT_MICROVERSION)
    items = None
    if isinstance(body, dict):
        items = body.get('resource_providers')
    if not isinstance(items, list):
        raise openstack.CloudError(
            'placement GET /resource_providers: no resource_providers '
            'list in the answer', status=200)
    summaries, broken = {}, {}
    for item in items:
        try:
            summary = _summary(item)
        except _Malformed as exc:
            root = _tree_of(item)
            if root is None:
                raise openstack.CloudError(
                    'placement GET /resource_providers: an entry names no '
                    'provider tree (%s); which host it belongs to is '
                    'unknown' % exc, status=200) from None
            broken.setdefault(root, []).append(str(exc))
            continue
        summaries[summary.uuid] = summary
    return summaries, {
        root: 'unreadable entry in the resource provider listing (%s)'
        % '; '.join(reasons) for root, reasons in broken.items()}


@dataclasses.dataclass(frozen=True)
class _Parsed:
    """A provider's usages from the allocation candidates, checked."""

    usages: dict


@dataclasses.dataclass(frozen=True)
class _Cached:
    """What is kept of one provider between refreshes.

    Only what could be used is kept. A provider Placement described in a
    way this module cannot use (or whose call failed) is read again at the
    next refresh, whether or not its generation moved: a bad answer may be
    a proxy's or a Placement worker's passing trouble, and keeping it
    would exclude the host until the provider next changes, maybe never.
    """

    generation: int
    inventories: dict = dataclasses.field(default_factory=dict)
    traits: frozenset = frozenset()
    problem: str | None = None
    # When it was last written to the shared cache (provider_store; time.
    # time() seconds), None when not yet: the worker writes it then.
    shared_at: int | None = None

    def needs_usages(self):
        # No inventory, no allocation: Placement refuses both otherwise.
        return self.problem is None and bool(self.inventories)


@dataclasses.dataclass(frozen=True)
class Reading:
    """What one refresh learnt of the providers it was asked to read.

    Pass it to the next refresh's read_providers as previous once the
    refresh succeeded, so that a failed one leaves nothing half-updated;
    its providers that did not change are then used again.
    """

    providers: dict  # uuid -> model.Provider
    # uuid -> why it could not be read (the error answer, or "unusable
    # inventories answer (...)"), for providers left out: the host of
    # such a provider is unreadable.
    unusable: dict
    cache: dict  # uuid -> _Cached
    # The class the next refresh's allocation candidates query asks for.
    probe_class: str
    # providers, providers_fetched, providers_reused, usages_read (one
    # by one), usages_summarized (from the allocation candidates),
    # usages_kept (from the last reading, read_providers' keep_usages)
    stats: dict
    # uuid -> (generation, usages answer) of the providers whose usages
    # were read one by one, for keep_usages.
    read_usages: dict = dataclasses.field(default_factory=dict)


def probe_class(wanted, providers):
    """The class whose allocation candidates should cover most trees.

    The class of which most trees had a unit free at the last refresh
    (providers: its {uuid: model.Provider}), so that the fewest trees are
    left to read one by one; VCPU on ties and at first. Which class it is
    changes the cost of a refresh, never its figures.
    """
    free = collections.defaultdict(set)  # rc -> root uuids
    for summary in wanted:
        provider = providers.get(summary.uuid)
        if provider is None:
            continue
        for rc, inventory in provider.inventories.items():
            if (inventory.min_unit <= 1 and inventory.step_size == 1
                    and provider.usages.get(rc, 0) < inventory.capacity):
                free[rc].add(summary.root_uuid)
    if not free:
        return DEFAULT_PROBE_CLASS
    return max(sorted(free), key=lambda rc: (len(free[rc]),
                                             rc == DEFAULT_PROBE_CLASS))


def probe_class_of(previous):
    """The class the usage query asks for after the Reading previous."""
    return previous.probe_class if previous else DEFAULT_PROBE_CLASS


def read_summaries(client, resource_class, notices=None):
    """parse_provider_summaries of one allocation candidates query.

    {} when this Placement cannot answer it: every provider is then read
    on its own. Other failures are the refresh's. notices: the worker's
    notices.Notices, which says once that a refresh goes the slow way.
    """
    # A caller that keeps no notices (a tool) hears every time.
    notices = notices or notices_mod.Notices(LOG)
    try:
        body = client.get('placement', '/allocation_candidates',
                          CANDIDATES_MICROVERSION,
                          params={'resources': '%s:1' % resource_class})
    except openstack.CloudError as exc:
        if exc.status not in _NO_CANDIDATES:
            raise
        notices.started(_CANDIDATES, 'Placement gave no allocation '
                        'candidates (%s); usages are read one provider at a '
                        'time' % exc)
        return {}
    try:
        summaries = parse_provider_summaries(body)
    except _Malformed as exc:
        notices.started(_CANDIDATES, 'Placement\'s allocation candidates '
                        'are unreadable (%s); usages are read one provider '
                        'at a time' % exc)
        return {}
    notices.ended(_CANDIDATES, 'Placement gives allocation candidates again; '
                  'usages are read from them')
    return summaries


def _calls_for(summary, cache, summarized):
    """The sub-resources of one provider this refresh must read.

    summarized: the provider is in the allocation candidates' summaries,
    which gave its usages and traits.
    """
    cached = cache.get(summary.uuid)
    if cached is None or cached.generation != summary.generation:
        return ['inventories'] if summarized else [
            'inventories', 'traits', 'usages']
    if cached.needs_usages() and not summarized:
        return ['usages']
    return []


def _parse(summary, got):
    """A _Cached for a provider just read (kept even if malformed)."""
    what = 'inventories'
    try:
        inventories = parse_inventories(got['inventories'])
        what = 'traits'
        traits = got['traits']
        if not isinstance(traits, frozenset):
            traits = parse_traits(traits)
    except _Malformed as exc:
        return _Cached(generation=summary.generation,
                       problem='unusable %s answer (%s)' % (what, exc))
    return _Cached(generation=summary.generation,
                   inventories=inventories, traits=traits)


def _failure(got):
    """The first failed call among a provider's answers, or None."""
    for what in ('inventories', 'traits', 'usages'):
        if isinstance(got.get(what), _Failed):
            return got[what].message
    return None


def _from_store(store, wanted, cache):
    """cache with what store holds of the providers it lacks: (dict, n).

    A provider is looked up when cache has no entry of its generation (a
    new leader's first refresh: none); the store's misses are read from
    Placement as before.
    """
    missing = {summary.uuid: summary.generation for summary in wanted
               if getattr(cache.get(summary.uuid), 'generation', None)
               != summary.generation}
    loaded = store.load(missing) if missing else {}
    if not loaded:
        return cache, 0
    cache = dict(cache)
    for uuid, (inventories, traits, written_at) in loaded.items():
        cache[uuid] = _Cached(generation=missing[uuid],
                              inventories=inventories, traits=traits,
                              shared_at=written_at)
    return cache, len(loaded)


def read_providers(client, wanted, previous=None, notices=None,
                   keep_usages=None, store=None, summaries=None):
    """A Reading of the providers in wanted (Summary objects).

    previous: the Reading of the previous successful refresh (None at
    first); providers whose generation it holds cost no inventory or
    trait call. Usages (and traits of changed providers) come from one
    allocation candidates query; the providers it does not cover are read
    one by one, but for those keep_usages(uuid) allows to keep what the
    previous reading read of them at the same generation. All those calls
    go through one client.map so that the concurrency bound holds across
    the whole refresh. notices: as for read_summaries. store: a
    provider_store.ProviderStore where the inventories and traits of
    providers previous lacks are looked up before they are read.
    summaries: a callable giving read_summaries' answer for the class
    probe_class_of(previous), when the caller asked it already.
    """
    cache = previous.cache if previous else {}
    shared = 0
    if store is not None:
        cache, shared = _from_store(store, wanted, cache)
    summarized = {}
    if wanted:
        wanted_uuids = {summary.uuid for summary in wanted}
        answer = (summaries() if summaries is not None else
                  read_summaries(client, probe_class_of(previous), notices))
        summarized = {uuid: entry for uuid, entry in answer.items()
                      if uuid in wanted_uuids}
    read_before = previous.read_usages if previous else {}
    calls, kept = [], {}
    for summary in wanted:
        needed = _calls_for(summary, cache, summary.uuid in summarized)
        before = read_before.get(summary.uuid)
        if (needed == ['usages'] and keep_usages is not None
                and before is not None and before[0] == summary.generation
                and keep_usages(summary.uuid)):
            kept[summary.uuid] = before[1]
            continue
        calls += [(summary.uuid, what) for what in needed]

    # One batch, which a large refresh shares with a second process
    # (CloudClient.get_many).
    bodies = client.get_many('placement', [
        '/resource_providers/%s/%s' % call for call in calls],
        PLACEMENT_MICROVERSION)
    for body in bodies:
        if isinstance(body, openstack.CloudError) and body.status is None:
            # No answer at all: Placement is unreachable, which is the
            # refresh's failure, not this provider's.
            raise body
    answers = {uuid: {'usages': body} for uuid, body in kept.items()}
    for (uuid, what), body in zip(calls, bodies):
        if isinstance(body, openstack.CloudError):
            # An answer for this provider alone (a 500, a 404 for a
            # provider deleted since the listing, a body that is not
            # JSON): its host is unreadable, the others are counted.
            body = _Failed(str(body))
        answers.setdefault(uuid, {})[what] = body
    for uuid, (usages, traits) in summarized.items():
        got = answers.setdefault(uuid, {})
        # Whole numbers already (parse_provider_summaries checked them).
        got['usages'] = _Parsed(usages)
        got['traits'] = traits

    providers, unusable, entries = {}, {}, {}
    last = previous.providers if previous else {}
    fetched = 0
    for summary in wanted:
        got = answers.get(summary.uuid, {})
        failed = _failure(got)
        if 'inventories' in got:
            fetched += 1
        if failed is not None:
            # What was just asked is not cached: asked again next refresh.
            if 'inventories' not in got and summary.uuid in cache:
                entries[summary.uuid] = cache[summary.uuid]
            unusable[summary.uuid] = failed
            continue
        if 'inventories' in got:
            entry = _parse(summary, got)
        else:
            entry = cache[summary.uuid]
        if entry.problem is None:
            entries[summary.uuid] = entry
        problem, used = entry.problem, {}
        if entry.needs_usages():
            # Usages are read every refresh anyway; inventories and traits
            # stay cached when only the usages were unusable.
            try:
                used = got['usages']
                if isinstance(used, _Parsed):
                    used = used.usages
                    _cover(used, entry.inventories)
                else:
                    used = _usages(used, entry.inventories)
            except _Malformed as exc:
                problem = 'unusable %s (%s)' % (
                    'allocation candidates summary'
                    if summary.uuid in summarized else 'usages answer', exc)
        if problem is not None:
            unusable[summary.uuid] = problem
            continue
        before = last.get(summary.uuid)
        if (before is not None and before.usages == used
                and before.generation == summary.generation
                and before.traits is entry.traits
                and before.name == summary.name
                and before.parent_uuid == summary.parent_uuid):
            # Nothing of it changed: the last refresh's object, which also
            # makes comparing the snapshot with the last one quick. (The
            # same traits object is the same cache entry, so the same
            # inventories: an entry read again has traits of its own.)
            providers[summary.uuid] = before
            continue
        providers[summary.uuid] = model.Provider(
            uuid=summary.uuid, name=summary.name,
            parent_uuid=summary.parent_uuid,
            inventories=dict(entry.inventories), usages=used,
            traits=entry.traits, generation=summary.generation)
    stats = {'providers': len(wanted), 'providers_fetched': fetched,
             'providers_reused': len(wanted) - fetched,
             'usages_read': sum(1 for _, what in calls if what == 'usages'),
             'usages_summarized': len(summarized)}
    if kept:
        stats['usages_kept'] = len(kept)
    if store is not None:
        stats['providers_shared'] = shared
    read_usages = {
        summary.uuid: (summary.generation,
                       answers[summary.uuid]['usages'])
        for summary in wanted if summary.uuid in providers
        and summary.uuid not in summarized
        and 'usages' in answers.get(summary.uuid, {})}
    return Reading(providers=providers, unusable=unusable, cache=entries,
                   probe_class=probe_class(wanted, providers), stats=stats,
                   read_usages=read_usages)
