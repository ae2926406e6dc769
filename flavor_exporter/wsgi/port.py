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
"""The API's listening socket, bound before anything else starts.

flavor-exporter-api and flavor-exporter-all bind it in the command's own
process, before the launcher forks and before any refresh: a taken port
stops the command with one line, where a service that failed to bind
would be restarted by the launcher again and again. The processes the
launcher forks inherit the socket and serve on it.
"""

import socket

from flavor_exporter._i18n import _


class PortInUse(RuntimeError):
    pass


def listen(host, port, backlog):
    """A socket listening on host:port; PortInUse if it cannot be.

    SO_REUSEADDR as servers set it, so that connections of a server that
    just stopped (TIME_WAIT) do not count as taken.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise PortInUse(_('cannot listen on %(host)s:%(port)d (%(error)s); '
                          'set [api] host_ip to an address of this '
                          'machine.') % {'host': host, 'port': port,
                                         'error': exc})
    family, kind, proto, _name, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError as exc:
        sock.close()
        raise PortInUse(_('cannot listen on %(host)s:%(port)d (%(error)s); '
                          'stop what uses the port or set [api] port to '
                          'another one.')
                        % {'host': host, 'port': port,
                           'error': exc.strerror or exc})
    return sock
