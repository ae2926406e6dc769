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

Resource providers, inventories, usages and traits come from Placement
(placement_providers reads them, and says what a refresh costs), so nested
providers (VGPU, PCI devices reported to Placement), reservations,
allocation ratios and unit constraints are exactly what the scheduler sees,
at any compute microversion. This module maps provider trees to compute
hosts with what Nova holds and Placement does not: which root provider is
which compute host, service state, flavors, host aggregates and GPU
aggregates.
"""

import concurrent.futures
import dataclasses
import threading
import time

from oslo_log import log

from flavor_exporter._i18n import _
from flavor_exporter.capacity import engine
from flavor_exporter.capacity import model
from flavor_exporter.publication import cache
from flavor_exporter.worker import census
from flavor_exporter.worker import nova
from flavor_exporter.worker import nova_events
from flavor_exporter.worker import placement_providers
from flavor_exporter.worker import provider_store
from flavor_exporter.worker import source

LOG = log.getLogger(__name__)

# 2.53 (Pike) identifies hypervisors by the compute node UUID, which is the
# UUID of the node's root resource provider, and embeds service.host; it
# also paginates (limit/marker). Every Nova since Pike accepts it, including
# those past 2.88 that removed the resource figures this source does not
# need anyway.
HYPERVISOR_MICROVERSION = '2.53'

# The engine excludes hosts carrying it too (snapshots built by hand or by
# other sources); the source also reports such a host as disabled.
DISABLED_TRAIT = engine.DISABLED_TRAIT


def placement_available(client):
    """Whether `[capacity] source = auto` should pick this source."""
    return client.has_service('placement')


class PlacementSource(source.Source):
    """Collects snapshots from Placement and Nova, reusing what is unchanged.

    One instance lives as long as the worker so that its provider cache
    (uuid -> generation, inventories, traits) and the class its usage
    query asks for survive between refreshes; they are replaced only when
    a refresh succeeded, so a failed one leaves nothing half-updated
    behind. store: a provider_store.ProviderStore, the shared cache where
    the inventories and traits of providers are kept for the next leader
    too (None: this process alone keeps them).
    """

    name = 'placement'
    # The notices topic of the shared provider cache.
    _STORE = 'provider cache'

    def __init__(self, conf, log_prefix='', store=None, clock=time.time):
        super().__init__(conf, log_prefix)
        self._store = store
        self._clock = clock
        self._last_reading = None
        # The compute nodes of the last hypervisors read.
        self._roots = None
        self._lock = threading.Lock()

    def collect(self, client, scope=None, hosts=None):
        """A model.Snapshot of the cloud; CloudError if any call fails.

        scope: the parts Nova announced changes of (nova_events: usages,
        services, aggregates, flavors), or None for all; the Nova
        listings no part of scope can have changed are those of the
        last collect. Placement is read every time (it announces
        nothing) but for the usages of the trees the allocation candidates
        leave out (full ones), which are read one by one: of those, a
        notified collect reads only the hosts' (with usages in scope; all
        when hosts is None).
        """
        with self._lock:  # one collect at a time owns the cache
            return self._collect(client, scope, hosts)

    def _collect(self, client, scope, touched):
        # The usage query depends on nothing read here: asked at once, so
        # that Placement answers it (its largest answer) while this
        # process reads the listings. Nova's listings depend on nothing
        # Placement says either: asked at once too, beside Placement's
        # (another service, which answers them meanwhile).
        calls_before = client.call_count
        with concurrent.futures.ThreadPoolExecutor(
                2, thread_name_prefix='collect') as pool:
            usages = pool.submit(
                placement_providers.read_summaries, client,
                placement_providers.probe_class_of(self._last_reading),
                self._notices)
            listings = pool.submit(self._nova_listings, client, scope)
            # Leaving the block waits for both: no call is left running
            # behind a failed collect.
            return self._collect_with(client, scope, touched, usages.result,
                                      listings.result, calls_before)

    def _caps(self):
        # The instance caps (running_vms) and the set checks (what the
        # scheduler weighs) need the compute nodes' own figures.
        return (self._conf.capacity.num_instances_filter
                or self._conf.capacity.aggregate_num_instances_filter
                or self._conf.checks.enabled)

    def _nova_listings(self, client, scope):
        """{name: (listing, its problem lines)} of Nova's listings.

        The hypervisors only when they are read whatever Placement lists
        (a poll that needs their figures); else the collect decides once
        it knows the compute nodes.
        """
        reads = []
        if self._caps() and scope is None:
            reads.append(('hypervisors', {nova_events.USAGES},
                          lambda problems: self._list_hypervisors(client)))
        reads += [
            ('flavors', {nova_events.FLAVORS},
             lambda problems: self._list_flavors(client, problems)),
            ('services', {nova_events.SERVICES},
             lambda problems: census.list_compute_services(client)),
            ('aggregates', {nova_events.AGGREGATES},
             lambda problems: nova.list_aggregates(client))]
        listings = {}
        for name, parts, read in reads:
            said = []
            listings[name] = (self._kept_or_read(name, scope, parts, said,
                                                 read), said)
        return listings

    @staticmethod
    def _list_hypervisors(client):
        return client.get_all('compute', '/os-hypervisors/detail',
                              'hypervisors', HYPERVISOR_MICROVERSION)

    def _collect_with(self, client, scope, touched, usage_summaries,
                      nova_listings, calls_before):
        problems = []
        summaries, broken = placement_providers.list_providers(client)
        caps = self._caps()
        listings = nova_listings()
        # The hypervisors say which compute node is which host: read again
        # when the compute nodes (root providers) changed, or for their
        # figures whenever usages are read (_nova_listings did); polls keep
        # them too otherwise (the services list says their state).
        roots = frozenset(uuid for uuid, summary in summaries.items()
                          if summary.root_uuid == uuid)
        if 'hypervisors' in listings:
            hypervisors, said = listings['hypervisors']
            problems.extend(said)
        else:
            hypervisors = self._kept_or_read(
                'hypervisors', None if roots != self._roots
                else scope or frozenset(),
                {nova_events.USAGES} if caps else set(), problems,
                lambda problems: self._list_hypervisors(client))
        flavors, services, aggregates = (
            problems.extend(listings[name][1]) or listings[name][0]
            for name in ('flavors', 'services', 'aggregates'))

        nodes, hosts, nameless = self._nodes(hypervisors, services,
                                             problems)
        trees = {}
        for summary in summaries.values():
            trees.setdefault(summary.root_uuid, []).append(summary)
        for root_uuid in sorted(set(trees) - set(nodes)):
            root = summaries.get(root_uuid)
            label = root.label if root else root_uuid
            problems.append(
                _('resource provider %(provider)s: root provider with no '
                  'hypervisor (a sharing provider, or a compute node Nova no '
                  'longer has), its tree of %(count)d provider(s) skipped')
                % {'provider': label, 'count': len(trees[root_uuid])})
        # Only trees of compute nodes are read: stale or sharing providers
        # would cost calls for nothing.
        wanted = [summary for root_uuid, members in trees.items()
                  if root_uuid in nodes and root_uuid not in broken
                  for summary in members]
        reading = placement_providers.read_providers(
            client, wanted, self._last_reading, self._notices,
            keep_usages=self._usages_kept(scope, touched, nodes, summaries),
            store=self._store, summaries=usage_summaries)

        for uuid, (node, service_host, hypervisor) in sorted(
                nodes.items(), key=lambda item: item[1][:2]):
            providers, unreadable = self._providers(
                uuid, summaries, trees, broken, reading)
            enabled, up = census.state(
                services.get(service_host), hypervisor.get('status'),
                hypervisor.get('state'))
            if providers and DISABLED_TRAIT in providers[0].traits:
                enabled = False
            hosts.append(model.Host(name=service_host, node=node,
                                    enabled=enabled, up=up,
                                    providers=providers,
                                    unreadable=unreadable,
                                    num_instances=census.running_vms(
                                        hypervisor),
                                    figures=census.scheduler_figures(
                                        hypervisor)))
        census.account(hosts, services, problems, nameless)
        hosts.sort(key=lambda host: (host.node, host.name))

        self._place_in_aggregates(hosts, nodes, services, aggregates,
                                  problems)
        pools = self._kept_or_read(
            'gpu pools', scope, {nova_events.USAGES, nova_events.AGGREGATES},
            problems, lambda problems: self._gpu_pools(client, hosts,
                                                       aggregates, problems))
        for host in hosts:
            host.gpu_pools = list(pools.get(host.name, []))

        self._roots = roots
        stats = dict(reading.stats,
                     api_calls=client.call_count - calls_before)
        # What the next refresh needs (its providers are the snapshot's,
        # used again where nothing of them changed).
        self._last_reading = dataclasses.replace(reading, unusable={})
        self.last_stats = stats
        self._warn(problems)
        LOG.info('%(prefix)sPlacement refresh: %(api_calls)d API calls; '
                 '%(providers)d resource providers, %(providers_fetched)d '
                 'read, %(providers_reused)d unchanged since the previous '
                 'refresh%(shared)s; usages of %(usages_summarized)d from '
                 'allocation candidates, of %(usages_read)d read one by one',
                 dict(stats, prefix=self._log_prefix, shared=(
                     ' (%d of them from the shared cache)'
                     % stats['providers_shared']
                     if 'providers_shared' in stats else '')))
        return model.Snapshot(source=self.name, flavors=flavors,
                              hosts=hosts, problems=problems,
                              api_calls=stats['api_calls'],
                              aggregates=[agg for agg, _ in aggregates])

    def share(self):
        """Write to the store the providers it lacks or holds since long.

        Those of the last successful collect; each entry records when it
        was written. A cache that cannot be written costs the next leader
        calls, not this refresh: said once, and written again after the
        next refresh.
        """
        with self._lock:
            if self._store is not None and self._last_reading is not None:
                self._share(self._last_reading.cache)

    def _share(self, entries):
        now = int(self._clock())
        stale = now - provider_store.REWRITE_AFTER
        due = {uuid: (entry.generation, entry.inventories, entry.traits, now)
               for uuid, entry in entries.items()
               if entry.shared_at is None or entry.shared_at < stale}
        if not due:
            return
        try:
            self._store.save(due)
        except cache.CacheError as exc:
            self._notices.started(
                self._STORE, 'Could not write the resource providers to the '
                'shared cache, a new leader will read them from Placement: '
                '%s' % exc)
            return
        self._notices.ended(self._STORE, 'The resource providers are '
                            'written to the shared cache again')
        for uuid in due:
            entries[uuid] = dataclasses.replace(entries[uuid], shared_at=now)

    @staticmethod
    def _usages_kept(scope, touched, nodes, summaries):
        """Which providers' usages a notified collect may keep, or None.

        None (read them all) for a poll, or when the usages of any host
        may have changed; else those of every tree but the touched hosts'.
        """
        if scope is None:
            return None
        if nova_events.USAGES not in scope:
            return lambda uuid: True
        if touched is None:
            return None
        roots = {uuid for uuid, (_, service_host, _) in nodes.items()
                 if service_host in touched}
        return lambda uuid: summaries[uuid].root_uuid not in roots

    def _providers(self, uuid, summaries, trees, broken, reading):
        """([model.Provider] of one compute node, why unreadable or None).

        Counting a node without a provider of its tree would publish a
        number the missing answer made lower: the host is unreadable
        instead, excluded from every flavor and named.
        """
        if uuid in broken:
            return [], broken[uuid]
        if uuid not in summaries:
            return [], (_("no resource provider %s in Placement's listing")
                        % uuid)
        if summaries[uuid].root_uuid != uuid:
            return [], (_('resource provider %s is not a root provider')
                        % summaries[uuid].label)
        return self._tree(summaries[uuid], trees[uuid], reading)

    @staticmethod
    def _nodes(hypervisors, services, problems):
        """(nodes, hosts, nameless) of the os-hypervisors listing.

        nodes: {compute node uuid: (node, service host, hypervisor)}.
        hosts: a model.Host, unreadable, for each entry that names its
        compute service host but no id or node name. nameless: how many
        entries name no host (a problem line each); census.account finds
        the hosts they leave without a node.
        """
        nodes, hosts, nameless = {}, [], 0
        for hypervisor in hypervisors:
            service_host = census.service_host(hypervisor)
            if service_host is None:
                problems.append(_('hypervisor entry %.120r names no compute '
                                  'service host, skipped') % (hypervisor,))
                nameless += 1
                continue
            uuid = hypervisor.get('id')
            node = hypervisor.get('hypervisor_hostname')
            if uuid and isinstance(node, str) and node:
                nodes[str(uuid)] = (node, service_host, hypervisor)
                continue
            enabled, up = census.state(
                services.get(service_host), hypervisor.get('status'),
                hypervisor.get('state'))
            hosts.append(model.Host(
                name=service_host, node=str(node or uuid or service_host),
                enabled=enabled, up=up,
                unreadable=_('its os-hypervisors entry has no id or node '
                             'name (id=%(uuid)r, node=%(node)r)')
                % {'uuid': uuid, 'node': node}))
        return nodes, hosts, nameless

    @staticmethod
    def _tree(root, members, reading):
        """([model.Provider] of one host, why it is unreadable or None).

        Providers come root first, parents before kids. A provider Placement
        gave no usable answer for, or one whose parent is not in the tree,
        makes the whole host unreadable: without it the host would count
        less than it holds (or, for a child, hold classes it does not have).
        """
        unusable = reading.unusable
        if unusable and any(s.uuid in unusable for s in members):
            return [], '; '.join(
                _('resource provider %(provider)s: %(why)s')
                % {'provider': summary.label, 'why': unusable[summary.uuid]}
                for summary in sorted(members,
                                      key=lambda s: s.uuid != root.uuid)
                if summary.uuid in unusable)
        if len(members) == 1:
            # A tree of its root alone (most hosts): nothing to order.
            return [reading.providers[root.uuid]], None
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
            providers.append(reading.providers[summary.uuid])
            queue.extend(kids)
        if len(reached) == len(members):
            return providers, None
        astray = ['%s (parent %s)' % (summary.label, summary.parent_uuid)
                  for summary in sorted(members, key=lambda s: s.uuid)
                  if summary.uuid not in reached]
        if astray:
            return [], (_("resource provider(s) %s: the parent is not in "
                          "Placement's listing of the tree")
                        % ', '.join(astray))
        return providers, None

    def _place_in_aggregates(self, hosts, nodes, services, aggregates,
                             problems):
        # Hosts the census knows are already reported; do not report them
        # again for every aggregate they are in.
        known = {service_host for _, service_host, _ in nodes.values()}
        known.update(services)
        nova.assign_aggregates(
            hosts, aggregates, known,
            self._conf.capacity.default_availability_zone, problems)

    @staticmethod
    def _gpu_pools(client, hosts, aggregates, problems):
        """{host: [GpuPool]} of the GPU host aggregates.

        For clouds not reporting PCI to Placement. Listing every server is
        the most expensive call of a refresh, so it is made only when some
        host of the snapshot is in a usable GPU aggregate.
        """
        scratch = []
        pools = nova.gpu_pools_by_host(aggregates, scratch)
        if not any(host.name in pools for host in hosts):
            problems.extend(scratch)
            return {}
        # Usage is keyed by alias name and pools by gpu_type: a flavor's
        # alias name is its GPU type, as the predecessor matched them.
        used = nova.gpu_usage_by_host(client, problems)
        return nova.gpu_pools_by_host(aggregates, problems,
                                      used_by_host=used)
