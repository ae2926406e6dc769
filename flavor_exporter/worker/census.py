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
"""The compute services list: the hosts every snapshot accounts for.

The other listings a source reads (os-hypervisors, Placement's resource
providers) can miss hosts without saying so: Nova leaves out the compute
nodes of a cell that does not answer, a proxy can cut a page short, an
entry can be unreadable. Counting what they list would lower every number
without a word. So the nova-compute services are the census: each of
their hosts is in the snapshot, counted, excluded by its service state,
or unreadable with the reason (counted against [capacity]
max_unreadable_hosts_percent); and a census that cannot be read fails the
refresh, since then nothing says which hosts are missing.

At microversion 2.69 Nova lists the compute services of a cell that does
not answer with status UNKNOWN, from its host mappings
(nova.compute.api.HostAPI._service_get_all_cells); before, it leaves them
out as os-hypervisors does. The scheduler places nothing there either
(HostManager skips a cell it cannot read), so those hosts are unreadable:
excluded, and named.
"""

import dataclasses

from flavor_exporter._i18n import _
from flavor_exporter.capacity import model
from flavor_exporter.worker import openstack

# 2.69 (Stein): services of a cell that does not answer are listed (status
# UNKNOWN) instead of left out; 2.53 and later identify them by UUID and
# show forced_down (2.11).
SERVICE_MICROVERSION = '2.69'
PATH = '/os-services'


@dataclasses.dataclass(frozen=True)
class Service:
    """One nova-compute service as the scheduler weighs it.

    unknown: why its state cannot be known (its cell does not answer, or
    the entry says neither enabled nor disabled, up nor down), else None.
    """

    host: str
    enabled: bool = True
    up: bool = True
    unknown: str | None = None


def _service(entry):
    """A Service from one os-services entry; None when it is no compute."""
    if not isinstance(entry, dict) or not entry.get('host') or \
            not isinstance(entry['host'], str):
        raise openstack.CloudError(
            _('compute GET %(path)s: an entry names no host (%(entry).80r); '
              'the refresh needs every compute host it lists')
            % {'path': PATH, 'entry': entry}, status=200)
    if entry.get('binary', 'nova-compute') != 'nova-compute':
        return None
    host, status, state = entry['host'], entry.get('status'), \
        entry.get('state')
    if status == 'UNKNOWN':
        return Service(host, unknown=_(
            'its cell does not answer (Nova lists its compute service with '
            'status UNKNOWN); the scheduler cannot place there either'))
    if status not in ('enabled', 'disabled') or state not in ('up', 'down'):
        return Service(host, unknown=_(
            'its compute service state is unreadable (status %(status)r, '
            'state %(state)r)') % {'status': status, 'state': state})
    return Service(host, enabled=status == 'enabled',
                   up=state == 'up' and not entry.get('forced_down'))


def list_compute_services(client):
    """{service host: Service} of every nova-compute service.

    CloudError when the answer has no list of services or an entry names
    no host: the census must be whole.
    """
    body = client.get('compute', PATH, SERVICE_MICROVERSION,
                      {'binary': 'nova-compute'})
    entries = body.get('services') if isinstance(body, dict) else None
    if not isinstance(entries, list):
        raise openstack.CloudError(
            _('compute GET %s: no list of services in the answer') % PATH,
            status=200)
    services = {}
    for entry in entries:
        service = _service(entry)
        if service is not None:
            services[service.host] = service
    return services


def service_host(hypervisor):
    """The compute service host an os-hypervisors entry names, or None."""
    service = hypervisor.get('service') if isinstance(
        hypervisor, dict) else None
    host = service.get('host') if isinstance(service, dict) else None
    return host if isinstance(host, str) and host else None


def running_vms(hypervisor):
    """The instances a node holds as the scheduler counts them.

    os-hypervisors reports the node's num_instances stat as running_vms
    up to microversion 2.87; 0 where it says nothing usable.
    """
    value = hypervisor.get('running_vms')
    return value if isinstance(value, int) and value > 0 else 0


def _count(hypervisor, key):
    value = hypervisor.get(key)
    return value if isinstance(value, int) and \
        not isinstance(value, bool) else None


def scheduler_figures(hypervisor):
    """The model.SchedulerFigures of an os-hypervisors entry, or None.

    Up to microversion 2.87 an entry shows what the scheduler weighs;
    None when it does not (a later microversion, or figures missing).
    """
    found = {key: _count(hypervisor, key) for key in (
        'free_ram_mb', 'free_disk_gb', 'vcpus', 'vcpus_used',
        'current_workload')}
    if any(value is None for value in found.values()):
        return None
    return model.SchedulerFigures(
        free_ram_mb=found['free_ram_mb'],
        free_disk_gb=found['free_disk_gb'],
        disk_available_least=_count(hypervisor, 'disk_available_least'),
        vcpus=found['vcpus'], vcpus_used=found['vcpus_used'],
        io_ops=found['current_workload'],
        hypervisor_version=_count(hypervisor, 'hypervisor_version'))


def state(service, hypervisor_status, hypervisor_state):
    """(enabled, up) of a node whose service is service (or None).

    The scheduler weighs the compute service; a hypervisor embeds the
    state of the same service, which stands in when the list lacks the
    host (a service registered between the two calls).
    """
    if service is None:
        return hypervisor_status == 'enabled', hypervisor_state == 'up'
    return service.enabled, service.up


def account(hosts, services, problems, nameless=0):
    """hosts, plus one for each service host that has none; problems named.

    hosts: the model.Host of each node the source listed, with its service
    state and, when the source could not read the node, why (unreadable).
    services: list_compute_services. nameless: how many listing entries
    named no compute service host (each already a problem line). One
    problem line per host that is not counted for want of data.

    A host the scheduler would not consider anyway (its service disabled
    or down) is excluded for that, not counted as unreadable: no number
    depends on what could not be read of it.

    CloudError when more entries name no host than there are service
    hosts without a node: one of them is then a further node of a host
    that has others (Ironic), which would be counted short without a word.
    """
    listed = {host.name for host in hosts}
    unlisted = set(services) - listed
    if nameless > len(unlisted):
        raise openstack.CloudError(
            _('compute GET /os-hypervisors/detail: %(count)d entries name '
              'no compute service host, and only %(hosts)d compute service '
              'host(s) lack a node; which host they belong to is unknown')
            % {'count': nameless, 'hosts': len(unlisted)}, status=200)
    for name in sorted(unlisted):
        service = services[name]
        hosts.append(model.Host(
            name=name, node=name, enabled=service.enabled, up=service.up,
            unreadable=_('os-hypervisors lists no compute node of its '
                         'compute service (a cell that did not answer, a '
                         'listing cut short or unreadable, or a service '
                         'with no node)')))
    for host in hosts:
        service = services.get(host.name)
        if service is not None and service.unknown:
            host.unreadable = service.unknown
        if host.unreadable is None:
            continue
        host.providers = []
        if not (service is not None and service.unknown) and not (
                host.enabled and host.up):
            # Its exclusion (service disabled or down) is in every
            # document already; a line per refresh for each long-dead
            # service would bury the lines that matter.
            host.unreadable = None
            continue
        label = (_('compute service host %s') % host.name
                 if host.name in unlisted else
                 _('hypervisor %(node)s (host %(host)s)')
                 % {'node': host.node, 'host': host.name})
        problems.append(_('%(host)s: unreadable, excluded from every '
                          'flavor: %(why)s')
                        % {'host': label, 'why': host.unreadable})
    return hosts
