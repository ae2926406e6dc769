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

"""The legacy capacity source: os-hypervisors plus GPU host aggregates.

This is what the predecessor service read, with its bugs fixed: ratios and
reservations are configurable, hosts are matched by their compute service
host (not by the first label of the hypervisor name), and disabled or down
hosts are left out. It needs compute microversion 2.87, the last one whose
os-hypervisors carries resource figures.
"""

import math

from flavor_exporter._i18n import _
from flavor_exporter.capacity import model
from flavor_exporter.worker import census
from flavor_exporter.worker import nova
from flavor_exporter.worker import source

HYPERVISOR_MICROVERSION = '2.87'
# All that os-hypervisors reports: a flavor asking for any other class
# (VGPU, PCPU, custom classes) cannot be counted from this source.
OBSERVABLE = frozenset(['VCPU', 'MEMORY_MB', 'DISK_GB'])


class HypervisorsSource(source.Source):
    name = 'hypervisors'

    def _root_provider(self, hypervisor):
        """Placement-style inventories from Nova's resource tracker view."""
        options = self._conf.capacity
        vcpus = int(hypervisor['vcpus'])
        memory_mb = int(hypervisor['memory_mb'])
        local_gb = int(hypervisor['local_gb'])
        reserved_mb = options.reserved_host_memory_mb
        reserved_gb = math.ceil(options.reserved_host_disk_mb / 1024)
        inventories = {
            'VCPU': model.Inventory(
                total=vcpus, reserved=options.reserved_host_cpus,
                max_unit=vcpus,
                allocation_ratio=options.cpu_allocation_ratio),
            'MEMORY_MB': model.Inventory(
                total=memory_mb, reserved=reserved_mb, max_unit=memory_mb,
                allocation_ratio=options.ram_allocation_ratio),
            'DISK_GB': model.Inventory(
                total=local_gb, reserved=reserved_gb, max_unit=local_gb,
                allocation_ratio=options.disk_allocation_ratio),
        }
        # Nova's used figures include the host reservation; Placement's
        # usages do not.
        usages = {
            'VCPU': int(hypervisor['vcpus_used']),
            'MEMORY_MB': max(0, int(hypervisor['memory_mb_used'])
                             - reserved_mb),
            'DISK_GB': max(0, int(hypervisor['local_gb_used'])
                           - reserved_gb),
        }
        return model.Provider(uuid=str(hypervisor['id']),
                              name=hypervisor['hypervisor_hostname'],
                              inventories={rc: inv for rc, inv
                                           in inventories.items()
                                           if inv.total > 0},
                              usages=usages)

    def collect(self, client, scope=None, hosts=None):
        problems = []
        calls_before = client.call_count
        flavors = self._list_flavors(client, problems)
        hypervisors = client.get_all('compute', '/os-hypervisors/detail',
                                     'hypervisors', HYPERVISOR_MICROVERSION)
        services = census.list_compute_services(client)
        aggregates = nova.list_aggregates(client)
        usage = {}
        if any('gpu' in agg.metadata for agg, _ in aggregates):
            usage = nova.gpu_usage_by_host(client, problems)
        pools = nova.gpu_pools_by_host(aggregates, problems, usage)

        hosts, nameless = [], 0
        for hypervisor in hypervisors:
            host = self._host(hypervisor, services, problems)
            if host is None:
                nameless += 1
                continue
            host.gpu_pools = pools.get(host.name, [])
            hosts.append(host)
        census.account(hosts, services, problems, nameless)

        nova.assign_aggregates(
            hosts, aggregates, {host.name for host in hosts},
            self._conf.capacity.default_availability_zone, problems)

        self._warn(problems)
        return model.Snapshot(source=self.name, flavors=flavors,
                              hosts=sorted(hosts, key=lambda h: h.node),
                              problems=problems,
                              api_calls=client.call_count - calls_before,
                              observable=OBSERVABLE,
                              aggregates=[agg for agg, _ in aggregates])

    def _host(self, hypervisor, services, problems):
        """The model.Host of one hypervisor entry.

        None, and a problem line, when the entry names no compute service
        host: census.account then finds the host it lacks.
        """
        service_host = census.service_host(hypervisor)
        if service_host is None:
            problems.append(_('hypervisor entry %.120r names no compute '
                              'service host, skipped') % (hypervisor,))
            return None
        label = hypervisor.get('hypervisor_hostname') or service_host
        providers, unreadable = [], None
        try:
            providers = [self._root_provider(hypervisor)]
        except (KeyError, TypeError, ValueError) as exc:
            # Excluded and named rather than left out: leaving it out
            # would lower every count without a word.
            unreadable = (_('no usable resource figures in its '
                            'os-hypervisors entry (%s)') % exc)
        enabled, up = census.state(
            services.get(service_host), hypervisor.get('status'),
            hypervisor.get('state'))
        return model.Host(name=service_host, node=label, enabled=enabled,
                          up=up, providers=providers, unreadable=unreadable,
                          num_instances=census.running_vms(hypervisor),
                          figures=census.scheduler_figures(hypervisor))
