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
"""/healthcheck: oslo.middleware's healthcheck, plus the data's freshness.

An API process that answers but serves no data, or data older than
``[api] stale_after``, is not healthy for a load balancer or a monitor,
so the ``flavor_exporter_data`` healthcheck plugin (registered in
setup.cfg) is always enabled, before the ``[healthcheck] backends`` an
operator lists.

Data that excludes unreadable hosts (see [capacity]
max_unreadable_hosts_percent) is served with a 200 whose reason starts
with DEGRADED: oslo.middleware knows only available or not, and a 503
would make a load balancer drop every API process over one compute host,
serving nothing instead of numbers that say they are partial. For the
same reason, with several clouds ([DEFAULT] clouds) one cloud's stale or
missing data makes the answer DEGRADED; only when no cloud serves data
is it a 503.
"""

import importlib.metadata

from oslo_middleware import healthcheck
from oslo_middleware.healthcheck import opts
from oslo_middleware.healthcheck import pluginbase

from flavor_exporter.publication import contract as pub

NAMESPACE = healthcheck.Healthcheck.NAMESPACE
PLUGIN = 'flavor_exporter_data'
# How the middleware hands the published data to the plugin it instantiates.
DATA_KEY = 'flavor_exporter_published'
DEGRADED = 'DEGRADED: '


class DataFreshnessCheck(pluginbase.HealthcheckBaseExtension):
    """Healthy while data younger than [api] stale_after is served.

    With several clouds, healthy while any cloud's is: one region whose
    worker fails must not take the API of the others off a load
    balancer. The others' trouble makes the answer DEGRADED.
    """

    def __init__(self, oslo_conf, conf):
        super().__init__(oslo_conf, conf)
        self._data = conf[DATA_KEY]

    def healthcheck(self, server_port):
        results = [(name, cloud_health(self._data.probe(name)))
                   for name in self._data.names()]
        if len(results) == 1:
            return results[0][1]
        troubled = [(name, result) for name, result in results
                    if result.reason != 'OK']
        details = '; '.join(
            'cloud %s: %s%s' % (
                name, result.reason,
                ' (%s)' % result.details if result.details else '')
            for name, result in results)
        if not troubled:
            return pluginbase.HealthcheckResult(
                available=True, reason='OK', details=details)
        available = any(result.available for _, result in results)
        reason = '; '.join(
            'cloud %s: %s' % (name, result.reason.replace(DEGRADED, ''))
            for name, result in troubled)
        return pluginbase.HealthcheckResult(
            available=available,
            reason=DEGRADED + reason if available else reason,
            details=details)


def cloud_health(view):
    """The HealthcheckResult of one cloud's data (a generations.View)."""
    if view.generation is None and not view.trouble:
        return pluginbase.HealthcheckResult(
            available=False, reason='No capacity data published yet')
    if view.generation is None:
        return pluginbase.HealthcheckResult(
            available=False, reason='Capacity data unreadable',
            details=view.trouble)
    age = 'unknown' if view.age is None else '%.0f s' % view.age
    if view.stale:
        return pluginbase.HealthcheckResult(
            available=False, reason='Capacity data is stale',
            details='age %s; %s' % (age, view.trouble or
                                    'older than [api] stale_after'))
    unreadable = view.generation.pointer.get(pub.UNREADABLE_COUNT)
    if unreadable:
        return pluginbase.HealthcheckResult(
            available=True,
            reason=DEGRADED + 'capacity data is partial, %d host(s) '
            'unreadable' % unreadable,
            details='data age %s; the hosts are excluded from every '
            'flavor and named in unreadable_hosts of /v3/status and '
            'the v3 documents' % age)
    return pluginbase.HealthcheckResult(
        available=True, reason='OK', details='data age %s' % age)


def middleware(conf, data):
    """The healthcheck WSGI app, configured by [healthcheck] in conf.

    data: the process's published.Published. conf must be the global CONF:
    oslo.middleware reads its options from there when given a dict, and
    the dict is the only way to hand the data to the plugin.
    """
    # stevedore only logs a plugin it cannot find; a healthcheck that
    # silently stopped checking the data would always say OK.
    if not importlib.metadata.entry_points(group=NAMESPACE, name=PLUGIN):
        raise RuntimeError(
            'The %s healthcheck plugin is not registered: install the '
            'flavor-exporter package (pip install -e . in a checkout) so '
            'that its entry points exist.' % PLUGIN)
    conf.register_opts(opts.HEALTHCHECK_OPTS, group='healthcheck')
    backends = [PLUGIN] + [b for b in conf.healthcheck.backends
                           if b != PLUGIN]
    return healthcheck.Healthcheck(None, {'backends': backends,
                                          DATA_KEY: data})
