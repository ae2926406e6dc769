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
"""Each kind of change Nova makes, and what the served API says after it.

For the freshness test (flavor_exporter/tests/functional/
test_freshness.py) and benchmark (tools/bench/freshness.py), on the
disabled_host scenario: three hosts, host-3's service disabled, flavor
small 2 per host (so 4 available). A round does, one at a time through
Nova's REST API: a new flavor, a boot on host-1, a resize to host-2 and
its confirmation, a cold migration back to host-1 and its confirmation,
a delete, host-1's service disabled and enabled again, host-1 added to
a zone aggregate and removed from it. It leaves the cloud as it found
it. Each Change says when Nova finished (the moment a client polling
Nova every POLL seconds sees it: the server's new status, a 404, or the
answer to a synchronous call) and what /v3/flavors/{name} must answer
then: the numbers Nova's own placement gives in this scenario (comments
say why). watch() polls the served API until it answers so.

Nothing here imports Nova or flavor-exporter.
"""

import collections
import json
import time
import urllib.error
import urllib.request
import uuid

from openstack import exceptions as sdk_exc

from testcloud import oracle

SCENARIO = 'disabled_host'
SMALL = 'small'
# A flavor of a whole host's memory (8704 MB - 512 reserved): a host that
# runs one runs no small.
WIDE = {'vcpus': 4, 'ram': 8192, 'disk': 20}
SERVICES_MICROVERSION = '2.53'
# Nova is polled this often for the end of an action: its end is seen at
# most this late (the latencies are that much short, at most).
POLL = 0.02
TIMEOUT = 180
# The kinds of change, in the order of a round.
KINDS = ('new flavor', 'boot', 'resize', 'resize confirm', 'migrate',
         'migrate confirm', 'delete', 'service disable', 'service enable',
         'aggregate add', 'aggregate remove')

Change = collections.namedtuple('Change', 'kind done expect what')
Change.__doc__ = """One change Nova made.

done: time.monotonic() when a client saw Nova finish it; expect: a
function of an Api, true once the API serves the change; what: for
messages.
"""


class Api:
    """The served API on loopback: a new connection per request.

    With several API processes on one port, each request may go to
    another one, as a portal's poller behind a load balancer does.
    """

    def __init__(self, port):
        self.port = port

    def flavor(self, name):
        """The /v3/flavors/{name} flavor (a dict), None when 404."""
        url = 'http://127.0.0.1:%d/v3/flavors/%s' % (self.port, name)
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return json.loads(response.read())['flavor']
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return None
            raise


def per_host(flavor):
    """{host: available} of a flavor's per-host rows."""
    return {row['host']: row['available'] for row in flavor['hosts']}


def small_is(available, hosts=None, zone=None):
    """An expectation: small's available, per host and in a zone."""
    def expect(api):
        small = api.flavor(SMALL)
        if small is None or small['available'] != available:
            return False
        if hosts is not None and any(
                per_host(small).get(host) != count
                for host, count in hosts.items()):
            return False
        if zone is not None:
            name, count = zone
            zones = small['availability_zones']
            if count is None:
                # No host left in it: gone, or at 0 while Nova lists it.
                return not zones.get(name, {}).get('available')
            return zones.get(name, {}).get('available') == count
        return True
    return expect


class Changes:
    """Makes the changes of a round on the cloud conn (admin) reaches."""

    def __init__(self, conn):
        self.conn = conn

    def _call(self, method, path, microversion=oracle.MICROVERSION,
              **kwargs):
        resp = getattr(self.conn.compute, method)(
            path, microversion=microversion, **kwargs)
        sdk_exc.raise_from_response(resp)
        return resp

    def _until(self, server_id, done, what):
        """Poll the server until done(server or None); the moment."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            server = oracle._get(self.conn, server_id)
            if done(server):
                return time.monotonic()
            if server and server['status'] == 'ERROR':
                raise oracle.OracleError('%s: server in ERROR: %s' % (
                    what, server.get('fault')))
            if time.monotonic() > deadline:
                raise oracle.OracleError('%s not done in %ss' % (what,
                                                                 TIMEOUT))
            time.sleep(POLL)

    def _status(self, server_id, status, what):
        return self._until(server_id, lambda s: s and
                           s['status'] == status, what)

    def _action(self, server_id, body):
        self._call('post', '/servers/%s/action' % server_id, json=body)

    def _service(self, host, status):
        service = self._call(
            'get', '/os-services?binary=nova-compute&host=%s' % host,
            microversion=SERVICES_MICROVERSION).json()['services'][0]
        self._call('put', '/os-services/%s' % service['id'],
                   json={'status': status},
                   microversion=SERVICES_MICROVERSION)
        return time.monotonic()

    def round(self):
        """The changes of one round, each made when the caller asks.

        Yields (kind, make): make() makes the change and returns its
        Change. Make each before asking for the next.
        """
        tag = uuid.uuid4().hex[:6]
        wide_name = 'wide-%s' % tag
        zone = 'az-%s' % tag
        state = {}

        def new_flavor():
            flavor = self.conn.compute.create_flavor(name=wide_name, **WIDE)
            done = time.monotonic()
            state['flavor'] = flavor

            def expect(api):
                # One per enabled host (host-3 is disabled).
                wide = api.flavor(wide_name)
                return wide is not None and wide['available'] == 2
            return Change('new flavor', done, expect, wide_name)

        def boot():
            resp = self._call('post', '/servers', json={'server': {
                'name': 'fresh-%s' % tag, 'imageRef': oracle.IMAGE_ID,
                'flavorRef': oracle.flavor_id(self.conn, SMALL),
                'networks': 'none', 'host': 'host-1'}})
            server_id = resp.json()['server']['id']
            state['server'] = server_id
            done = self._status(server_id, 'ACTIVE', 'boot')
            return Change('boot', done, small_is(
                3, {'host-1': 1, 'host-2': 2}), 'boot on host-1')

        def resize():
            self._action(state['server'],
                         {'resize': {'flavorRef': state['flavor'].id}})
            done = self._status(state['server'], 'VERIFY_RESIZE', 'resize')
            # Not on its own host: to host-2, which wide fills; host-1
            # keeps small's resources until the confirmation.
            return Change('resize', done, small_is(
                1, {'host-1': 1, 'host-2': 0}), 'resize to host-2')

        def confirm(kind, available, hosts):
            def make():
                self._action(state['server'], {'confirmResize': None})
                done = self._status(state['server'], 'ACTIVE', kind)
                return Change(kind, done, small_is(available, hosts), kind)
            return make

        def migrate():
            self._action(state['server'], {'migrate': None})
            done = self._status(state['server'], 'VERIFY_RESIZE',
                                'migrate')
            # To host-1, the only other enabled host; both held.
            return Change('migrate', done, small_is(
                0, {'host-1': 0, 'host-2': 0}), 'migrate to host-1')

        def delete():
            self._call('delete', '/servers/%s' % state['server'])
            done = self._until(state['server'], lambda s: s is None,
                               'delete')
            return Change('delete', done, small_is(
                4, {'host-1': 2, 'host-2': 2}), 'delete')

        def service(status, available):
            def make():
                done = self._service('host-1', status)
                return Change('service %s' % status[:-1], done,
                              small_is(available),
                              'host-1 %s' % status)
            return make

        def aggregate_add():
            aggregate = self.conn.compute.create_aggregate(
                name=zone, availability_zone=zone)
            state['aggregate'] = aggregate
            # Its creation is a change of its own (nothing to serve yet):
            # the addition is measured after a quiet spell.
            time.sleep(self.quiet)
            self.conn.compute.add_host_to_aggregate(aggregate, 'host-1')
            done = time.monotonic()
            return Change('aggregate add', done,
                          small_is(4, zone=(zone, 2)), 'host-1 into ' + zone)

        def aggregate_remove():
            self.conn.compute.remove_host_from_aggregate(
                state['aggregate'], 'host-1')
            done = time.monotonic()
            return Change('aggregate remove', done,
                          small_is(4, zone=(zone, None)),
                          'host-1 out of ' + zone)

        yield 'new flavor', new_flavor
        yield 'boot', boot
        yield 'resize', resize
        # The source's small freed: host-1 2, host-2 still full.
        yield 'resize confirm', confirm('resize confirm', 2,
                                        {'host-1': 2, 'host-2': 0})
        yield 'migrate', migrate
        # Moved: host-1 full, host-2 free.
        yield 'migrate confirm', confirm('migrate confirm', 2,
                                         {'host-1': 0, 'host-2': 2})
        yield 'delete', delete
        yield 'service disable', service('disabled', 2)
        yield 'service enable', service('enabled', 4)
        yield 'aggregate add', aggregate_add
        yield 'aggregate remove', aggregate_remove
        # Back as it was: the aggregate and the flavor go (unmeasured),
        # two changes at once, refreshed settle apart: the next round's
        # first change waits until they are.
        self.conn.compute.delete_aggregate(state['aggregate'])
        self.conn.compute.delete_flavor(state['flavor'])
        time.sleep(2 * self.quiet)

    #: Seconds between two changes of a round, so that each is a lone one
    #: ([notifications] settle after the last refresh, and some margin).
    quiet = 1.5


def watch(api, change, poll=0.02, timeout=60):
    """Seconds from change.done to the API serving it; None if never.

    Polls the served API every poll seconds (each a new connection).
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if change.expect(api):
            return time.monotonic() - change.done
        time.sleep(poll)
    return None
