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
"""[tenant_isolation]: which of Nova's tenant filters the scheduler runs.

Hosts in aggregates with ``filter_tenant_id*`` metadata may be reserved
for the projects named there (capacity/tenancy.py). Whether they are
depends on nova.conf, which no API shows: mirror it here.
"""

from oslo_config import cfg

group = cfg.OptGroup(
    'tenant_isolation', title='Tenant isolation (as in nova.conf)',
    help="Which of Nova's filters keep projects to their aggregates.")

opts = [
    cfg.BoolOpt('aggregate_multitenancy_isolation', default=False,
                help="Whether nova.conf's [filter_scheduler] "
                     "enabled_filters has AggregateMultiTenancyIsolation: "
                     "a host in an aggregate with filter_tenant_id "
                     "metadata takes only the projects named there."),
    cfg.BoolOpt('limit_tenants_to_placement_aggregate', default=False,
                help="nova.conf's [scheduler] "
                     "limit_tenants_to_placement_aggregate: a project named "
                     "in an aggregate's filter_tenant_id* metadata is "
                     "placed only on the hosts of such aggregates."),
    cfg.BoolOpt('placement_aggregate_required_for_tenants', default=False,
                help="nova.conf's [scheduler] "
                     "placement_aggregate_required_for_tenants: with the "
                     "option above, a project named in no aggregate can "
                     "start nothing."),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return {group: opts}
