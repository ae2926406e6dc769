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
"""[quota]: how the cloud's Nova enforces quotas, as its nova.conf says.

The option names and values are nova.conf's ([quota] and [oslo_limit]),
so that an operator copies the lines; they decide how a project's quota
headroom is counted (capacity/quota/quota.py, worker/quotas.py).
"""

from oslo_config import cfg

quota_group = cfg.OptGroup(
    'quota', title='Quota options (as in nova.conf)',
    help="Copy these from the cloud's nova.conf: how many instances of a "
         "flavor a project may still start depends on them.")

DB_DRIVER = 'nova.quota.DbQuotaDriver'
UNIFIED_DRIVER = 'nova.quota.UnifiedLimitsDriver'
NOOP_DRIVER = 'nova.quota.NoopQuotaDriver'

opts = [
    cfg.StrOpt('driver', default=DB_DRIVER,
               choices=[(DB_DRIVER, 'Limits and usage from Nova '
                         '(os-quota-sets), as Nova counts them.'),
                        (UNIFIED_DRIVER, 'Keystone unified limits '
                         '(registered and project limits), usage from '
                         'Placement.'),
                        (NOOP_DRIVER, 'No quota: every project is '
                         'unlimited.')],
               help="nova.conf's [quota] driver."),
    cfg.BoolOpt('count_usage_from_placement', default=False,
                help="nova.conf's [quota] count_usage_from_placement: "
                     "cores and ram in use are Placement's VCPU + PCPU and "
                     "MEMORY_MB allocations of the project instead of the "
                     "flavors of its instances. Nova's os-quota-sets "
                     "reports usage counted this way already; the option "
                     "says how much each further instance adds."),
    cfg.StrOpt('unified_limits_resource_strategy', default='require',
               choices=['require', 'ignore'],
               help="nova.conf's [quota] unified_limits_resource_strategy "
                    "(Nova 31, 2025.1, and later): whether a resource "
                    "without a registered limit is refused (require, if "
                    "listed) or unlimited."),
    cfg.ListOpt('unified_limits_resource_list', default=['servers'],
                help="nova.conf's [quota] unified_limits_resource_list."),
    cfg.BoolOpt('unified_limits_count_pcpu_as_vcpu', default=False,
                help="nova.conf's [workarounds] "
                     "unified_limits_count_pcpu_as_vcpu: PCPU usage counts "
                     "against class:VCPU for flavors that do not ask for "
                     "PCPU."),
    cfg.StrOpt('endpoint_id',
               help="nova.conf's [oslo_limit] endpoint_id: the Keystone "
                    "endpoint whose service and region the unified limits "
                    "belong to. Unset: the compute service of the catalog "
                    "(and endpoint_region_name, if set)."),
    cfg.StrOpt('endpoint_region_name',
               help="nova.conf's [oslo_limit] endpoint_region_name, when "
                    "endpoint_id is not set."),
]


def register_opts(conf):
    conf.register_group(quota_group)
    conf.register_opts(opts, group=quota_group)


def list_opts():
    return {quota_group: opts}
