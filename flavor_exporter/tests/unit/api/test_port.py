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
"""The port check both serving commands make before they start."""

import socket

from flavor_exporter.api import port
from flavor_exporter.tests import base


class TestEnsureFree(base.BaseTestCase):

    def test_taken(self):
        with socket.socket() as taken:
            taken.bind(('127.0.0.1', 0))
            taken.listen()
            number = taken.getsockname()[1]
            error = self.assertRaises(port.PortInUse, port.ensure_free,
                                      '127.0.0.1', number)
        self.assertIn('127.0.0.1:%d' % number, str(error))
        self.assertIn('[api] port', str(error))

    def test_free_after_the_check(self):
        with socket.socket() as probe:
            probe.bind(('127.0.0.1', 0))
            number = probe.getsockname()[1]
        port.ensure_free('127.0.0.1', number)
        # The check let the port go: a server can bind it.
        with socket.socket() as server:
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(('127.0.0.1', number))

    def test_unknown_host(self):
        error = self.assertRaises(port.PortInUse, port.ensure_free,
                                  'no-such-host.invalid', 8780)
        self.assertIn('[api] host_ip', str(error))
