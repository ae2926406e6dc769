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
"""A project's quota, read as the cloud's Nova counts it.

Nova's legacy quotas: one call, ``GET /os-quota-sets/{project}/detail``,
which reports each limit and the usage Nova counts for it (in cells, or
from Placement with [quota] count_usage_from_placement: the API counts
it the way the quota check does).

Unified limits: the same call for ``servers`` in use (Nova counts the
project's instance mappings, which no other API shows), the project's
usage from Placement (``GET /usages?project_id=`` at 1.38, one entry per
consumer type, summed as Nova sums them), and its limits from Keystone
(``GET /v3/limits?project_id=``). The registered limits and the
service they belong to are read once and kept for [projects] max_age.
"""

import time

from oslo_log import log

from flavor_exporter.capacity.quota import quota as quota_mod
from flavor_exporter.conf import quota as quota_conf
from flavor_exporter.worker import openstack

LOG = log.getLogger(__name__)


class ProjectUnknown(Exception):
    """Nova (through Keystone) says the project does not exist."""


class QuotaUnreadable(Exception):
    """An answer lacks what Nova counts: never read as unlimited."""


QUOTA_MICROVERSION = '2.57'
# 1.38: usages per consumer type (INSTANCE, MIGRATION, unknown).
USAGES_MICROVERSION = '1.38'
_RELEASES = ('2024.1', '2024.2', '2025.1', '2025.2', '2026.1', '2026.2')


def rules(conf):
    """The quota.UnifiedRules of [quota] and [capacity] nova_release."""
    release = _RELEASES.index(conf.capacity.nova_release)
    return quota_mod.UnifiedRules(
        should_enforce=release >= _RELEASES.index('2025.1'),
        pci_in_deltas=release >= _RELEASES.index('2026.2'),
        strategy=conf.quota.unified_limits_resource_strategy,
        resource_list=tuple(conf.quota.unified_limits_resource_list),
        count_pcpu_as_vcpu=conf.quota.unified_limits_count_pcpu_as_vcpu)


def system(conf):
    return {quota_conf.DB_DRIVER: quota_mod.DB,
            quota_conf.UNIFIED_DRIVER: quota_mod.UNIFIED,
            quota_conf.NOOP_DRIVER: quota_mod.NOOP}[conf.quota.driver]


def counting(conf):
    """The quota.Counting that [quota] and [capacity] describe."""
    return quota_mod.Counting(system(conf), rules(conf),
                              conf.quota.count_usage_from_placement)


def _quota_set(client, project_id):
    """Nova's quota set of a project, every legacy quota in it.

    Nova checks the project id with Keystone first and answers 400 "not
    a valid project" when Keystone does not know it.
    """
    path = '/os-quota-sets/%s/detail' % project_id
    try:
        body = client.get('compute', path, QUOTA_MICROVERSION)
    except openstack.CloudError as exc:
        if exc.status == 400 and 'not a valid project' in str(exc):
            raise ProjectUnknown('Nova and Keystone know no project %s'
                                 % project_id) from exc
        raise
    quota_set = body.get('quota_set') if isinstance(body, dict) else None
    for name in quota_mod.LEGACY:
        entry = (quota_set or {}).get(name)
        if not isinstance(entry, dict) or not all(
                isinstance(entry.get(k), int) for k in ('limit', 'in_use')):
            raise QuotaUnreadable(
                'compute GET %s: no %s limit and usage in the answer (Nova '
                'always reports them)' % (path, name))
    return quota_set


def _listed(body, key, what):
    """The list body[key] of an answer; QuotaUnreadable when absent."""
    found = body.get(key) if isinstance(body, dict) else None
    if not isinstance(found, list):
        raise QuotaUnreadable('identity GET %s: no %r list in the answer'
                              % (what, key))
    return found


def placement_usage(body):
    """{class:RC: amount} of a /usages answer, any microversion."""
    usages = body.get('usages') if isinstance(body, dict) else None
    if not isinstance(usages, dict):
        raise QuotaUnreadable('placement GET /usages: no usages in the '
                              'answer')
    found = {}
    for key, value in usages.items():
        if isinstance(value, dict):
            # 1.38: {consumer type: {"consumer_count": n, RC: amount}}.
            for rc, amount in value.items():
                if rc != 'consumer_count':
                    found[quota_mod.CLASS + rc] = (
                        found.get(quota_mod.CLASS + rc, 0) + amount)
        else:
            found[quota_mod.CLASS + key] = found.get(
                quota_mod.CLASS + key, 0) + value
    return found


class QuotaReader:
    """Reads projects' quotas of one cloud; keeps what all projects share."""

    def __init__(self, conf, clock=time.time):
        self._conf = conf
        self._clock = clock
        self._system = system(conf)
        self._rules = rules(conf)
        self._service = None  # (service id, region id or None)
        self._registered = None
        self._registered_at = float('-inf')

    def read(self, client, project_id):
        """The quota.ProjectQuota of project_id; CloudError if unreadable."""
        now = self._clock()
        if self._system == quota_mod.NOOP:
            return quota_mod.ProjectQuota(quota_mod.NOOP, read_at=now)
        quota_set = _quota_set(client, project_id)
        if self._system == quota_mod.DB:
            return quota_mod.ProjectQuota(
                quota_mod.DB,
                limits={name: quota_set[name]['limit']
                        for name in quota_mod.LEGACY},
                in_use={name: quota_set[name]['in_use']
                        for name in quota_mod.LEGACY},
                count_usage_from_placement=(
                    self._conf.quota.count_usage_from_placement),
                read_at=now, group_members=(quota_set.get(
                    quota_mod.GROUP_MEMBERS) or {}).get('limit'))
        in_use = placement_usage(client.get(
            'placement', '/usages', USAGES_MICROVERSION,
            params={'project_id': project_id}))
        in_use[quota_mod.SERVERS] = int(quota_set['instances']['in_use'])
        service, region = self._service_of(client)
        params = {'project_id': project_id, 'service_id': service}
        if region:
            params['region_id'] = region
        limits = {item['resource_name']: int(item['resource_limit'])
                  for item in _listed(client.get('identity', '/limits',
                                                 params=params),
                                      'limits', '/limits')}
        return quota_mod.ProjectQuota(
            quota_mod.UNIFIED, limits=limits, in_use=in_use,
            registered=self._registered_limits(client, service, region),
            rules=self._rules, read_at=now)

    def _registered_limits(self, client, service, region):
        if self._clock() - self._registered_at > \
                self._conf.projects.max_age:
            params = {'service_id': service}
            if region:
                params['region_id'] = region
            body = client.get('identity', '/registered_limits',
                              params=params)
            self._registered = {
                item['resource_name']: int(item['default_limit'])
                for item in _listed(body, 'registered_limits',
                                    '/registered_limits')}
            self._registered_at = self._clock()
        return self._registered

    def _service_of(self, client):
        """Nova's service (and region) in Keystone, as oslo.limit finds it."""
        if self._service is None:
            options = self._conf.quota
            if options.endpoint_id:
                endpoint = client.get(
                    'identity', '/endpoints/%s' % options.endpoint_id)
                endpoint = endpoint['endpoint']
                self._service = (endpoint['service_id'],
                                 endpoint.get('region_id'))
            else:
                services = client.get('identity', '/services',
                                      params={'type': 'compute'})
                found = services.get('services', [])
                if len(found) != 1:
                    raise LookupError(
                        'Keystone has %d compute services; set [quota] '
                        'endpoint_id as in nova.conf\'s [oslo_limit]'
                        % len(found))
                self._service = (found[0]['id'],
                                 options.endpoint_region_name)
        return self._service
