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
"""The leading worker's answers to what-ifs (POST /v3/whatif).

Asked and answered through the same path as set checks
(checks.RequestAnswers): the changes are applied to a copy of the
snapshot the last refresh read (capacity/planning/whatif.py), counted by
the same engine, and compared with the report published. Servers of hosts
drained with "evacuate" are listed now (one /servers/detail call per
host, as an operator's evacuation loop reads them) and moved one by one
with the set checks' scheduler simulation.
"""

import threading

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity.planning import whatif as whatif_mod
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import whatif as docs
from flavor_exporter.worker import checks
from flavor_exporter.worker import nova

#: Names of flavors made for evacuated servers whose flavor the report
#: does not count as is (changed, deleted or skipped since they booted).
_HIDDEN = 'whatif-evacuated:'
#: The fields of a server's embedded flavor (microversion 2.47).
_FLAVOR_FIELDS = ('vcpus', 'ram', 'disk', 'ephemeral', 'swap')

#: What an evacuation cannot know, said with every one.
EVACUATION_NOTES = (
    'each server is moved as one request of its own, in the order Nova '
    'lists the servers of each drained host (newest first), hosts in the '
    'order given',
    'the server groups of the moved servers are not read: their '
    '(anti-)affinity is not applied to the moves',
    'a server asked into an availability zone at boot stays in it on a '
    'move; the zone asked is not in the server listing: every zone is '
    'taken as open to it')


def _embedded(server):
    flavor = server.get('flavor') or {}
    return (tuple(int(flavor.get(key) or 0) for key in _FLAVOR_FIELDS),
            tuple(sorted((flavor.get('extra_specs') or {}).items())),
            flavor.get('original_name'))


class Whatif:
    """Answers what-ifs on the reports of one cloud."""

    def __init__(self, conf, options):
        self._settings = checks.scheduler_settings(conf)
        self._options = options
        self._numa = numa_fit.Counts(options.numa)
        self._lock = threading.Lock()

    def servers(self, client, hosts):
        """{host: [server dict]} of the hosts, as Nova lists them."""
        found = {}
        for host in hosts:
            found[host] = client.get_all(
                'compute', '/servers/detail', 'servers',
                nova.SERVER_MICROVERSION, {'all_tenants': 1, 'host': host})
        return found

    def compute(self, report, snapshot, whatif, client, fits=None):
        """The answer document of a WhatIf, the servers listed now.

        fits: the vector_fit.Fits of the refresh that made report, whose
        group fits are reused where the copy did not change them.
        checks.InvalidRequest for changes the cloud refuses.
        """
        try:
            listed = {}
            drained = whatif_mod.apply(snapshot, whatif).evacuated
            if drained:
                listed = self.servers(client, drained)
                count = sum(len(found) for found in listed.values())
                if count > docs.MAX_EVACUATED:
                    raise checks.InvalidRequest(
                        'the drained hosts hold %d servers; a what-if '
                        'evacuates at most %d' % (count,
                                                  docs.MAX_EVACUATED))
            return self.answer(report, snapshot, whatif, listed, fits)
        except whatif_mod.InvalidChange as exc:
            raise checks.InvalidRequest(str(exc)) from None

    def answer(self, report, snapshot, whatif, listed, fits=None):
        """The answer document of a WhatIf; whatif_mod.InvalidChange.

        listed: {evacuated host: [server dict]} (servers()); fits: as
        compute's.
        """
        with self._lock:
            return self._answer(report, snapshot, whatif, listed,
                                whatif_mod.Borrowed(fits))

    def _answer(self, report, snapshot, whatif, listed, fits):
        applied = whatif_mod.apply(snapshot, whatif)
        evacuation = None
        notes = []
        changed = applied.snapshot
        if applied.evacuated:
            servers, hidden = self._servers(report, applied, listed)
            changed.flavors.extend(hidden)
            drained = engine.compute(changed, self._options, fits,
                                     numa_counts=self._numa,
                                     fragmented=False)
            placed, hosts = whatif_mod.evacuate(
                drained, self._options, self._settings, servers,
                self._numa)
            stuck = {server.host for server, (where, _) in
                     zip(servers, placed) if where is None}
            changed = whatif_mod.moved(
                changed, hosts, set(applied.evacuated) - stuck)
            evacuation = _evacuation(servers, placed)
            notes.extend(EVACUATION_NOTES)
            if stuck:
                notes.append('hosts %s keep the servers no host takes'
                             % ', '.join(sorted(stuck)))
        after = engine.compute(changed, self._options, fits,
                               numa_counts=self._numa, fragmented=False)
        hosts = {'drained': applied.drained, 'evacuated': applied.evacuated,
                 'added': applied.added, 'removed': applied.removed,
                 'changed': applied.changed}
        return docs.document(whatif, _flavors(report, after),
                             _gpus(report, after), hosts, evacuation,
                             notes, report.collected_at)

    def _servers(self, report, applied, listed):
        """([whatif_mod.Server] in order, [hidden model.Flavor])."""
        counted = {result.flavor.name: result.flavor
                   for result in report.flavors if result.request}
        hidden = {}
        servers = []
        for host in applied.evacuated:
            for server in listed.get(host, ()):
                resources, specs, name = _embedded(server)
                flavor = counted.get(name)
                if flavor is None or resources != tuple(
                        getattr(flavor, key) for key in _FLAVOR_FIELDS) \
                        or specs != tuple(sorted(
                            flavor.extra_specs.items())):
                    flavor = hidden.get((resources, specs))
                    if flavor is None:
                        flavor = hidden[resources, specs] = \
                            whatif_mod.model.Flavor(
                                id=_HIDDEN + str(len(hidden)),
                                name=_HIDDEN + str(len(hidden)),
                                extra_specs=dict(specs),
                                **dict(zip(_FLAVOR_FIELDS, resources)))
                servers.append(whatif_mod.Server(
                    server.get('id'), server.get('name'), host, flavor.id,
                    server.get('tenant_id'), name))
        return servers, list(hidden.values())


def _evacuation(servers, placed):
    moves, not_placed = [], []
    for server, (where, stop) in zip(servers, placed):
        item = {'server': server.id, pub.NAME: server.name,
                'flavor': server.flavor_name, 'from': server.host}
        if where is not None:
            moves.append(dict(item, to=where.host,
                              availability_zone=where.zone,
                              tied_with=list(where.tied)))
        else:
            not_placed.append(dict(item, reason=stop.reason,
                                   limit=stop.limit))
    return {'servers': len(servers), 'placed': len(moves),
            'fits': not not_placed, 'moves': moves,
            'not_placed': not_placed}


def _flavors(before, after):
    """Each flavor's item, GPU flavors first (by type), then by name.

    The order of the flavor lists (openstack capacity flavor list,
    flavor-exporter-report).
    """
    old = {result.flavor.id: result for result in before.flavors}
    new = {result.flavor.id: result for result in after.flavors
           if not result.flavor.id.startswith(_HIDDEN)}
    items = [docs.flavor_item(old.get(key), new.get(key))
             for key in dict.fromkeys(list(old) + list(new))]
    return sorted(items, key=lambda item: (
        item['gpu'] is None, (item['gpu'] or {}).get('type', ''),
        item[pub.NAME].casefold(), item[pub.ID]))


def _gpus(before, after):
    old = {gpu_type.name: gpu_type for gpu_type in before.gpus}
    new = {gpu_type.name: gpu_type for gpu_type in after.gpus}
    return [docs.gpu_item(name, old.get(name), new.get(name))
            for name in sorted(set(old) | set(new))]


class WhatifAnswers(checks.RequestAnswers):
    """Publishes the answers to the what-ifs API processes ask for."""

    NOUN = 'What-if'

    def __init__(self, conf, publisher, refresher, cloud, options):
        super().__init__(conf, publisher, refresher, cloud,
                         pub.WHATIF_REQUESTS_NAME, 1,
                         conf.checks.answer_ttl)
        self._whatif = Whatif(conf, options)

    def compute(self, body, report):
        try:
            whatif = docs.parse(body)
        except docs.InvalidWhatIf as exc:
            raise checks.InvalidRequest(str(exc)) from None
        document = self._whatif.compute(
            report, self._refresher.last_snapshot, whatif,
            self._refresher.client, self._refresher.fits)
        return {docs.WHATIF: document[docs.WHATIF]}
