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

"""Servers on free loopback ports: a port finder, a port waiter, memcached.

Used by flavor-exporter's functional tests and by tools/bench, which both
need a real memcached that nobody else talks to.
"""

import os
import shutil
import socket
import subprocess
import time

import fixtures


def free_port():
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def wait_for_port(port, timeout=15, process=None):
    """Until something accepts on 127.0.0.1:port; raise if it never does.

    process: a Popen whose exit means it never will.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError('%s exited with %s before listening on %d'
                               % (process.args[0], process.returncode,
                                  port))
        try:
            socket.create_connection(('127.0.0.1', port), 0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError('nothing listens on 127.0.0.1:%d after %ss'
                       % (port, timeout))


class MemcachedFixture(fixtures.Fixture):
    """memcached (the Debian package's binary) for one test.

    Listens on 127.0.0.1 only, on a free port that restart() keeps, so
    that clients configured with it reconnect as they would to a
    restarted production memcached: with an empty cache.
    """

    def __init__(self, memory_mb=64, max_item_size='4m'):
        super().__init__()
        self._memory_mb = memory_mb
        self._max_item_size = max_item_size
        self.process = None
        self.port = None

    @property
    def servers(self):
        """[document_cache] memcache_servers for it."""
        return ['127.0.0.1:%d' % self.port]

    def _setUp(self):
        self.binary = shutil.which('memcached') or '/usr/bin/memcached'
        if not os.access(self.binary, os.X_OK):
            raise RuntimeError('memcached is not installed (bindep.txt; '
                               'apt-get install memcached)')
        self.port = free_port()
        self.addCleanup(self.stop)
        self.start()

    def start(self):
        argv = [self.binary, '-l', '127.0.0.1', '-p', str(self.port),
                '-U', '0', '-m', str(self._memory_mb),
                '-I', self._max_item_size]
        if os.geteuid() == 0:
            # memcached refuses to run as root without -u.
            argv += ['-u', 'nobody']
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        wait_for_port(self.port, process=self.process)

    def stop(self):
        """Stop memcached; its port stays reserved for start()."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self.process = None

    def restart(self):
        """A new memcached on the same port, empty like after a reboot."""
        self.stop()
        self.start()
