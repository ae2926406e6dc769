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
"""Which worker refreshes: the holder of a tooz lock.

Every worker tries to take the lock each [coordination] check_interval;
the one holding it refreshes, tooz's heartbeat renews its lease, and when
it stops (or is killed, and its lease runs out) another takes over. A
leader paused past its lease can resume believing it still leads until
its next check: publishing is fenced for that (see
publication/publisher.py), so its late result is dropped, never served.

When the coordination backend cannot be reached every worker refreshes:
the cloud is read once per worker instead of once, but the published data
stays fresh, and right thanks to the fencing.
"""

import importlib.metadata
import os
import socket
from urllib import parse
import uuid

from oslo_log import log
import tooz
from tooz import coordination

from flavor_exporter._i18n import _
from flavor_exporter.common import clouds
from flavor_exporter.common import exceptions

LOG = log.getLogger(__name__)


def backend_url(conf):
    """[coordination] backend_url, or memcached on the first cache server."""
    return conf.coordination.backend_url or (
        'memcached://%s' % conf.document_cache.memcache_servers[0].strip())


# Where tooz finds its drivers: one entry point per URL scheme.
DRIVERS = 'tooz.backends'


def tooz_drivers():
    """{URL scheme: the entry point of tooz's driver for it}."""
    return {entry.name: entry for entry in
            importlib.metadata.entry_points(group=DRIVERS)}


def check_backend_url(conf):
    """exceptions.InvalidOption unless tooz can use [coordination] backend_url.

    Commands call it before they start: tooz only looks the driver up
    when the worker first joins, and a worker that cannot join retries
    every [coordination] check_interval, logging, for ever.
    """
    if conf.document_cache.backend == 'memory' or \
            not conf.coordination.backend_url:
        return
    url = conf.coordination.backend_url
    where = conf.get_location('backend_url', 'coordination').detail or _(
        'configuration')
    scheme = parse.urlsplit(url).scheme
    drivers = tooz_drivers()
    if scheme not in drivers:
        raise exceptions.InvalidOption(_(
            '%(where)s: [coordination] backend_url %(url)r: tooz has no '
            '%(scheme)r driver; use one of %(known)s (for example '
            'redis://HOST:6379), or remove the option to coordinate '
            'through memcached') % {
                'where': where, 'url': url, 'scheme': scheme,
                'known': ', '.join(sorted(drivers))})
    try:
        drivers[scheme].load()
    except ImportError as exc:
        raise exceptions.InvalidOption(_(
            '%(where)s: [coordination] backend_url %(url)r: tooz\'s '
            '%(scheme)s driver needs the Python package %(module)s; '
            'install it where flavor-exporter runs') % {
                'where': where, 'url': url, 'scheme': scheme,
                'module': exc.name or exc}) from None


class Leadership:
    """Whether this worker is the one that refreshes."""

    def __init__(self, url, name, log_prefix=''):
        self._url = url
        self._log_prefix = log_prefix
        self._name = name.encode('utf-8')
        self._member = ('%s-%d-%s' % (socket.gethostname(), os.getpid(),
                                      uuid.uuid4().hex[:8])).encode('utf-8')
        self._coordinator = None
        self._lock = None
        self._held = False
        self._trouble = None

    @classmethod
    def from_conf(cls, conf, cloud=None):
        """The leadership of cloud's refreshes (a clouds.Cloud).

        cloud: by default the single (or default) one.
        """
        cloud = cloud or clouds.default(conf)
        if conf.document_cache.backend == 'memory':
            # flavor-exporter-all with the process's memory: one worker.
            return Alone()
        return cls(backend_url(conf),
                   'flavor-exporter-refresh-%s' % cloud.key_prefix,
                   cloud.log_prefix)

    def _start(self):
        coordinator = coordination.get_coordinator(self._url, self._member)
        coordinator.start(start_heart=True)
        self._coordinator = coordinator
        self._lock = coordinator.get_lock(self._name)

    @property
    def certain(self):
        """Whether the last leads() knew, not assumed it for want of tooz."""
        return self._trouble is None

    def leads(self):
        """True when this worker should refresh now."""
        try:
            if self._coordinator is None:
                self._start()
            leads = self._check()
        except tooz.ToozError as exc:
            if self._trouble is None:
                LOG.warning('The coordination backend %s is unreachable '
                            '(%s); refreshing anyway until it answers: '
                            'each worker reads the cloud, the published '
                            'data stays right', self._url, exc)
            self._trouble = exc
            return True
        if self._trouble is not None:
            LOG.info('The coordination backend %s answers again', self._url)
            self._trouble = None
        return leads

    def _check(self):
        if self._held:
            try:
                if self._lock.is_still_owner():
                    return True
            except tooz.NotImplemented:
                # This driver's heartbeat fails loudly instead.
                return True
            LOG.warning('%sThis worker lost the leadership (its lease ran '
                        'out, was it paused?); another worker refreshes',
                        self._log_prefix)
            self._held = False
            try:
                self._lock.release()
            except tooz.ToozError:
                LOG.debug('Releasing the lost lock failed', exc_info=True)
        if self._lock.acquire(blocking=False):
            self._held = True
            LOG.info('%sThis worker now leads: it refreshes the capacity '
                     'data', self._log_prefix)
        return self._held

    def stop(self):
        """Hand the leadership over at once (not after the lease)."""
        if self._coordinator is None:
            return
        try:
            if self._held:
                self._lock.release()
            self._coordinator.stop()
        except tooz.ToozError as exc:
            LOG.info('Leaving the coordination backend: %s', exc)
        self._coordinator = None
        self._held = False


class Alone:
    """One worker in one process: it always leads."""

    certain = True

    def leads(self):
        return True

    def stop(self):
        pass
