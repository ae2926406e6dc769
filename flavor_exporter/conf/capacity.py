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
from oslo_config import cfg

capacity_group = cfg.OptGroup(
    'capacity', title='Capacity options',
    help='How capacity is computed.')

opts = [
    cfg.StrOpt('source', default='auto',
               choices=[('auto', 'placement when the service catalog has a '
                         'placement endpoint, hypervisors otherwise.'),
                        ('placement', 'Resource providers, inventories, '
                         'usages and traits from Placement; works at any '
                         'compute microversion.'),
                        ('hypervisors', 'os-hypervisors at compute '
                         'microversion 2.87 plus GPU host aggregates, as '
                         'the predecessor service did.')],
               help='Where host capacity and usage come from.'),
    cfg.FloatOpt('cpu_allocation_ratio', default=4.0, min=0.0,
                 help='VCPU allocation ratio of the hypervisors source '
                      '(Placement reports its own).'),
    cfg.FloatOpt('ram_allocation_ratio', default=1.0, min=0.0,
                 help='MEMORY_MB allocation ratio of the hypervisors '
                      'source.'),
    cfg.FloatOpt('disk_allocation_ratio', default=1.0, min=0.0,
                 help='DISK_GB allocation ratio of the hypervisors '
                      'source.'),
    cfg.IntOpt('reserved_host_cpus', default=0, min=0,
               help='Host CPUs reserved for the host, hypervisors source.'),
    cfg.IntOpt('reserved_host_memory_mb', default=512, min=0,
               help='Host memory in MB reserved for the host, hypervisors '
                    'source. Nova counts it in memory_mb_used.'),
    cfg.IntOpt('reserved_host_disk_mb', default=0, min=0,
               help='Host disk in MB reserved for the host, hypervisors '
                    'source. Nova counts it in local_gb_used.'),
    cfg.StrOpt('default_availability_zone', default='nova',
               help='Availability zone of hosts in no availability zone '
                    'aggregate; keep it equal to nova.conf\'s [DEFAULT] '
                    'default_availability_zone.'),
    cfg.ListOpt('skip_flavor_patterns', default=['DEPRECATED'],
                help='Regular expressions; flavors whose name matches any '
                     'of them are left out of every document.'),
    cfg.BoolOpt('aggregate_instance_extra_specs', default=True,
                help='Match flavor extra specs against host aggregate '
                     'metadata as Nova\'s AggregateInstanceExtraSpecsFilter '
                     'does. Turn off when that filter is not enabled in '
                     'the Nova scheduler.'),
    cfg.BoolOpt('enable_isolated_aggregate_filtering', default=False,
                help='Keep nova.conf\'s [scheduler] '
                     'enable_isolated_aggregate_filtering here (Nova\'s '
                     'default is false too): when true, a host in an '
                     'aggregate with metadata trait:T=required counts only '
                     'for flavors requiring T, as Nova\'s isolate_aggregates '
                     'request filter has it.'),
    cfg.BoolOpt('aggregate_multitenancy_isolation', default=False,
                help="Whether nova.conf's [filter_scheduler] "
                     "enabled_filters has AggregateMultiTenancyIsolation: "
                     "a host in an aggregate with filter_tenant_id* "
                     "metadata takes only the projects named there. The "
                     "cloud-wide numbers then count such hosts apart "
                     "(reserved); per project they count for the projects "
                     "named."),
    cfg.BoolOpt('num_instances_filter', default=False,
                help="Whether nova.conf's [filter_scheduler] "
                     "enabled_filters has NumInstancesFilter: a host with "
                     "max_instances_per_host instances takes no more."),
    cfg.BoolOpt('aggregate_num_instances_filter', default=False,
                help="Whether nova.conf's [filter_scheduler] "
                     "enabled_filters has AggregateNumInstancesFilter: as "
                     "NumInstancesFilter, with the smallest "
                     "max_instances_per_host of the host's aggregates' "
                     "metadata where one has it."),
    cfg.IntOpt('max_instances_per_host', default=50, min=1,
               help="nova.conf's [filter_scheduler] max_instances_per_host, "
                    "for the two filters above."),
    cfg.BoolOpt('aggregate_type_affinity_filter', default=False,
                help="Whether nova.conf's [filter_scheduler] "
                     "enabled_filters has AggregateTypeAffinityFilter: a "
                     "host whose aggregates carry instance_type metadata "
                     "takes only the flavors named there."),
    cfg.BoolOpt('metrics_filter', default=False,
                help="Whether nova.conf's [filter_scheduler] "
                     "enabled_filters has MetricsFilter. The compute "
                     "nodes' metrics are not read, so every flavor then "
                     "says that hosts lacking them are counted."),
    cfg.StrOpt('default_schedule_zone',
               help="nova.conf's [DEFAULT] default_schedule_zone: where "
                    "Nova puts a server whose request names no zone. The "
                    "flavors' total and available count every zone; when "
                    "this is set each flavor says which of its "
                    "availability_zones figures such a request gets."),
    cfg.BoolOpt('numa_topology_filter', default=False,
                help="Whether nova.conf's [filter_scheduler] "
                     "enabled_filters has NUMATopologyFilter (not among "
                     "Nova's defaults; every cloud that pins CPUs or "
                     "offers huge pages runs it). With it, and the hosts' "
                     "NUMA cells read from [openstack] "
                     "cell_database_connections, flavors with a guest NUMA "
                     "topology are counted as the filter fits them."),
    cfg.BoolOpt('packing_host_numa_cells_allocation_strategy',
                default=False,
                help="nova.conf's [compute] "
                     "packing_host_numa_cells_allocation_strategy: which "
                     "host NUMA cells Nova tries first for a guest with "
                     "fewer cells than the host (the fullest when true)."),
    cfg.BoolOpt('limit_tenants_to_placement_aggregate', default=False,
                help="Keep nova.conf's [scheduler] "
                     "limit_tenants_to_placement_aggregate here: a project "
                     "named in an aggregate's filter_tenant_id* metadata "
                     "is placed only on the hosts of such aggregates "
                     "(require_tenant_aggregate)."),
    cfg.BoolOpt('placement_aggregate_required_for_tenants', default=False,
                help="Keep nova.conf's [scheduler] "
                     "placement_aggregate_required_for_tenants here: with "
                     "the option above, a project named in no aggregate "
                     "can start nothing."),
    cfg.IntOpt('max_unreadable_hosts_percent', default=10, min=0, max=100,
               help='A host whose resources the source could not read (an '
                    'error or an unusable answer for one of its resource '
                    'providers) is excluded from every flavor and named in '
                    'the documents, /v3/status and /metrics. When more '
                    'than this percentage of the hosts is unreadable, the '
                    'refresh fails instead: the last good data stays '
                    'published and becomes stale after [api] stale_after. '
                    '0 fails the refresh on any unreadable host.'),
    cfg.StrOpt('nova_release', default='2026.2',
               choices=['2024.1', '2024.2', '2025.1', '2025.2', '2026.1',
                        '2026.2'],
               help='The OpenStack release of the cloud\'s Nova, for '
                    'what no API shows: the keys AggregateMultiTenancy'
                    'Isolation reads (filter_tenant_id alone before '
                    '2024.2, every key starting with it since), whether '
                    'pinned guest memory may overcommit a host NUMA cell '
                    '(before 2024.2), and how unified limits are enforced '
                    '(missing and -1 limits before 2025.1; PCI alias '
                    'classes counted only from 2026.2).'),
]


def register_opts(conf):
    conf.register_group(capacity_group)
    conf.register_opts(opts, group=capacity_group)


def list_opts():
    return {capacity_group: opts}
