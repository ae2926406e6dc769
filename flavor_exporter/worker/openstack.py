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
"""The worker's only door to the cloud.

Every call goes through CloudClient so that it is counted, paginated the
same way, bounded in concurrency and turned into one exception type with a
message an operator can act on.
"""

import collections
import concurrent.futures
import threading
import urllib.parse

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
import openstack
from oslo_log import log
import requests

from flavor_exporter._i18n import _
from flavor_exporter.conf import openstack as openstack_conf
from flavor_exporter.worker import direct_get
from flavor_exporter.worker import get_process
from flavor_exporter.worker import lean_session

LOG = log.getLogger(__name__)


class CloudError(Exception):
    """A call to the cloud failed; the refresh that made it is abandoned.

    status: the HTTP status the cloud answered with (200 too, for an
    answer that is not JSON or not of the shape asked for), None when the
    call got no answer.
    """

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


def settle_environment(connection):
    """Make connection's HTTP calls lean (lean_session.LeanSession).

    keystoneauth builds the requests session (with its TCP keep-alive
    adapters); its state moves into a LeanSession.
    """
    ks_session = connection.session
    current = ks_session.session
    if isinstance(current, lean_session.LeanSession):
        return connection
    settled = lean_session.LeanSession()
    for name in requests.Session.__attrs__:
        if name != 'trust_env':
            setattr(settled, name, getattr(current, name))
    ks_session.session = settled
    return connection


def connect(conf, group=openstack_conf.GROUP):
    """An openstacksdk Connection from group, or clouds.yaml/OS_*.

    group: [openstack], or the [cloud:NAME] of one of several clouds.
    """
    return settle_environment(_connect(conf, group))


def _connect(conf, group):
    options = conf[group]
    if options.auth_type:
        auth = ks_loading.load_auth_from_conf_options(conf, group)
        # api_timeout bounds every call here too (Keystone's included), as
        # it does through clouds.yaml; keystoneauth's own [openstack]
        # timeout, when set, wins. Without it a cloud that stops answering
        # would hang the worker for good.
        timeout = (options.timeout if options.timeout is not None
                   else options.api_timeout)
        session = ks_loading.load_session_from_conf_options(
            conf, group, auth=auth, timeout=timeout)
        return openstack.connection.Connection(
            session=session,
            region_name=options.region_name,
            interface=options.interface,
            app_name='flavor-exporter')
    kwargs = {'api_timeout': options.api_timeout,
              'interface': options.interface}
    if options.region_name:
        kwargs['region_name'] = options.region_name
    return openstack.connect(cloud=options.cloud,
                             app_name='flavor-exporter', **kwargs)


def _describe(exc, group):
    """exc's message, with what to check when the credentials were refused.

    group: the option group the credentials came from.
    """
    if isinstance(exc, ks_exc.Unauthorized):
        return (_('%(error)s; Keystone refused the credentials: check them '
                  'in [%(group)s], or in clouds.yaml or the OS_* variables')
                % {'error': exc, 'group': group})
    return str(exc)


def _next_marker(body, key):
    """Marker of the next page from Nova's "<key>_links", or None."""
    for link in body.get(key + '_links') or ():
        if link.get('rel') == 'next':
            query = urllib.parse.urlparse(link['href']).query
            markers = urllib.parse.parse_qs(query).get('marker')
            if markers:
                return markers[0]
    return None


class CloudClient:
    """Counted, paginated, concurrency-bounded GETs against one cloud."""

    def __init__(self, connection, max_concurrency=8, page_size=1000,
                 group=openstack_conf.GROUP):
        """group: the option group of the connection, for messages."""
        self._connection = connection
        self._group = group
        self._max_concurrency = max_concurrency
        self._page_size = page_size
        self._lock = threading.Lock()
        self.calls = collections.Counter()
        # service -> direct_get.DirectLane (None: the usual path only),
        # made after the service's first answer.
        self._lanes = {}
        self._pools = None
        #: CPU seconds of the get_process children of get_many, summed.
        self.child_cpu_seconds = 0.0

    @classmethod
    def from_conf(cls, conf, group=openstack_conf.GROUP):
        options = conf[group]
        return cls(connect(conf, group),
                   max_concurrency=options.max_concurrency,
                   page_size=options.page_size, group=group)

    def has_service(self, service_type):
        """Whether the catalog (or an endpoint override) has the service.

        CloudError when the catalog cannot be read at all (credentials
        refused, Keystone unreachable): that is no answer, and must not
        make ``[capacity] source = auto`` settle on another source.
        """
        try:
            return bool(self._connection.endpoint_for(service_type))
        except (ks_exc.EndpointNotFound, LookupError) as exc:
            LOG.debug('No %s endpoint: %s', service_type, exc)
            return False
        except (ks_exc.DiscoveryFailure, ks_exc.ConnectFailure) as exc:
            # The catalog comes with the token: what failed is Keystone.
            raise CloudError(
                _('Could not authenticate: Keystone does not answer at '
                  '%(url)s') % {'url': self._auth_url()}) from exc
        except (ks_exc.ClientException,
                openstack.exceptions.SDKException) as exc:
            raise CloudError(
                _('Could not read the service catalog (looking for '
                  '%(service)s): %(error)s')
                % {'service': service_type,
                   'error': _describe(exc, self._group)}
            ) from exc

    def _auth_url(self):
        auth = getattr(self._connection.session, 'auth', None)
        return getattr(auth, 'auth_url', None) or _('its auth_url')

    @property
    def call_count(self):
        return sum(self.calls.values())

    def get(self, service, path, microversion=None, params=None):
        """GET one JSON document; CloudError on any failure."""
        with self._lock:
            self.calls[service] += 1
            lane = self._lanes.get(service)
        try:
            response = None
            if lane is not None:
                response = lane.get(path, microversion, params)
            if response is None:
                response = self._sdk_get(service, path, microversion, params)
        except (ks_exc.ClientException,
                openstack.exceptions.SDKException) as exc:
            raise CloudError(
                _('%(service)s GET %(path)s failed: %(error)s')
                % {'service': service, 'path': path,
                   'error': _describe(exc, self._group)}) from exc
        return self._read(service, path, response)

    def _read(self, service, path, response):
        """The JSON body of an answer; CloudError unless a good one."""
        if response.status_code >= 400:
            raise CloudError(
                _('%(service)s GET %(path)s answered %(status)s: %(body)s')
                % {'service': service, 'path': path,
                   'status': response.status_code,
                   'body': response.text[:300]},
                status=response.status_code)
        try:
            return response.json()
        except ValueError as exc:
            raise CloudError(
                _('%(service)s GET %(path)s answered with invalid JSON: '
                  '%(error)s')
                % {'service': service, 'path': path, 'error': exc},
                status=response.status_code) from exc

    def _sdk_get(self, service, path, microversion, params):
        """GET through openstacksdk; a DirectLane follows a first answer."""
        # The first use of a proxy authenticates and discovers the
        # service's versions: its failures are this call's.
        proxy = getattr(self._connection, service)
        response = proxy.get(path, params=params, microversion=microversion,
                             raise_exc=False)
        if response.status_code < 300 and service not in self._lanes:
            with self._lock:
                if service not in self._lanes:
                    if self._pools is None:
                        self._pools = direct_get.pool_manager(
                            self._connection.session, self._max_concurrency)
                    self._lanes[service] = direct_get.DirectLane.after(
                        service, proxy, response, self._connection.session,
                        self._pools)
        return response

    def get_all(self, service, path, key, microversion=None, params=None):
        """Every item of a Nova list call, following its pagination."""
        params = dict(params or {}, limit=self._page_size)
        items = []
        while True:
            body = self.get(service, path, microversion, params)
            page = body.get(key) if isinstance(body, dict) else None
            if not isinstance(page, list):
                # Read as an empty page, it would drop every item of the
                # listing without a word.
                raise CloudError(
                    _('%(service)s GET %(path)s: no %(key)r list in the '
                      'answer') % {'service': service, 'path': path,
                                   'key': key}, status=200)
            items.extend(page)
            marker = _next_marker(body, key)
            if not marker or not page:
                return items
            params['marker'] = marker

    def get_many(self, service, paths, microversion=None):
        """Each path's JSON body, or the CloudError its GET failed with.

        In the order of paths; at most max_concurrency calls at once. A
        large batch of a service with a direct lane is shared with a
        second process (get_process), which sends a share of the GETs on
        the other core; what it could not send, the usual path sends.
        ProcessFailed (a CloudError without a status) if it died.
        """
        paths = list(paths)
        lane = self._lanes.get(service)
        count, threads = (get_process.child_share(
            len(paths), self._max_concurrency) if lane else (0, 0))
        share = None
        if count:
            share = get_process.start(
                lane.batch_spec(microversion),
                [lane.url(path) for path in paths[:count]], threads, LOG)
        if share is None:
            count, threads = 0, 0

        def get(path):
            try:
                return self.get(service, path, microversion)
            except CloudError as exc:
                return exc

        try:
            own = self.map(get, paths[count:],
                           self._max_concurrency - threads)
        finally:
            # Waited for even when the parent's share failed: no child
            # is left running behind a refresh.
            answers = self._answers_of(share)
        with self._lock:
            self.calls[service] += count
        got = []
        for path, answer in zip(paths[:count], answers):
            if answer is None:  # the usual path's to send
                got.append(get(path))
                continue
            try:
                got.append(self._read(service, path,
                                      direct_get.Answer(*answer)))
            except CloudError as exc:
                got.append(exc)
        return got + own

    def _answers_of(self, share):
        if share is None:
            return []
        try:
            answers = share.answers()
        except get_process.ProcessFailed as exc:
            raise CloudError(str(exc)) from exc
        finally:
            with self._lock:
                self.child_cpu_seconds += share.cpu_seconds
        return answers

    def map(self, function, items, concurrency=None):
        """function(item) for each item, at most max_concurrency at once.

        concurrency: at most so many at once instead (a bound below
        max_concurrency), if given. The first exception is raised once all
        calls have ended, so that a failed refresh leaves no calls running
        behind it.
        """
        items = list(items)
        concurrency = concurrency or self._max_concurrency
        if len(items) <= 1 or concurrency == 1:
            return [function(item) for item in items]
        with concurrent.futures.ThreadPoolExecutor(
                max_workers=min(concurrency, len(items)),
                thread_name_prefix='cloud-call') as pool:
            futures = [pool.submit(function, item) for item in items]
        return [future.result() for future in futures]
