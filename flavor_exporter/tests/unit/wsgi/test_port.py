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
"""The listening socket both serving commands bind before they start."""

import socket

from flavor_exporter.tests import base
from flavor_exporter.wsgi import port


class TestEnsureFree(base.BaseTestCase):

    def test_taken(self):
        with socket.socket() as taken:
            taken.bind(('127.0.0.1', 0))
            taken.listen()
            number = taken.getsockname()[1]
            error = self.assertRaises(port.PortInUse, port.listen,
                                      '127.0.0.1', number, 16)
        self.assertIn('127.0.0.1:%d' % number, str(error))
        self.assertIn('[api] port', str(error))

    def test_listening(self):
        with socket.socket() as probe:
            probe.bind(('127.0.0.1', 0))
            number = probe.getsockname()[1]
        with port.listen('127.0.0.1', number, 16) as sock:
            self.assertEqual(('127.0.0.1', number), sock.getsockname())
            socket.create_connection(('127.0.0.1', number), 5).close()

    def test_unknown_host(self):
        error = self.assertRaises(port.PortInUse, port.listen,
                                  'no-such-host.invalid', 8780, 16)
        self.assertIn('[api] host_ip', str(error))
