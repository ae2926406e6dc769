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
"""A fast fake of the Nova and Placement read APIs, on loopback only.

It serves a synthetic_cloud.Cloud with the routes and microversion fields
the worker (through openstacksdk) reads, so that collection at scale can
be measured without a real cloud of 10,000 hosts::

    python -m tools.bench.fakecloud --hosts 10000 --flavors 1000 \\
        --clouds-yaml /tmp/fake-clouds.yaml

then ``OS_CLIENT_CONFIG_FILE=/tmp/fake-clouds.yaml`` and ``[openstack]
cloud = fakecloud``. Keystone is not faked: the clouds.yaml uses
``admin_token`` auth with endpoint overrides, like the test cloud.
Answers take well under a millisecond of this server's time, so what is
measured is the client. ``POST /_fake/churn`` changes usages and some
generations as a busy cloud would between two refreshes; ``GET
/_fake/stats`` counts the requests by route (and the CPU time the fake
spent) since ``POST /_fake/reset-stats``. ``POST /_fake/boot`` takes a
server's resources on the next host with room and names it.

Only what the worker uses is implemented; anything else answers 404 (or
400 for an unsupported query), which a benchmark notices.

Nova's API and Placement's are two services in every deployment, each
with processes of its own, so one answers while the other is busy: the
fake serves Placement from a second process (forked once the cloud is
built, so each holds an equal copy) on a port of its own, which the
clouds.yaml names as the placement endpoint. A ``/_fake/`` control sent
to the Nova address is applied by both (churn and boot are
deterministic, so the copies stay equal), and the stats add up both
processes' counts and CPU. ``--one-process`` serves both from one event
loop, where a listing waits while the 8 MB allocation candidates answer
is built (as the fake did until 2026-12-06).
"""

import argparse
import asyncio
import collections
import itertools
import json
import multiprocessing
import os
import signal
import socket
import time
import urllib.parse

from tools.bench import synthetic_cloud

COMPUTE = '/compute/v2.1'
PLACEMENT = '/placement'
COMPUTE_MAX = '2.96'
PLACEMENT_MAX = '1.39'
REASONS = {200: 'OK', 400: 'Bad Request', 404: 'Not Found',
           405: 'Method Not Allowed', 406: 'Not Acceptable',
           409: 'Conflict'}


def _version(text):
    major, minor = text.split('.')
    return int(major), int(minor)


class HttpError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class FakeCloud:
    """The routes: (method, path, query, microversion) -> JSON."""

    def __init__(self, cloud):
        self.cloud = cloud
        self.base_url = None
        # Where Placement is served, when not at base_url.
        self.placement_base_url = None
        # A PlacementProcess serving the same cloud, which the controls
        # reach too.
        self.peer = None
        self.stats = collections.Counter()
        self._cpu_since = time.process_time()
        self._rendered = {}
        self._host_index = {h.uuid: i for i, h in enumerate(cloud.hosts)}
        self._flavor_index = {f['id']: i for i, f in
                              enumerate(cloud.flavors)}
        self._server_index = {s['id']: i for i, s in
                              enumerate(cloud.servers)}
        self._trees = collections.defaultdict(list)
        for provider in cloud.providers.values():
            self._trees[provider.root_uuid].append(provider)

    # -- dispatch ---------------------------------------------------------

    def handle(self, method, target, headers):
        """(status, body bytes, microversion header or None)."""
        parsed = urllib.parse.urlsplit(target)
        path = parsed.path.rstrip('/') or '/'
        query = urllib.parse.parse_qs(parsed.query, keep_blank_values=True)
        try:
            if path.startswith('/_fake/'):
                return 200, self._control(method, path[7:]), None
            if method != 'GET':
                raise HttpError(405, '%s is not faked' % method)
            if path == COMPUTE or path.startswith(COMPUTE + '/'):
                version = self._microversion(headers, 'compute', '2.1',
                                             COMPUTE_MAX)
                body = self._compute(path[len(COMPUTE):], query, version)
                return 200, body, 'compute %d.%d' % version
            if path == '/compute':
                return 200, self._json(self._compute_versions()), None
            if path == PLACEMENT or path.startswith(PLACEMENT + '/'):
                version = self._microversion(headers, 'placement', '1.0',
                                             PLACEMENT_MAX)
                body = self._placement(path[len(PLACEMENT):], query,
                                       version)
                return 200, body, 'placement %d.%d' % version
            raise HttpError(404, 'no route %s' % path)
        except HttpError as exc:
            self.stats['error %d' % exc.status] += 1
            return exc.status, self._json(
                {'errors': [{'status': exc.status, 'title': str(exc)}]}), None

    @staticmethod
    def _json(data):
        return json.dumps(data, separators=(',', ':')).encode()

    @staticmethod
    def _microversion(headers, service, minimum, maximum):
        value = None
        header = headers.get('openstack-api-version', '')
        for part in header.split(','):
            words = part.split()
            if len(words) == 2 and words[0].lower() == service:
                value = words[1]
        if value is None and service == 'compute':
            value = headers.get('x-openstack-nova-api-version')
        if not value:
            return _version(minimum)
        if value == 'latest':
            return _version(maximum)
        version = _version(value)
        if not _version(minimum) <= version <= _version(maximum):
            raise HttpError(406, 'version %s is not supported' % value)
        return version

    def _control(self, method, name):
        answer = self.control(method, name)
        if self.peer is not None:
            other = self.peer.control(method, name)
            if name == 'stats':
                both = collections.Counter(answer) + collections.Counter(
                    other)
                answer = dict(both, cpu_seconds=round(
                    answer['cpu_seconds'] + other['cpu_seconds'], 3))
        return self._json(answer)

    def control(self, method, name):
        """The answer (a dict) of one /_fake/ control, in this process."""
        self.stats['control'] += 1
        if method == 'POST' and name == 'churn':
            moved = self.cloud.churn()
            self._rendered.clear()
            return {'generations_moved': len(moved)}
        if method == 'POST' and name == 'boot':
            host = self._boot_somewhere()
            self._rendered.clear()
            return {'host': host.name, 'node': host.node}
        if method == 'GET' and name == 'stats':
            return dict(self.stats, cpu_seconds=round(
                time.process_time() - self._cpu_since, 3))
        if method == 'POST' and name == 'reset-stats':
            self.stats.clear()
            self._cpu_since = time.process_time()
            return {}
        raise HttpError(404, 'no control %s %s' % (method, name))

    def _boot_somewhere(self):
        """One server of 1 VCPU and 1 GB on the next host with room.

        What a notification benchmark boots before it says so: the
        usages of one root provider grow, nothing else changes.
        """
        hosts = self.cloud.hosts
        for _ in range(len(hosts)):
            self._next_boot = (getattr(self, '_next_boot', -1) + 1) % len(
                hosts)
            host = hosts[self._next_boot]
            root = self.cloud.providers[host.uuid]
            wanted = {'VCPU': 1, 'MEMORY_MB': 1024}
            if all(root.usages.get(rc, 0) + amount
                   <= synthetic_cloud.capacity(root.inventories[rc])
                   for rc, amount in wanted.items()):
                for rc, amount in wanted.items():
                    root.usages[rc] = root.usages.get(rc, 0) + amount
                return host
        raise HttpError(409, 'no host has room')

    # -- Nova ---------------------------------------------------------------

    def _compute_versions(self):
        return {'versions': [self._compute_version()]}

    def _compute_version(self):
        return {'id': 'v2.1', 'status': 'CURRENT', 'version': COMPUTE_MAX,
                'min_version': '2.1', 'updated': '2013-07-23T11:33:21Z',
                'links': [{'rel': 'self',
                           'href': self.base_url + COMPUTE + '/'}]}

    def _compute(self, path, query, version):
        if path == '':
            self.stats['compute version'] += 1
            return self._json({'version': self._compute_version()})
        if path.startswith('/flavors/') and path.endswith(
                '/os-flavor-access'):
            self.stats['compute /flavors/{id}/os-flavor-access'] += 1
            return self._json(self._flavor_access(path.split('/')[2]))
        route = {'/flavors/detail': self._flavors,
                 '/os-services': self._services,
                 '/os-aggregates': self._aggregates,
                 '/os-hypervisors/detail': self._hypervisors,
                 '/servers/detail': self._servers}.get(path)
        if route is None:
            raise HttpError(404, 'no compute route %s' % path)
        self.stats['compute ' + path] += 1
        return self._json(route(query, version))

    def _page(self, items, index, query, key, path):
        """Nova's limit/marker pagination with a <key>_links next link."""
        limit = int(query.get('limit', ['1000'])[0])
        start = 0
        if 'marker' in query:
            marker = query['marker'][0]
            if marker not in index:
                raise HttpError(400, 'marker %s not found' % marker)
            start = index[marker] + 1
        page = items[start:start + limit]
        body = {key: page}
        if len(page) == limit and start + limit < len(items):
            last = page[-1]['id']
            body[key + '_links'] = [{
                'rel': 'next',
                'href': '%s%s%s?limit=%d&marker=%s' % (
                    self.base_url, COMPUTE, path, limit, last)}]
        return body

    def _flavors(self, query, version):
        wanted = query.get('is_public', ['True'])[0].lower()
        flavors = self.cloud.flavors
        if wanted not in ('none', 'all'):
            public = wanted in ('true', '1', 'yes', 't')
            flavors = [f for f in flavors
                       if f['os-flavor-access:is_public'] == public]
        index = {f['id']: i for i, f in enumerate(flavors)}
        body = self._page(flavors, index, query, 'flavors',
                          '/flavors/detail')
        if version < (2, 61):
            body['flavors'] = [{k: v for k, v in f.items()
                                if k != 'extra_specs'}
                               for f in body['flavors']]
        return body

    def _flavor_access(self, flavor_id):
        if flavor_id not in self._flavor_index:
            raise HttpError(404, 'flavor %s not found' % flavor_id)
        if flavor_id not in self.cloud.access:
            # Nova: "Access list not available for public flavors."
            raise HttpError(404, 'flavor %s is public' % flavor_id)
        return {'flavor_access': [
            {'flavor_id': flavor_id, 'tenant_id': project}
            for project in self.cloud.access[flavor_id]]}

    def _services(self, query, version):
        binary = query.get('binary', [None])[0]
        services = []
        for host in self.cloud.hosts:
            if binary not in (None, 'nova-compute'):
                break
            services.append({
                'id': host.service_id, 'binary': 'nova-compute',
                'host': host.name, 'zone': host.zone,
                'status': 'enabled' if host.enabled else 'disabled',
                'state': 'up' if host.up else 'down',
                'forced_down': False, 'disabled_reason': None,
                'updated_at': '2026-12-01T09:00:00.000000'})
        return {'services': services}

    def _aggregates(self, query, version):
        return {'aggregates': [
            dict(agg, created_at='2026-01-01T00:00:00.000000',
                 updated_at=None, deleted_at=None, deleted=False)
            for agg in self.cloud.aggregates]}

    def _hypervisors(self, query, version):
        items = []
        for host in self.cloud.hosts:
            item = {'id': host.uuid, 'hypervisor_hostname': host.node,
                    'hypervisor_type': 'QEMU', 'host_ip': '192.0.2.1',
                    'status': 'enabled' if host.enabled else 'disabled',
                    'state': 'up' if host.up else 'down',
                    'service': {'host': host.name, 'id': host.service_id,
                                'disabled_reason': None}}
            if version <= (2, 87):
                root = self.cloud.providers[host.uuid]
                inv, used = root.inventories, root.usages
                cpu = 'VCPU' if 'VCPU' in inv else 'PCPU'
                item.update(
                    vcpus=inv[cpu]['total'], vcpus_used=used[cpu],
                    memory_mb=inv['MEMORY_MB']['total'],
                    memory_mb_used=(used['MEMORY_MB']
                                    + inv['MEMORY_MB']['reserved']),
                    local_gb=inv['DISK_GB']['total'],
                    local_gb_used=used['DISK_GB'], running_vms=0)
            items.append(item)
        return self._page(items, self._host_index, query, 'hypervisors',
                          '/os-hypervisors/detail')

    def _servers(self, query, version):
        if 'status' in query:
            # Asked for SOFT_DELETED servers: this cloud has none.
            return {'servers': []}
        return self._page(self.cloud.servers, self._server_index, query,
                          'servers', '/servers/detail')

    # -- Placement ----------------------------------------------------------

    def _placement(self, path, query, version):
        if path == '':
            self.stats['placement root'] += 1
            return self._json({'versions': [{
                'id': 'v1.0', 'max_version': PLACEMENT_MAX,
                'min_version': '1.0', 'status': 'CURRENT',
                'links': [{'rel': 'self', 'href': ''}]}]})
        parts = path.strip('/').split('/')
        if parts == ['resource_providers']:
            self.stats['placement resource_providers'] += 1
            return self._json({'resource_providers': [
                self._provider(p, version)
                for p in self.cloud.providers.values()]})
        if parts == ['allocation_candidates'] and version >= (1, 10):
            self.stats['placement allocation_candidates'] += 1
            return self._json(self._candidates(query, version))
        if parts[0] != 'resource_providers' or len(parts) > 3:
            raise HttpError(404, 'no placement route %s' % path)
        provider = self.cloud.providers.get(parts[1])
        if provider is None:
            raise HttpError(404, 'no resource provider %s' % parts[1])
        what = parts[2] if len(parts) == 3 else ''
        self.stats['placement provider ' + (what or 'show')] += 1
        key = (provider.uuid, what, version >= (1, 14))
        body = self._rendered.get(key)
        if body is None:
            body = self._json(self._provider_part(provider, what, version))
            self._rendered[key] = body
        return body

    @staticmethod
    def _provider(provider, version):
        item = {'uuid': provider.uuid, 'name': provider.name,
                'generation': provider.generation, 'links': []}
        if version >= (1, 14):
            item['parent_provider_uuid'] = provider.parent_uuid
            item['root_provider_uuid'] = provider.root_uuid
        return item

    def _provider_part(self, provider, what, version):
        generation = provider.generation
        if what == '':
            return self._provider(provider, version)
        if what == 'inventories':
            return {'resource_provider_generation': generation,
                    'inventories': provider.inventories}
        if what == 'usages':
            # Every class with an inventory, 0 when nothing is allocated.
            return {'resource_provider_generation': generation,
                    'usages': {rc: provider.usages.get(rc, 0)
                               for rc in provider.inventories}}
        if what == 'traits' and version >= (1, 6):
            return {'resource_provider_generation': generation,
                    'traits': provider.traits}
        if what == 'aggregates' and version >= (1, 1):
            return {'resource_provider_generation': generation,
                    'aggregates': provider.aggregates}
        raise HttpError(404, 'no resource provider route %s' % what)

    def _candidates(self, query, version):
        """GET /allocation_candidates for one unnumbered resources group.

        Like Placement: a tree is a candidate when, for each requested
        class, a provider of the tree can take the amount (free capacity,
        min_unit, max_unit, step_size); full providers make their tree
        absent. Summaries carry every class from 1.27, traits from 1.17
        and the whole tree with parent and root from 1.29.
        """
        unsupported = set(query) - {'resources', 'limit'}
        if unsupported or 'resources' not in query:
            raise HttpError(400, 'the fake only answers resources= and '
                            'limit=, not %s' % ', '.join(sorted(unsupported)))
        wanted = {}
        for item in query['resources'][0].split(','):
            rc, _, amount = item.partition(':')
            wanted[rc] = int(amount)
        limit = int(query.get('limit', ['0'])[0]) or None

        requests, trees = [], []
        for root_uuid, members in self._trees.items():
            choices = []
            for rc, amount in wanted.items():
                choices.append([p for p in members
                                if self._fits(p, rc, amount)])
            if not all(choices):
                continue
            for combination in itertools.product(*choices):
                allocations = {}
                for (rc, amount), provider in zip(wanted.items(),
                                                  combination):
                    allocations.setdefault(provider.uuid, {'resources': {}})[
                        'resources'][rc] = amount
                request = {'allocations': allocations}
                if version >= (1, 34):
                    request['mappings'] = {'': sorted(allocations)}
                requests.append(request)
            trees.append(members)
            if limit and len(requests) >= limit:
                break
        requests = requests[:limit] if limit else requests
        in_requests = {uuid for r in requests for uuid in r['allocations']}
        summaries = {}
        for members in trees:
            for provider in members:
                if version < (1, 29) and provider.uuid not in in_requests:
                    continue
                summaries[provider.uuid] = self._summary(provider, wanted,
                                                         version)
        return {'allocation_requests': requests,
                'provider_summaries': summaries}

    @staticmethod
    def _fits(provider, rc, amount):
        inv = provider.inventories.get(rc)
        if inv is None:
            return False
        free = synthetic_cloud.capacity(inv) - provider.usages.get(rc, 0)
        return (amount <= free and inv['min_unit'] <= amount
                <= inv['max_unit'] and amount % inv['step_size'] == 0)

    @staticmethod
    def _summary(provider, wanted, version):
        classes = (provider.inventories if version >= (1, 27)
                   else [rc for rc in wanted if rc in provider.inventories])
        summary = {'resources': {
            rc: {'capacity': synthetic_cloud.capacity(
                provider.inventories[rc]),
                'used': provider.usages.get(rc, 0)}
            for rc in classes}}
        if version >= (1, 17):
            summary['traits'] = provider.traits
        if version >= (1, 29):
            summary['parent_provider_uuid'] = provider.parent_uuid
            summary['root_provider_uuid'] = provider.root_uuid
        return summary


async def _serve_connection(fake, reader, writer):
    try:
        while True:
            try:
                head = await reader.readuntil(b'\r\n\r\n')
            except (asyncio.IncompleteReadError, ConnectionError,
                    asyncio.LimitOverrunError):
                return
            lines = head.decode('latin-1').split('\r\n')
            method, target, _ = lines[0].split(' ', 2)
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(':')
                if name:
                    headers[name.strip().lower()] = value.strip()
            length = int(headers.get('content-length') or 0)
            if length:
                await reader.readexactly(length)
            status, body, microversion = fake.handle(method, target,
                                                     headers)
            extra = ''
            if microversion:
                extra = 'OpenStack-API-Version: %s\r\n' % microversion
                if microversion.startswith('compute'):
                    extra += ('X-OpenStack-Nova-API-Version: %s\r\n'
                              % microversion.split()[1])
            writer.write((
                'HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n'
                'Content-Length: %d\r\n%s\r\n'
                % (status, REASONS.get(status, 'Error'), len(body), extra)
            ).encode() + body)
            await writer.drain()
            if headers.get('connection', '').lower() == 'close':
                return
    finally:
        writer.close()


class PlacementProcess:
    """Placement's API served by a forked copy of a FakeCloud.

    Made before any thread or event loop of this process: the child is a
    fork. It serves sock until this end of its pipe closes, and applies
    the controls sent through it.
    """

    def __init__(self, fake, sock):
        here, there = multiprocessing.Pipe()
        pid = os.fork()
        if pid == 0:  # the child
            here.close()
            _serve_placement(fake, sock, there)
        there.close()
        self.pid = pid
        self._end = here

    def control(self, method, name):
        """FakeCloud.control in the child; HttpError as it raised it."""
        self._end.send((method, name))
        answer = self._end.recv()
        if isinstance(answer, tuple):
            raise HttpError(*answer)
        return answer

    def close(self):
        self._end.close()
        os.waitpid(self.pid, 0)


def _serve_placement(fake, sock, end):
    """The Placement process's life; it ends with its parent's end."""
    # Signals stop the parent (the benchmark's terminate, a ^C); the
    # parent's end closing stops this one.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    fake.stats.clear()
    fake._cpu_since = time.process_time()

    async def run():
        stop = asyncio.Event()

        def control():
            try:
                method, name = end.recv()
            except EOFError:
                stop.set()
                asyncio.get_running_loop().remove_reader(end.fileno())
                return
            try:
                end.send(fake.control(method, name))
            except HttpError as exc:
                end.send((exc.status, str(exc)))
        asyncio.get_running_loop().add_reader(end.fileno(), control)
        await serve(fake, stop=stop, sock=sock)

    try:
        asyncio.run(run())
    finally:
        os._exit(0)


def clouds_yaml(fake, name='fakecloud'):
    """clouds.yaml content (a dict) pointing openstacksdk at the fake."""
    compute_url = fake.base_url + COMPUTE
    placement_url = (fake.placement_base_url or fake.base_url) + PLACEMENT
    return {'clouds': {name: {
        'auth_type': 'admin_token',
        'auth': {'endpoint': compute_url, 'token': 'admin'},
        'compute_endpoint_override': compute_url,
        'placement_endpoint_override': placement_url,
        'region_name': 'RegionOne'}}}


async def serve(fake, port=0, ready=None, stop=None, sock=None):
    """Serve on 127.0.0.1 until stop (an asyncio.Event) is set.

    ready(fake) is called once listening. sock: a listening socket
    (listen()) to serve instead of a new one on port.
    """
    connections = set()

    async def connection(reader, writer):
        entry = (asyncio.current_task(), writer)
        connections.add(entry)
        try:
            await _serve_connection(fake, reader, writer)
        finally:
            connections.discard(entry)

    if sock is None:
        server = await asyncio.start_server(connection, '127.0.0.1', port,
                                            backlog=256)
        fake.base_url = 'http://127.0.0.1:%d' % (
            server.sockets[0].getsockname()[1])
    else:
        server = await asyncio.start_server(connection, sock=sock)
    if ready:
        ready(fake)
    stop = stop or asyncio.Event()
    await stop.wait()
    server.close()
    # Closed connections end their readers; cancelled ones would be
    # logged as errors by asyncio.
    entries = list(connections)
    for _, writer in entries:
        writer.close()
    await asyncio.gather(*(task for task, _ in entries),
                         return_exceptions=True)


def listen(port=0):
    """A socket listening on 127.0.0.1 (port 0: a free one) and its URL."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', port))
    sock.listen(256)
    return sock, 'http://127.0.0.1:%d' % sock.getsockname()[1]


def _write(path, data):
    tmp = path + '.tmp'
    with open(tmp, 'w') as out:
        json.dump(data, out, indent=2)
    os.rename(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--flavors', type=int, default=1000)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--port', type=int, default=0,
                        help='on 127.0.0.1; 0 picks a free one')
    parser.add_argument('--clouds-yaml',
                        help='write a clouds.yaml (cloud "fakecloud") here '
                             '(JSON, which YAML readers accept)')
    parser.add_argument('--one-process', action='store_true',
                        help='serve Placement from the Nova process too '
                             '(one event loop for both)')
    parser.add_argument('--ready-file',
                        help='write the URLs here (JSON) once listening')
    args = parser.parse_args(argv)
    cloud = synthetic_cloud.Cloud(args.hosts, args.flavors, args.seed)
    fake = FakeCloud(cloud)
    # Both listening before the fork: each copy writes both addresses.
    sock, fake.base_url = listen(args.port)
    if not args.one_process:
        placement_sock, fake.placement_base_url = listen()
        fake.peer = PlacementProcess(fake, placement_sock)
        placement_sock.close()

    def ready(fake):
        info = {'base_url': fake.base_url,
                'compute_url': fake.base_url + COMPUTE,
                'placement_url': (fake.placement_base_url
                                  or fake.base_url) + PLACEMENT,
                'hosts': len(cloud.hosts), 'flavors': len(cloud.flavors),
                'providers': len(cloud.providers),
                'servers': len(cloud.servers), 'pid': os.getpid(),
                'aliases': synthetic_cloud.ALIASES}
        if args.clouds_yaml:
            _write(args.clouds_yaml, clouds_yaml(fake))
            info['clouds_yaml'] = args.clouds_yaml
        if args.ready_file:
            _write(args.ready_file, info)
        print(json.dumps(info), flush=True)

    async def run():
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await serve(fake, ready=ready, stop=stop, sock=sock)

    try:
        asyncio.run(run())
    finally:
        if fake.peer is not None:
            fake.peer.close()


if __name__ == '__main__':
    main()
