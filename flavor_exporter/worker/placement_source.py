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
"""The Placement capacity source: what Nova's scheduler itself reads.

Resource providers, inventories, usages and traits come from Placement, so
nested providers (VGPU, PCI devices reported to Placement), reservations,
allocation ratios and unit constraints are exactly what the scheduler sees,
at any compute microversion. Nova supplies what Placement does not hold:
which root provider is which compute host, service state, flavors and host
aggregate metadata.

Cost. Placement has no bulk call for inventories, usages or traits, so a
provider costs one call each. Inventories and traits only change together
with the provider generation (every inventory or trait write increments
it), so they are kept between refreshes and read again only when the
generation moved. Usages are a different matter: Placement's DELETE
/allocations/{consumer} removes allocations WITHOUT incrementing the
generation of the providers involved, and Nova deletes a server's
allocations that way whenever [DEFAULT] reclaim_instance_interval is 0
(the default), after local deletes and after failed builds. A usage cache
keyed on the generation would therefore keep counting deleted servers
forever, so usages are read every refresh (one call per provider that has
an inventory) unless the source is built with cache_usages=True.
"""

import dataclasses
import threading

from oslo_log import log
from oslo_utils import uuidutils

from flavor_exporter.capacity import model
from flavor_exporter.capacity import request
from flavor_exporter.common import openstack
from flavor_exporter.worker import nova

LOG = log.getLogger(__name__)

# 1.14 (Queens) is the first microversion whose resource providers carry
# parent_provider_uuid and root_provider_uuid, which is all this source
# needs beyond 1.0 (generation) and 1.6 (provider traits). Nothing later
# changes the provider, inventory, usage or trait documents it reads, and
# the lowest sufficient version works against every Placement since Queens.
PLACEMENT_MICROVERSION = '1.14'
# 2.53 (Pike) identifies hypervisors by the compute node UUID, which is the
# UUID of the node's root resource provider, and embeds service.host; it
# also paginates (limit/marker). Every Nova since Pike accepts it, including
# those past 2.88 that removed the resource figures this source does not
# need anyway.
HYPERVISOR_MICROVERSION = '2.53'

DISABLED_TRAIT = 'COMPUTE_STATUS_DISABLED'

# Placement's own bounds for inventory fields (placement/schemas).
_INVENTORY_FIELDS = {
    # field: (default when absent, smallest allowed value)
    'reserved': (0, 0),
    'min_unit': (1, 1),
    'max_unit': (None, 1),
    'step_size': (1, 1),
}


def placement_available(client):
    """Whether `[capacity] source = auto` should pick this source."""
    return client.has_service('placement')


class _Malformed(ValueError):
    """Placement answered something this source cannot use."""


def _is_number(value):
    # bool is an int to Python, not to Placement.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _integer(value, what, minimum=0):
    if not _is_number(value) or value != int(value) or value < minimum:
        raise _Malformed('%s is %r, not an integer >= %d'
                         % (what, value, minimum))
    return int(value)


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
        values = {'total': _integer(fields['total'], '%s total' % rc, 1)}
        for name, (default, minimum) in _INVENTORY_FIELDS.items():
            value = fields.get(name)
            if value is not None:
                value = _integer(value, '%s %s' % (rc, name), minimum)
            values[name] = default if value is None else value
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
    return {rc: _integer(used, '%s usage' % rc)
            for rc, used in usages.items()}


def parse_traits(body):
    """frozenset of trait names from GET /resource_providers/{u}/traits."""
    traits = body.get('traits') if isinstance(body, dict) else None
    if not isinstance(traits, list):
        raise _Malformed('no "traits" list')
    if not all(isinstance(trait, str) for trait in traits):
        raise _Malformed('traits %r are not all names' % (traits,))
    return frozenset(traits)


@dataclasses.dataclass(frozen=True)
class _Summary:
    """One provider as GET /resource_providers lists it."""

    uuid: str
    name: str
    generation: int
    parent_uuid: str | None
    root_uuid: str

    @property
    def label(self):
        return '%s (%s)' % (self.name, self.uuid)


def _summary(item):
    if not isinstance(item, dict):
        raise _Malformed('provider entry %r' % (item,))
    uuid = item.get('uuid')
    if not isinstance(uuid, str) or not uuidutils.is_uuid_like(uuid):
        raise _Malformed('provider uuid %r' % (uuid,))
    generation = item.get('generation')
    if not _is_number(generation) or generation != int(generation):
        raise _Malformed('provider %s generation %r' % (uuid, generation))
    return _Summary(uuid=uuid, name=str(item.get('name') or uuid),
                    generation=int(generation),
                    parent_uuid=item.get('parent_provider_uuid') or None,
                    root_uuid=item.get('root_provider_uuid') or uuid)


@dataclasses.dataclass(frozen=True)
class _Cached:
    """What is kept of one provider between refreshes.

    A provider Placement described in a way this source cannot use is kept
    too, with its problem, so that it is reported on every refresh without
    being read again until its generation moves.
    """

    generation: int
    inventories: dict = dataclasses.field(default_factory=dict)
    traits: frozenset = frozenset()
    usages: dict | None = None  # kept only with cache_usages
    problem: str | None = None

    def needs_usages(self):
        # No inventory, no allocation: Placement refuses both otherwise.
        return self.problem is None and bool(self.inventories)


class PlacementSource:
    """Collects snapshots from Placement and Nova, reusing what is unchanged.

    One instance lives as long as the worker so that its provider cache
    (uuid -> generation, inventories, traits) survives between refreshes;
    the cache is replaced only when a refresh succeeded, so a failed one
    leaves nothing half-updated behind.
    """

    name = 'placement'

    def __init__(self, conf, cache_usages=False):
        self._conf = conf
        # True trusts the generation for usages too: cheaper, but see the
        # module docstring for the deletes it then misses.
        self._cache_usages = cache_usages
        self._cache = {}
        self._lock = threading.Lock()
        # Figures of the last successful collect, for logs and metrics.
        self.last_stats = {}

    def collect(self, client):
        """A model.Snapshot of the cloud; CloudError if any call fails."""
        with self._lock:  # one collect at a time owns the cache
            return self._collect(client)

    def _collect(self, client):
        problems = []
        calls_before = client.call_count
        summaries = self._list_providers(client, problems)
        hypervisors = client.get_all('compute', '/os-hypervisors/detail',
                                     'hypervisors', HYPERVISOR_MICROVERSION)
        flavors = nova.list_flavors(client, problems)
        services = nova.list_compute_services(client)
        aggregates = nova.list_aggregates(client)

        nodes = self._nodes(hypervisors, problems)
        trees = {}
        for summary in summaries.values():
            trees.setdefault(summary.root_uuid, []).append(summary)
        for root_uuid in sorted(set(trees) - set(nodes)):
            root = summaries.get(root_uuid)
            label = root.label if root else root_uuid
            problems.append(
                'resource provider %s: root provider with no hypervisor '
                '(a sharing provider, or a compute node Nova no longer '
                'has), its tree of %d provider(s) skipped'
                % (label, len(trees[root_uuid])))
        # Only trees of compute nodes are read: stale or sharing providers
        # would cost calls for nothing.
        wanted = [summary for root_uuid, members in trees.items()
                  if root_uuid in nodes for summary in members]
        entries, usages, stats = self._read_providers(client, wanted)

        hosts = []
        for uuid, (node, service_host, hypervisor) in sorted(
                nodes.items(), key=lambda item: item[1][:2]):
            if uuid not in summaries:
                problems.append(
                    'hypervisor %s (host %s): no resource provider %s in '
                    'Placement, skipped' % (node, service_host, uuid))
                continue
            if summaries[uuid].root_uuid != uuid:
                problems.append(
                    'hypervisor %s (host %s): resource provider %s is not '
                    'a root provider, skipped'
                    % (node, service_host, summaries[uuid].label))
                continue
            providers = self._tree(summaries[uuid], trees[uuid], entries,
                                   usages, problems)
            if not providers:
                problems.append('hypervisor %s (host %s): its root '
                                'provider is unusable, skipped'
                                % (node, service_host))
                continue
            # os-services is the scheduler's view; the hypervisor carries
            # the same service state should os-services miss the host.
            fallback = (hypervisor.get('status') == 'enabled',
                        hypervisor.get('state') == 'up')
            enabled, up = services.get(service_host, fallback)
            if DISABLED_TRAIT in providers[0].traits:
                enabled = False
            hosts.append(model.Host(name=service_host, node=node,
                                    enabled=enabled, up=up,
                                    providers=providers))

        self._place_in_aggregates(hosts, nodes, aggregates, problems)
        self._add_gpu_pools(client, hosts, aggregates, problems)

        stats['api_calls'] = client.call_count - calls_before
        self._cache = entries
        self.last_stats = stats
        for line in problems:
            LOG.warning('%s', line)
        LOG.info('Placement refresh: %(api_calls)d API calls; '
                 '%(providers)d resource providers, %(providers_fetched)d '
                 'read, %(providers_reused)d unchanged since the previous '
                 'refresh; usages of %(usages_read)d read', stats)
        return model.Snapshot(source=self.name, flavors=flavors,
                              hosts=hosts, problems=problems,
                              api_calls=stats['api_calls'])

    @staticmethod
    def _list_providers(client, problems):
        """{uuid: _Summary} of every resource provider, one call."""
        body = client.get('placement', '/resource_providers',
                          PLACEMENT_MICROVERSION)
        items = None
        if isinstance(body, dict):
            items = body.get('resource_providers')
        if not isinstance(items, list):
            raise openstack.CloudError(
                'placement GET /resource_providers: no resource_providers '
                'list in the answer')
        summaries = {}
        for item in items:
            try:
                summary = _summary(item)
            except _Malformed as exc:
                problems.append('resource provider listing: unreadable '
                                'entry (%s), skipped' % exc)
                continue
            summaries[summary.uuid] = summary
        return summaries

    @staticmethod
    def _nodes(hypervisors, problems):
        """{compute node uuid: (node name, service host, hypervisor)}."""
        nodes = {}
        for hypervisor in hypervisors:
            if not isinstance(hypervisor, dict):
                problems.append('hypervisor entry %r unreadable, skipped'
                                % (hypervisor,))
                continue
            uuid = hypervisor.get('id')
            node = hypervisor.get('hypervisor_hostname')
            service_host = (hypervisor.get('service') or {}).get('host')
            if not uuid or not node or not service_host:
                problems.append(
                    'hypervisor %s: no id, node name or compute service '
                    'host (id=%r, service host=%r), skipped'
                    % (node or uuid, uuid, service_host))
                continue
            nodes[str(uuid)] = (node, service_host, hypervisor)
        return nodes

    def _calls_for(self, summary):
        """The sub-resources of one provider this refresh must read."""
        cached = self._cache.get(summary.uuid)
        if cached is None or cached.generation != summary.generation:
            return ['inventories', 'traits', 'usages']
        if not self._cache_usages and cached.needs_usages():
            return ['usages']
        return []

    def _read_providers(self, client, wanted):
        """(new cache, {uuid: usages or problem line}, stats).

        All the calls of a refresh go through one client.map so that the
        concurrency bound holds across the whole refresh.
        """
        calls = [(summary.uuid, what) for summary in wanted
                 for what in self._calls_for(summary)]

        def get(call):
            uuid, what = call
            return client.get('placement', '/resource_providers/%s/%s'
                              % (uuid, what), PLACEMENT_MICROVERSION)

        answers = {}
        for (uuid, what), body in zip(calls, client.map(get, calls)):
            answers.setdefault(uuid, {})[what] = body

        entries = {}
        usages = {}
        fetched = 0
        for summary in wanted:
            got = answers.get(summary.uuid, {})
            if 'inventories' in got:
                fetched += 1
                entry = self._parse(summary, got)
            else:
                entry = self._cache[summary.uuid]
            if 'usages' in got and entry.needs_usages():
                try:
                    used = parse_usages(got['usages'])
                except _Malformed as exc:
                    # Read again next refresh anyway; inventories and
                    # traits stay cached.
                    used = ('resource provider %s: %s, skipped'
                            % (summary.label, exc))
                else:
                    if self._cache_usages:
                        entry = dataclasses.replace(entry, usages=used)
                usages[summary.uuid] = used
            elif entry.usages is not None:
                usages[summary.uuid] = entry.usages
            entries[summary.uuid] = entry
        stats = {'providers': len(wanted), 'providers_fetched': fetched,
                 'providers_reused': len(wanted) - fetched,
                 'usages_read': sum(1 for _, what in calls
                                    if what == 'usages')}
        return entries, usages, stats

    @staticmethod
    def _parse(summary, got):
        """A _Cached for a provider just read (kept even if malformed)."""
        try:
            inventories = parse_inventories(got['inventories'])
            traits = parse_traits(got['traits'])
        except _Malformed as exc:
            return _Cached(generation=summary.generation,
                           problem='resource provider %s: %s, skipped'
                           % (summary.label, exc))
        return _Cached(generation=summary.generation,
                       inventories=inventories, traits=traits)

    @staticmethod
    def _tree(root, members, entries, usages, problems):
        """[model.Provider] of one host, root first, parents before kids.

        A provider that cannot be used takes its descendants with it: a
        child whose parent is missing has no place in the tree Nova sees.
        An unusable root gives [].
        """
        children = {}
        for summary in members:
            if summary.uuid != root.uuid:
                children.setdefault(summary.parent_uuid, []).append(summary)
        providers = []
        queue = [root]
        reached = set()
        while queue:
            summary = queue.pop(0)
            reached.add(summary.uuid)
            kids = sorted(children.get(summary.uuid, []),
                          key=lambda s: (s.name, s.uuid))
            entry = entries[summary.uuid]
            used = usages.get(summary.uuid, {})
            problem = entry.problem
            if problem is None and isinstance(used, str):
                problem = used
            if problem is not None:
                problems.append(problem)
                for kid in kids:
                    problems.append(
                        'resource provider %s: its parent %s was skipped, '
                        'skipped with it' % (kid.label, summary.label))
                    reached.add(kid.uuid)
                if summary is root:
                    return []
                continue
            providers.append(model.Provider(
                uuid=summary.uuid, name=summary.name,
                parent_uuid=summary.parent_uuid,
                inventories=dict(entry.inventories), usages=dict(used),
                traits=entry.traits, generation=summary.generation))
            queue.extend(kids)
        for summary in members:
            if summary.uuid not in reached:
                problems.append(
                    'resource provider %s: its parent %s is not in the tree '
                    'of %s, skipped' % (summary.label, summary.parent_uuid,
                                        root.label))
        return providers

    def _place_in_aggregates(self, hosts, nodes, aggregates, problems):
        """Give hosts their aggregates and availability zone.

        Aggregates name compute service hosts; every node of a service host
        (several with Ironic) is in the aggregates of that host.
        """
        by_service_host = {}
        for host in hosts:
            by_service_host.setdefault(host.name, []).append(host)
        # Hosts skipped above are already reported; do not report them
        # again for every aggregate they are in.
        known = {service_host for _, service_host, _ in nodes.values()}
        for aggregate, members in aggregates:
            for member in members:
                if member not in known:
                    problems.append('aggregate %s: host %s has no '
                                    'hypervisor, skipped'
                                    % (aggregate.name, member))
                    continue
                for host in by_service_host.get(member, []):
                    host.aggregates.append(aggregate)
        default_zone = self._conf.capacity.default_availability_zone
        for host in hosts:
            host.availability_zone = nova.availability_zone_of(
                host.aggregates, default_zone)

    def _add_gpu_pools(self, client, hosts, aggregates, problems):
        """GPU host aggregates, for clouds not reporting PCI to Placement.

        Listing every server is the most expensive call of a refresh, so
        it is made only when some host of the snapshot is in a usable GPU
        aggregate.
        """
        scratch = []
        pools = nova.gpu_pools_by_host(aggregates, scratch)
        if not any(host.name in pools for host in hosts):
            problems.extend(scratch)
            return
        try:
            aliases = request.parse_aliases(self._conf.pci.alias)
        except (TypeError, ValueError) as exc:
            problems.append('[pci] alias: %s; servers\' GPUs are matched '
                            'by alias name only' % exc)
            aliases = {}
        # Usage is keyed by alias name and pools by gpu_type: a flavor's
        # alias name is its GPU type, as the predecessor matched them.
        used = nova.gpu_usage_by_host(client, aliases, problems)
        pools = nova.gpu_pools_by_host(aggregates, problems,
                                       used_by_host=used)
        for host in hosts:
            host.gpu_pools = list(pools.get(host.name, []))
