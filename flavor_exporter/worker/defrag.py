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
"""The leading worker's answers to defrag requests (POST /v3/defrag).

Asked and answered through the same path as set checks and what-ifs
(checks.RequestAnswers), one at a time. The refresh reads no server: a
defrag request reads the servers of the hosts worth searching only, at
most the body's max_hosts (the flavor's hosts closest to one more):
one Nova /servers/detail call per host (the flavors as the servers
booted with, microversion 2.47), one Placement allocations call per
resource provider of those hosts, the server groups once, and the host
of each member of a searched server's anti-affinity group elsewhere
(at most MAX_MEMBERS). Then capacity/planning/defrag.py searches, within the
body's max_moves and max_seconds.
"""

import threading

from flavor_exporter.capacity import model
from flavor_exporter.capacity.planning import defrag
from flavor_exporter.capacity.planning.set_check import api_checks
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import defrag as docs
from flavor_exporter.worker import checks
from flavor_exporter.worker import nova

#: Server group members located with one call each, at most.
MAX_MEMBERS = 100
#: Server groups' policy field (2.64: "policy" and "rules").
GROUPS_MICROVERSION = '2.64'
_FLAVOR_FIELDS = ('vcpus', 'ram', 'disk', 'ephemeral', 'swap')
_HOST = 'OS-EXT-SRV-ATTR:host'


def _flavor(server):
    """The model.Flavor a server was booted with (embedded, 2.47)."""
    embedded = server.get('flavor') or {}
    name = embedded.get('original_name') or '?'
    return model.Flavor(name, name, extra_specs=dict(
        embedded.get('extra_specs') or {}), **{
            key: int(embedded.get(key) or 0) for key in _FLAVOR_FIELDS})


def _pinned(server):
    """Why Nova would not live-migrate the server now, or None."""
    status = server.get('status')
    if status != 'ACTIVE':
        return 'not ACTIVE (Nova live-migrates active servers only)'
    if server.get('OS-EXT-STS:task_state'):
        return 'a task is under way on it'
    if server.get('locked'):
        return 'locked'
    return None


def hosts_to_read(report, result, most):
    """The names of the flavor's hosts worth reading, closest first.

    Hosts the flavor counts on that hold servers (unless their count is
    unknown), ranked as the search ranks them (defrag.rank).
    """
    positions = result.per_host.columns()[0]
    positions = [p for p in positions if report.hosts[p].num_instances
                 or report.hosts[p].figures is None]
    return [report.hosts[p].name
            for p in defrag.rank(report, result, positions)[:most]]


class Defrag:
    """Answers defrag requests on the reports of one cloud."""

    def __init__(self, options):
        self._options = options
        self._lock = threading.Lock()

    def servers(self, client, report, names):
        """[defrag.Server] of the hosts named, as Nova and Placement say."""
        by_name = {h.name: h for h in report.hosts}
        listed = {}
        for name in names:
            listed[name] = client.get_all(
                'compute', '/servers/detail', 'servers',
                nova.SERVER_MICROVERSION, {'all_tenants': 1, 'host': name})
        allocations = {}
        for name in names:
            for provider in by_name[name].providers:
                body = client.get('placement', '/resource_providers/%s/'
                                  'allocations' % provider.uuid)
                for consumer, found in (body.get('allocations')
                                        or {}).items():
                    allocations.setdefault(consumer, {})[provider.uuid] = \
                        dict(found.get('resources') or {})
        groups = self._groups(client, {s['id'] for found in listed.values()
                                       for s in found})
        servers = []
        for name, found in listed.items():
            for server in found:
                servers.append(defrag.Server(
                    server['id'], server.get('name') or server['id'], name,
                    _flavor(server), allocations.get(server['id'], {}),
                    groups.get(server['id']), _pinned(server)))
        return servers + self._members(client, groups, listed)

    def _groups(self, client, ids):
        """{server id: defrag.Group} of the servers in ids."""
        found = {}
        for group in client.get_all(
                'compute', '/os-server-groups', 'server_groups',
                GROUPS_MICROVERSION, {'all_projects': True}):
            members = frozenset(group.get('members') or ())
            if not members & ids:
                continue
            rules = group.get('rules') or {}
            made = defrag.Group(group['id'], group.get('policy') or '',
                                members,
                                int(rules.get('max_server_per_host') or 1))
            for member in members & ids:
                found[member] = made
        return found

    def _members(self, client, groups, listed):
        """Anti-affinity members elsewhere, as servers never moved."""
        seen = {s['id'] for found in listed.values() for s in found}
        wanted = sorted({(member, group) for group in groups.values()
                         if group.policy == 'anti-affinity'
                         for member in group.members - seen},
                        key=lambda pair: pair[0])
        if len(wanted) > MAX_MEMBERS:
            raise checks.InvalidRequest(
                'the servers to search are in anti-affinity groups of %d '
                'other members; at most %d are located'
                % (len(wanted), MAX_MEMBERS))
        elsewhere = []
        for member, group in wanted:
            body = client.get('compute', '/servers/%s' % member,
                              nova.SERVER_MICROVERSION)
            server = body.get('server') or {}
            if server.get(_HOST):
                elsewhere.append(defrag.Server(
                    member, server.get('name') or member, server[_HOST],
                    _flavor(server), {}, group, defrag.ELSEWHERE))
        return elsewhere

    def compute(self, report, request, client):
        """The answer document of a DefragRequest; checks.InvalidRequest."""
        result = api_checks.lookup(report, request.flavor)
        if result is None:
            raise checks.InvalidRequest('no flavor with the id or name %s'
                                        % request.flavor)
        servers = []
        if result.request is not None and result.fragmentation is not None \
                and result.fragmentation.fragmented >= request.count:
            servers = self.servers(client, report, hosts_to_read(
                report, result, request.max_hosts))
        bounds = defrag.Bounds(moves=request.max_moves,
                               hosts=request.max_hosts,
                               seconds=request.max_seconds)
        with self._lock:
            found = defrag.plan(report, self._options, result, servers,
                                request.count, bounds)
        return docs.document(request, found, defrag.commands(found),
                             defrag.watcher_actions(found),
                             report.collected_at)


class DefragAnswers(checks.RequestAnswers):
    """Publishes the answers to the defrag requests API processes ask for."""

    NOUN = 'Defrag'

    def __init__(self, conf, publisher, refresher, cloud, options):
        super().__init__(conf, publisher, refresher, cloud,
                         pub.DEFRAG_REQUESTS_NAME, 1,
                         conf.checks.answer_ttl)
        self._defrag = Defrag(options)

    def compute(self, body, report):
        try:
            request = docs.parse(body)
        except docs.InvalidDefrag as exc:
            raise checks.InvalidRequest(str(exc)) from None
        document = self._defrag.compute(report, request,
                                        self._refresher.client)
        return {docs.DEFRAG: document[docs.DEFRAG]}
