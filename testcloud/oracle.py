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

"""The oracle: how many servers of a flavor does Nova really start?

Boot servers of a flavor one at a time until one ends in ERROR with
"No valid host was found"; the number of ACTIVE servers before it is the
capacity flavor-exporter must report as ``available``. The servers are
deleted afterwards, and the oracle waits until Placement has released
their allocations, so the next measurement starts from the same cloud.

Everything goes through the REST API with an admin openstacksdk
Connection; nothing here imports Nova.
"""

import collections
import re
import time
import uuid

from openstack import exceptions as sdk_exc

#: The Glance stand-in image the test cloud preloads.
IMAGE_ID = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
NO_VALID_HOST = 'No valid host was found'
#: 2.74 lets an admin name a host and still run the scheduler's filters;
#: 'networks: none' needs 2.37.
MICROVERSION = '2.74'
POLL = 0.05
#: No boot finishes sooner; polling meanwhile would only take CPU from the
#: cloud, which shares one GIL with its API.
FIRST_POLL = 0.25
#: Polls back off from POLL to this. Each GET costs the cloud about 17 ms
#: of CPU; a boot on a quiet machine settles within a few polls, but with
#: the tests of two releases on 2 cores it takes seconds, and polling at
#: POLL all along would ask for as much CPU as the boot itself.
MAX_POLL = 0.25
# Generous: a loaded 2-core machine builds slowly, and a timeout here
# fails a whole oracle test.
BOOT_TIMEOUT = 180
DEFAULT_LIMIT = 200
# Nova's generated flavor ids; names are looked up.
_ID_PATTERN = re.compile(r'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
                         r'[0-9a-f]{12}$')


class OracleError(AssertionError):
    """The cloud did something the oracle cannot count on."""


class OracleResult(object):
    """What one fill found.

    ``count`` ACTIVE servers; ``hosts`` a Counter of the compute service
    hosts they ran on; ``servers`` the ACTIVE servers if they were kept.
    """

    def __init__(self, active, keep):
        self.count = len(active)
        self.hosts = collections.Counter(
            s['OS-EXT-SRV-ATTR:host'] for s in active)
        self.servers = active if keep else []

    def __repr__(self):
        return 'OracleResult(count=%d, hosts=%s)' % (self.count,
                                                     dict(self.hosts))


def _pauses():
    """Sleeps between polls: POLL, then half as long again each time."""
    pause = POLL
    while True:
        yield pause
        pause = min(MAX_POLL, pause * 1.5)


def flavor_id(conn, flavor):
    """Resolve a flavor name or id, private flavors included."""
    if not isinstance(flavor, str):
        return flavor.id
    if _ID_PATTERN.match(flavor):
        return flavor
    flavors = conn.compute.get('/flavors?is_public=None',
                               microversion=MICROVERSION).json()['flavors']
    for item in flavors:
        if flavor in (item['id'], item['name']):
            return item['id']
    raise OracleError('no flavor %r' % flavor)


def _get(conn, server_id):
    resp = conn.compute.get('/servers/%s' % server_id,
                            microversion=MICROVERSION)
    if resp.status_code == 404:
        return None
    sdk_exc.raise_from_response(resp)
    return resp.json()['server']


def boot(conn, flavor, *, host=None, name=None, timeout=BOOT_TIMEOUT,
         availability_zone=None):
    """Boot one server; return it (a dict) once ACTIVE or ERROR."""
    body = {'name': name or 'oracle-%s' % uuid.uuid4().hex[:8],
            'imageRef': IMAGE_ID, 'flavorRef': flavor_id(conn, flavor),
            'networks': 'none'}
    if host:
        body['host'] = host
    if availability_zone:
        body['availability_zone'] = availability_zone
    resp = conn.compute.post('/servers', json={'server': body},
                             microversion=MICROVERSION)
    sdk_exc.raise_from_response(resp)
    return _settled(conn, resp.json()['server']['id'], timeout)


def _settled(conn, server_id, timeout=BOOT_TIMEOUT):
    """The server (a dict) once ACTIVE or ERROR."""
    deadline = time.monotonic() + timeout
    time.sleep(FIRST_POLL)
    pauses = _pauses()
    while time.monotonic() < deadline:
        server = _get(conn, server_id)
        # Nova saves the ERROR state a moment before the fault that says
        # why: wait for the fault too.
        if server and (server['status'] == 'ACTIVE'
                       or (server['status'] == 'ERROR' and _fault(server))):
            return server
        time.sleep(next(pauses))
    raise OracleError('server %s neither ACTIVE nor ERROR after %ss'
                      % (server_id, timeout))


def _fault(server):
    return (server.get('fault') or {}).get('message', '')


def boot_servers(conn, flavor, count, *, host=None):
    """Boot ``count`` servers that must all become ACTIVE; return them.

    For scenarios that need usage. On failure the servers booted so far
    are deleted again.
    """
    fid = flavor_id(conn, flavor)
    servers = []
    try:
        for _ in range(count):
            server = boot(conn, fid, host=host)
            servers.append(server)
            if server['status'] != 'ACTIVE':
                raise OracleError('server %d of %d failed: %s' % (
                    len(servers), count, _fault(server)))
    except Exception:
        delete_servers(conn, servers)
        raise
    return servers


def _allocations(conn, server_id):
    resp = conn.placement.get('/allocations/%s' % server_id)
    sdk_exc.raise_from_response(resp)
    return resp.json()['allocations']


def delete_servers(conn, servers, *, timeout=BOOT_TIMEOUT):
    """Delete servers; return when they and their allocations are gone."""
    ids = [s['id'] for s in servers]
    for server_id in ids:
        resp = conn.compute.delete('/servers/%s' % server_id,
                                   microversion=MICROVERSION)
        if resp.status_code != 404:
            sdk_exc.raise_from_response(resp)
    deadline = time.monotonic() + timeout
    pending = list(ids)
    pauses = _pauses()
    while pending:
        if time.monotonic() > deadline:
            raise OracleError('servers not deleted in %ss: %s'
                              % (timeout, pending))
        # A server gone with its allocations stays gone: a poll asks about
        # the first still pending, and about the next only once it is gone
        # (not twice for every server at every poll).
        while pending and _get(conn, pending[0]) is None and not (
                _allocations(conn, pending[0])):
            pending.pop(0)
        if pending:
            time.sleep(next(pauses))


def fill(conn, flavor, *, limit=DEFAULT_LIMIT, keep=False,
         availability_zone=None):
    """Boot ``flavor`` until NoValidHost; return an :class:`OracleResult`.

    Servers are deleted afterwards unless ``keep``; then the caller gets
    the ACTIVE ones as ``result.servers`` and must delete them. With
    availability_zone, each boot asks for that zone; a zone Nova does not
    offer (400) is 0 servers.
    """
    fid = flavor_id(conn, flavor)
    created = []
    active = []
    try:
        while True:
            if len(active) >= limit:
                raise OracleError('%d servers of %s booted and still no '
                                  'NoValidHost' % (limit, flavor))
            try:
                server = boot(conn, fid,
                              availability_zone=availability_zone)
            except sdk_exc.BadRequestException:
                if availability_zone is None:
                    raise
                break  # "The requested availability zone is not available"
            created.append(server)
            if server['status'] == 'ERROR':
                if NO_VALID_HOST not in _fault(server):
                    raise OracleError('server failed for another reason '
                                      'than capacity: %s' % _fault(server))
                break
            active.append(server)
    except BaseException:
        delete_servers(conn, created)
        raise
    delete_servers(conn, created[len(active):] if keep else created)
    return OracleResult(active, keep)


def boot_until_no_valid_host(conn, flavor, *, limit=DEFAULT_LIMIT,
                             availability_zone=None):
    """The number of servers of ``flavor`` Nova starts before NoValidHost.

    Every server created is deleted again before this returns.
    """
    return fill(conn, flavor, limit=limit,
                availability_zone=availability_zone).count


QUOTA_EXCEEDED = 'Quota exceeded'
#: How Nova's unified limits driver says it (nova.limit).
OVER_A_LIMIT = 'is over a limit'


def all_servers(conn):
    """Every server of every project, SOFT_DELETED ones too (dicts).

    Nova lists those only when deleted ones are asked for; until they are
    reclaimed they hold what they had.
    """
    servers = []
    for query in ('', '&deleted=true&status=SOFT_DELETED'):
        resp = conn.compute.get('/servers/detail?all_tenants=1' + query,
                                microversion=MICROVERSION)
        sdk_exc.raise_from_response(resp)
        servers += resp.json()['servers']
    return servers


def disable_compute(conn, host, reason='oracle'):
    """Disable host's nova-compute service through Nova's API."""
    resp = conn.compute.get('/os-services?binary=nova-compute&host=%s'
                            % host, microversion='2.53')
    sdk_exc.raise_from_response(resp)
    for service in resp.json()['services']:
        sdk_exc.raise_from_response(conn.compute.put(
            '/os-services/%s' % service['id'],
            json={'status': 'disabled', 'disabled_reason': reason},
            microversion='2.53'))


def as_project(conn, project_id, user='member'):
    """A Connection to conn's cloud as a member of project_id.

    Without Keystone the cloud's stub auth takes the token user:project.
    """
    from openstack import connection

    return connection.Connection(
        auth_type='admin_token',
        auth={'endpoint': conn.compute.get_endpoint(),
              'token': '%s:%s' % (user, project_id)},
        compute_endpoint_override=conn.compute.get_endpoint(),
        placement_endpoint_override=conn.placement.get_endpoint(),
        region_name='RegionOne')


def set_quota(conn, project_id, **limits):
    """Set a project's Nova quotas (os-quota-sets), as an admin does."""
    resp = conn.compute.put('/os-quota-sets/%s' % project_id,
                            json={'quota_set': limits},
                            microversion=MICROVERSION)
    sdk_exc.raise_from_response(resp)


def boot_until_refused(conn, flavor, admin, *, limit=DEFAULT_LIMIT):
    """(servers started, why the next was refused) booting as conn.

    Refused: 403 "Quota exceeded" (or, with unified limits, "is over a
    limit") from the API, or NoValidHost. Every
    server created is deleted again (by admin, who may read Placement's
    allocations) before this returns.
    """
    fid = flavor_id(conn, flavor)
    created = []
    why = None
    try:
        while why is None:
            if len(created) >= limit:
                raise OracleError('%d servers of %s and no refusal'
                                  % (limit, flavor))
            try:
                server = boot(conn, fid)
            except sdk_exc.HttpException as exc:
                if exc.status_code != 403 or not (
                        QUOTA_EXCEEDED in str(exc)
                        or OVER_A_LIMIT in str(exc)):
                    raise
                why = 'quota'
                break
            created.append(server)
            if server['status'] == 'ERROR':
                if NO_VALID_HOST not in _fault(server):
                    raise OracleError('server failed for another reason '
                                      'than capacity: %s' % _fault(server))
                why = 'no valid host'
    finally:
        delete_servers(admin, created)
    active = len(created) - (1 if why == 'no valid host' else 0)
    return active, why


#: server groups with rules (max_server_per_host) need 2.64.
GROUP_MICROVERSION = '2.64'


class SetResult(object):
    """What booting a set in order did: per request, the hosts started.

    ``started``: one list of compute service hosts per request tried, in
    order (a multi-create's in the order Nova made its servers);
    ``refused``: None when every request started whole, else (index of
    the request refused, why: 'quota', 'no valid host' or 'bad request').
    """

    def __init__(self, started, refused):
        self.started = started
        self.refused = refused

    def __repr__(self):
        return 'SetResult(started=%s, refused=%s)' % (
            self.started, self.refused)


def create_group(conn, policy, max_server_per_host=None):
    """A new server group of conn's project; its id."""
    body = {'name': 'oracle-%s' % uuid.uuid4().hex[:8], 'policy': policy}
    if max_server_per_host:
        body['rules'] = {'max_server_per_host': max_server_per_host}
    resp = conn.compute.post('/os-server-groups',
                             json={'server_group': body},
                             microversion=GROUP_MICROVERSION)
    sdk_exc.raise_from_response(resp)
    return resp.json()['server_group']['id']


def delete_group(conn, group_id):
    resp = conn.compute.delete('/os-server-groups/%s' % group_id,
                               microversion=GROUP_MICROVERSION)
    if resp.status_code != 404:
        sdk_exc.raise_from_response(resp)


def _create(conn, admin, flavor_id, *, availability_zone, group_id,
            count=None, min_count=None):
    """POST /servers as conn; the server ids, or raise HttpException.

    count and min_count: a multi-create (max_count, min_count).
    """
    body = {'name': 'oracle-%s' % uuid.uuid4().hex[:8],
            'imageRef': IMAGE_ID, 'flavorRef': flavor_id,
            'networks': 'none'}
    if availability_zone:
        body['availability_zone'] = availability_zone
    if min_count is not None:
        body.update(min_count=min_count, max_count=count,
                    return_reservation_id=True)
    request = {'server': body}
    if group_id:
        request['os:scheduler_hints'] = {'group': group_id}
    resp = conn.compute.post('/servers', json=request,
                             microversion=MICROVERSION)
    sdk_exc.raise_from_response(resp)
    answer = resp.json()
    if 'reservation_id' not in answer:
        return [answer['server']['id']]
    deadline = time.monotonic() + BOOT_TIMEOUT
    pauses = _pauses()
    while True:
        listed = admin.compute.get(
            '/servers?all_tenants=1&reservation_id=%s'
            % answer['reservation_id'], microversion=MICROVERSION)
        sdk_exc.raise_from_response(listed)
        ids = [s['id'] for s in listed.json()['servers']]
        if len(ids) >= min_count or time.monotonic() > deadline:
            return ids
        time.sleep(next(pauses))


def boot_set(conn, admin, requests, *, availability_zone=None,
             group=None):
    """Boot requests in order as conn, until Nova refuses one.

    requests: (flavor, count, min_count) each; min_count None boots count
    servers one request after the other, else one multi-create request.
    group: (policy, max_server_per_host) of a new server group all join.
    Returns a SetResult; every server (and the group) is deleted again,
    by admin, before this returns.
    """
    created = []
    started = []
    refused = None
    group_id = create_group(conn, *group) if group else None
    try:
        for index, (flavor, count, min_count) in enumerate(requests):
            fid = flavor_id(admin, flavor)
            hosts = []
            started.append(hosts)
            batches = [(count, min_count)] if min_count else [(None, None)
                                                              ] * count
            for batch_count, batch_min in batches:
                try:
                    ids = _create(conn, admin, fid,
                                  availability_zone=availability_zone,
                                  group_id=group_id, count=batch_count,
                                  min_count=batch_min)
                except sdk_exc.HttpException as exc:
                    if exc.status_code == 403:
                        refused = (index, 'quota')
                    elif exc.status_code == 400:
                        refused = (index, 'bad request')
                    else:
                        raise
                    break
                servers = [_settled(admin, i) for i in ids]
                created += servers
                if any(s['status'] == 'ERROR' for s in servers):
                    faults = {_fault(s) for s in servers
                              if s['status'] == 'ERROR'}
                    if not all(NO_VALID_HOST in f for f in faults):
                        raise OracleError('servers failed for another '
                                          'reason than capacity: %s'
                                          % faults)
                    refused = (index, 'no valid host')
                    break
                hosts += [s['OS-EXT-SRV-ATTR:host'] for s in servers]
            if refused:
                break
    finally:
        delete_servers(admin, created)
        if group_id:
            delete_group(admin, group_id)
    return SetResult(started, refused)
