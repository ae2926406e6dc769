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
"""What both capacity sources read from Nova: flavors, services, aggregates.

Each reader turns Nova's JSON into model objects. A malformed flavor or
server is a problem (a line naming the item); aggregates that cannot be
read fail the refresh, since every host's zone and filters depend on
them. The compute services are census.py's.
"""

import dataclasses

from oslo_log import log

from flavor_exporter._i18n import _
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.worker import flavor_access
from flavor_exporter.worker import openstack

LOG = log.getLogger(__name__)

# 2.75: flavors/detail carries extra_specs and an integer swap (earlier
# microversions answer "" for no swap).
FLAVOR_MICROVERSION = '2.75'
# 2.47: servers embed their flavor, extra specs included.
SERVER_MICROVERSION = '2.47'
# Servers named in one problem line; the rest are counted.
SERVERS_NAMED = 5
# 2.41: aggregates carry their UUID (Placement knows them by it).
AGGREGATE_MICROVERSION = '2.41'


def _int(value, default=0):
    if value in (None, ''):
        return default
    return int(value)


def parse_flavor(body):
    """A model.Flavor from one item of GET /flavors/detail."""
    return model.Flavor(
        id=str(body['id']),
        name=body['name'],
        vcpus=_int(body.get('vcpus')),
        ram=_int(body.get('ram')),
        disk=_int(body.get('disk')),
        ephemeral=_int(body.get('OS-FLV-EXT-DATA:ephemeral')),
        swap=_int(body.get('swap')),
        is_public=bool(body.get('os-flavor-access:is_public', True)),
        disabled=bool(body.get('OS-FLV-DISABLED:disabled', False)),
        extra_specs=dict(body.get('extra_specs') or {}),
        description=body.get('description'))


def list_flavors(client, problems, access=None):
    """Every flavor, public and private, with its extra specs.

    access: the flavor_access.FlavorAccess of the source, which keeps the
    access lists of private flavors between refreshes; None reads them all.
    """
    flavors = []
    items = client.get_all('compute', '/flavors/detail', 'flavors',
                           FLAVOR_MICROVERSION, {'is_public': 'None'})
    for body in items:
        try:
            flavors.append(parse_flavor(body))
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(_('flavor %(flavor)s: unreadable (%(error)s), '
                              'skipped')
                            % {'flavor': body.get('name') or body.get('id'),
                               'error': exc})
    access = access or flavor_access.FlavorAccess()
    shared = access.projects(client, [f for f in flavors if not f.is_public],
                             problems)
    return [dataclasses.replace(f, projects=shared[f.id])
            if f.id in shared else f for f in flavors]


def _aggregate(entry):
    """(model.Aggregate, [service host]) from one os-aggregates entry."""
    if not isinstance(entry, dict):
        raise ValueError(repr(entry)[:120])
    # Nova answers [] and {} for none; null is what an older one did.
    hosts, metadata = entry.get('hosts'), entry.get('metadata')
    hosts = [] if hosts is None else hosts
    metadata = {} if metadata is None else metadata
    if not isinstance(hosts, list) or not isinstance(metadata, dict) or \
            not all(isinstance(host, str) for host in hosts):
        raise ValueError(repr(entry)[:120])
    return (model.Aggregate(name=entry.get('name') or str(entry.get('id')),
                            metadata=dict(metadata), uuid=entry.get('uuid')),
            list(hosts))


def list_aggregates(client):
    """[(model.Aggregate, [service host, ...])] of every host aggregate.

    CloudError when the answer is not a list of aggregates, each with its
    hosts and metadata: without them every host would look in no
    aggregate, in the default zone, and a flavor pinned to an aggregate
    would fit nowhere, with nothing to say the numbers are wrong.
    """
    body = client.get('compute', '/os-aggregates', AGGREGATE_MICROVERSION)
    entries = body.get('aggregates') if isinstance(body, dict) else None
    if not isinstance(entries, list):
        raise openstack.CloudError(
            _('compute GET /os-aggregates: no list of aggregates in the '
              'answer'), status=200)
    try:
        return [_aggregate(entry) for entry in entries]
    except ValueError as exc:
        raise openstack.CloudError(
            _('compute GET /os-aggregates: an aggregate without a list of '
              'hosts and a metadata object: %s') % exc, status=200) from None


def _truthy(value):
    return str(value).strip().lower() in ('true', '1', 'yes', 'on')


def gpu_pools_by_host(aggregates, problems, used_by_host=None):
    """{service host: [model.GpuPool]} from GPU host aggregates.

    An aggregate is a GPU aggregate when its metadata says gpu=True; its
    gpu_count GPUs of gpu_type are on every one of its hosts. used_by_host
    ({host: {gpu_type: n}}) fills in usage where the source knows it.
    """
    used_by_host = used_by_host or {}
    pools = {}
    for aggregate, hosts in aggregates:
        metadata = aggregate.metadata
        if 'gpu' not in metadata or not _truthy(metadata['gpu']):
            continue
        gpu_type = (metadata.get('gpu_type') or '').strip()
        try:
            count = int(metadata.get('gpu_count'))
            if count < 0 or not gpu_type:
                raise ValueError
        except (TypeError, ValueError):
            problems.append(
                _('aggregate %(aggregate)s: gpu_count=%(count)r '
                  'gpu_type=%(type)r is not a GPU count and type, aggregate '
                  'skipped')
                % {'aggregate': aggregate.name,
                   'count': metadata.get('gpu_count'),
                   'type': metadata.get('gpu_type')})
            continue
        for host in hosts:
            used = used_by_host.get(host, {}).get(gpu_type, 0)
            pools.setdefault(host, {})[gpu_type] = model.GpuPool(
                gpu_type=gpu_type, count=count, used=used)
    return {host: list(by_type.values()) for host, by_type in pools.items()}


def assign_aggregates(hosts, aggregates, known, default_zone, problems):
    """Give hosts their aggregates and availability zone.

    Aggregates name compute service hosts, and every node of a service
    host (several with Ironic) is in that host's aggregates. known: the
    service hosts that have a hypervisor; other members are reported once
    per aggregate and skipped.
    """
    by_service_host = {}
    for host in hosts:
        host.aggregates = []
        by_service_host.setdefault(host.name, []).append(host)
    for aggregate, members in aggregates:
        for member in members:
            if member not in known:
                problems.append(_('aggregate %(aggregate)s: host %(host)s '
                                  'has no hypervisor, skipped')
                                % {'aggregate': aggregate.name,
                                   'host': member})
                continue
            for host in by_service_host.get(member, []):
                host.aggregates.append(aggregate)
    for host in hosts:
        host.availability_zone = next(
            (a.metadata['availability_zone'] for a in host.aggregates
             if a.metadata.get('availability_zone')), default_zone)


def server_devices(server):
    """{alias name: devices} a server holds, from its embedded flavor.

    With microversion 2.47 a server carries its own copy of its flavor
    (Nova's instance.flavor), which outlives a deleted flavor. ValueError
    saying what is missing or malformed when it cannot be read.
    """
    flavor = server.get('flavor')
    if not isinstance(flavor, dict):
        raise ValueError(_('its flavor is not in the answer'))
    if not flavor:
        # nova.api.openstack.compute.views.servers._get_flavor answers {}
        # when the instance's flavor is gone from its cell database.
        raise ValueError(_("its flavor is gone from Nova's database"))
    specs = flavor.get('extra_specs')
    if not isinstance(specs, dict):
        # Nova leaves them out when policy
        # os_compute_api:os-flavor-extra-specs:index refuses the caller.
        raise ValueError(_("its flavor's extra specs are not in the answer "
                           "(does the worker's account pass policy "
                           "os_compute_api:os-flavor-extra-specs:index?)"))
    try:
        return pci_alias.devices_by_alias(specs)
    except ValueError as exc:
        raise ValueError(_('flavor %(name)r: %(error)s')
                         % {'name': flavor.get('original_name'),
                            'error': exc}) from None


def _unreadable_line(reason, servers):
    named = ', '.join(_('%(server)s on %(host)s')
                      % {'server': server, 'host': host}
                      for server, host in servers[:SERVERS_NAMED])
    if len(servers) > SERVERS_NAMED:
        named += _(' and %d more') % (len(servers) - SERVERS_NAMED)
    return (_('servers %(servers)s: %(reason)s; the PCI devices they hold '
              'are not counted as used') % {'servers': named,
                                            'reason': reason})


def servers_on_hosts(client):
    """Every server that may hold what a host has, in two listings.

    Nova lists a SOFT_DELETED server only when deleted ones are asked
    for, yet until it is reclaimed it keeps its host's PCI devices (the
    resource tracker frees them only for DELETED and SHELVED_OFFLOADED).
    Only an administrator may ask; the worker's account must be one for
    all_tenants anyway.
    """
    listed = client.get_all('compute', '/servers/detail', 'servers',
                            SERVER_MICROVERSION, {'all_tenants': 1})
    soft_deleted = client.get_all(
        'compute', '/servers/detail', 'servers', SERVER_MICROVERSION,
        {'all_tenants': 1, 'deleted': 'true', 'status': 'SOFT_DELETED'})
    return listed + soft_deleted


def gpu_usage_by_host(client, problems):
    """{service host: {alias name: devices}} held by servers.

    Needed wherever GPUs are only known from aggregates: Placement then has
    no PCI usage, so the servers' flavors are the record of who holds one.
    Only a flavor's pci_passthrough:alias is read; a server whose flavor
    cannot be read is a problem, one line per reason: its devices would
    otherwise look free.
    """
    usage = {}
    unreadable = {}  # reason -> [(server id, host)]
    for server in servers_on_hosts(client):
        host = server.get('OS-EXT-SRV-ATTR:host')
        if not host and server.get('status') == 'UNKNOWN':
            # Nova lists a server of a cell it cannot reach with its id
            # and status only: where it runs, and on what, is unknown.
            unreadable.setdefault(_('their cell is down'), []).append(
                (server.get('id'), _('an unknown host')))
            continue
        if not host:
            continue  # on no compute host, it holds no device
        try:
            devices = server_devices(server)
        except ValueError as exc:
            unreadable.setdefault(str(exc), []).append(
                (server.get('id'), host))
            continue
        if devices:
            by_alias = usage.setdefault(host, {})
            for name, count in devices.items():
                by_alias[name] = by_alias.get(name, 0) + count
    for reason, which in unreadable.items():
        problems.append(_unreadable_line(reason, which))
    return usage
