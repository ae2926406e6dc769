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
"""Whether the API's port is free, checked before anything starts.

uWSGI, run by flavor-exporter-api, logs a bind error and exits after its
master has started; flavor-exporter-all's launcher would restart a
process that cannot bind, refreshing each time. Both commands check here
first and stop with one line instead.
"""

import socket

from flavor_exporter._i18n import _


class PortInUse(RuntimeError):
    pass


def ensure_free(host, port):
    """Bind host:port as the servers do, then let it go; PortInUse if not.

    SO_REUSEADDR as uWSGI and waitress set it, so that connections of a
    server that just stopped (TIME_WAIT) do not count as taken.
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
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            raise PortInUse(_('cannot listen on %(host)s:%(port)d '
                              '(%(error)s); stop what uses the port or set '
                              '[api] port to another one.')
                            % {'host': host, 'port': port,
                               'error': exc.strerror or exc})
