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

"""The test cloud's control endpoint: what Nova's REST API cannot do.

Disabling a service or forcing it down goes through Nova's own API
(os-services, microversion 2.53); this app only covers the hardware side:

- ``GET  /control/state``                 hosts and the scheduler's filters
- ``POST /control/computes``              start a compute; body: one host
                                          entry of the scenario schema
- ``POST /control/computes/{host}/stop``  stop a compute service
- ``POST /control/periodic``              run every compute's resource
                                          update now
- ``GET  /control/numa``                  each compute node's NUMA cells:
                                          shared/dedicated/pinned CPUs
- ``GET  /control/servers/{id}/numa``     a server's NUMA topology: its
                                          CPU pinning, emulator CPUs
"""

import json
import threading

from testcloud import scenario as scenario_mod


class ControlApp(object):
    """WSGI app driving a :class:`nova_cloud.NovaCloud`."""

    def __init__(self, cloud):
        self.cloud = cloud
        # Starting computes concurrently would race on Nova's global CONF.
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        method = environ['REQUEST_METHOD']
        parts = [p for p in environ.get('PATH_INFO', '').split('/') if p]
        try:
            body = self._body(environ)
            with self._lock:
                status, result = self._dispatch(method, parts, body)
        except (KeyError, ValueError) as exc:
            status, result = '400 Bad Request', {'error': str(exc)}
        data = json.dumps(result).encode()
        start_response(status, [('Content-Type', 'application/json'),
                                ('Content-Length', str(len(data)))])
        return [data]

    @staticmethod
    def _body(environ):
        length = int(environ.get('CONTENT_LENGTH') or 0)
        if not length:
            return {}
        return json.loads(environ['wsgi.input'].read(length))

    def _dispatch(self, method, parts, body):
        if parts[:1] != ['control']:
            return '404 Not Found', {'error': 'not found'}
        route = parts[1:]
        if method == 'GET' and route == ['state']:
            return '200 OK', self.state()
        if method == 'POST' and route == ['computes']:
            host = scenario_mod.parse({'hosts': [body]}).hosts[0]
            self.cloud.add_compute(host)
            return '201 Created', {'name': host.name, 'node': host.node}
        if (method == 'POST' and len(route) == 3 and
                route[0] == 'computes' and route[2] == 'stop'):
            self.cloud.stop_compute(route[1])
            return '200 OK', {'name': route[1], 'running': False}
        if method == 'GET' and route == ['numa']:
            return '200 OK', self.cloud.host_numa()
        if (method == 'GET' and len(route) == 3 and
                route[0] == 'servers' and route[2] == 'numa'):
            return '200 OK', self.cloud.server_numa(route[1])
        if method == 'POST' and route == ['periodic']:
            self.cloud.run_periodics()
            return '200 OK', {}
        return '404 Not Found', {'error': 'no route %s %s' % (method,
                                                              '/'.join(parts))}

    def state(self):
        return {'hosts': self.cloud.summary(),
                'enabled_filters': self.cloud.enabled_filters}
