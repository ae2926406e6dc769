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
"""nova.conf's own options, pasted into flavor-exporter's configuration.

Several [capacity] and [quota] options mirror nova.conf, since the
numbers depend on how the cloud's Nova is configured. An operator who
pastes nova.conf's sections instead ([scheduler], [filter_scheduler],
[compute], [oslo_limit], [workarounds], [metrics]) would believe them
honoured; they
are not: flavor-exporter reads its own groups only, so that one option
never has two homes. advice() names, for each pasted line that says
otherwise than flavor-exporter's option, the option to set.
"""

from flavor_exporter._i18n import _

#: (nova.conf section, option) -> (flavor-exporter group, option).
MIRRORED = {
    ('scheduler', 'enable_isolated_aggregate_filtering'):
        ('capacity', 'enable_isolated_aggregate_filtering'),
    ('scheduler', 'limit_tenants_to_placement_aggregate'):
        ('capacity', 'limit_tenants_to_placement_aggregate'),
    ('scheduler', 'placement_aggregate_required_for_tenants'):
        ('capacity', 'placement_aggregate_required_for_tenants'),
    ('filter_scheduler', 'max_instances_per_host'):
        ('capacity', 'max_instances_per_host'),
    ('compute', 'packing_host_numa_cells_allocation_strategy'):
        ('capacity', 'packing_host_numa_cells_allocation_strategy'),
    ('oslo_limit', 'endpoint_id'): ('quota', 'endpoint_id'),
    ('oslo_limit', 'endpoint_region_name'):
        ('quota', 'endpoint_region_name'),
    ('workarounds', 'unified_limits_count_pcpu_as_vcpu'):
        ('quota', 'unified_limits_count_pcpu_as_vcpu'),
    ('metrics', 'weight_multiplier'):
        ('weighers', 'metrics_weight_multiplier'),
    ('metrics', 'weight_setting'): ('weighers', 'metrics_weight_setting'),
    ('scheduler', 'max_placement_results'):
        ('weighers', 'max_placement_results'),
}
# The weighers' options keep their names in [weighers] (conf/checks.py).
MIRRORED.update({('filter_scheduler', name): ('weighers', name) for name in (
    'weight_classes', 'host_subset_size', 'shuffle_best_same_weighed_hosts',
    'ram_weight_multiplier', 'cpu_weight_multiplier',
    'disk_weight_multiplier', 'io_ops_weight_multiplier',
    'pci_weight_multiplier', 'soft_affinity_weight_multiplier',
    'soft_anti_affinity_weight_multiplier',
    'build_failure_weight_multiplier',
    'hypervisor_version_weight_multiplier',
    'num_instances_weight_multiplier', 'image_props_weight_multiplier',
    'cross_cell_move_weight_multiplier')})
#: Filters of [filter_scheduler] enabled_filters -> the [capacity] option
#: that says whether the cloud runs them.
FILTERS = {
    'AggregateMultiTenancyIsolation': 'aggregate_multitenancy_isolation',
    'AggregateInstanceExtraSpecsFilter': 'aggregate_instance_extra_specs',
    'NumInstancesFilter': 'num_instances_filter',
    'AggregateNumInstancesFilter': 'aggregate_num_instances_filter',
    'NUMATopologyFilter': 'numa_topology_filter',
    'AggregateTypeAffinityFilter': 'aggregate_type_affinity_filter',
    'MetricsFilter': 'metrics_filter',
}


def _same(value, ours):
    """Whether nova.conf's raw value says what our option holds."""
    if isinstance(ours, bool):
        return value.strip().lower() in (('true', '1', 'yes', 'on')
                                         if ours else
                                         ('false', '0', 'no', 'off'))
    if isinstance(ours, list):
        return [v.strip() for v in value.split(',') if v.strip()] == ours
    if isinstance(ours, (int, float)):
        try:
            return float(value) == ours
        except ValueError:
            return False
    return value.strip() == ('' if ours is None else str(ours))


def advice(conf, path, section, options):
    """One line per pasted option flavor-exporter reads elsewhere.

    options: {option: [raw values]} of section in the file path, as
    config_check.read() gives them. Lines only where the value differs
    from what flavor-exporter's own option holds: those would silently
    not apply.
    """
    lines = []
    for option, values in sorted(options.items()):
        value = values[-1]
        if section == 'filter_scheduler' and option == 'enabled_filters':
            listed = {name.strip() for name in value.split(',')}
            for name, ours in sorted(FILTERS.items()):
                wanted = name in listed
                if conf.capacity[ours] != wanted:
                    lines.append(_(
                        '%(file)s: [filter_scheduler] enabled_filters is '
                        "nova.conf's, which flavor-exporter does not read; "
                        'it %(lists)s %(filter)s: set [capacity] %(ours)s = '
                        '%(wanted)s') % {
                            'file': path, 'filter': name, 'ours': ours,
                            'lists': 'lists' if wanted else 'lacks',
                            'wanted': str(wanted).lower()})
            continue
        mirrored = MIRRORED.get((section, option))
        if mirrored is None:
            continue
        group, name = mirrored
        ours = conf[group][name]
        if not _same(value, ours):
            lines.append(_(
                "%(file)s: [%(section)s] %(option)s is nova.conf's, which "
                'flavor-exporter does not read; set [%(group)s] %(name)s = '
                '%(value)s (now %(ours)s)') % {
                    'file': path, 'section': section, 'option': option,
                    'group': group, 'name': name, 'value': value,
                    'ours': ours})
    return lines
