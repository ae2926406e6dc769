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

"""Servers on free loopback ports: a port finder, a port waiter,
memcached and RabbitMQ.

Used by flavor-exporter's functional tests and by tools/bench, which both
need a real memcached (and a real message bus) that nobody else talks to.
"""

import os
import shutil
import socket
import subprocess
import tempfile
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


# Where Debian's rabbitmq-server package puts the server itself (the
# /usr/sbin wrapper would switch to the rabbitmq user and its node).
RABBITMQ_SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server'


class RabbitMQFixture(fixtures.Fixture):
    """A RabbitMQ node of its own (Debian's rabbitmq-server) for one test.

    Its own Erlang node name, ports, data and logs under a temporary
    directory, listening on 127.0.0.1 only; the guest user, which
    RabbitMQ allows on loopback. stop() and start() keep its port, as a
    bus that goes away and comes back does.
    """

    def __init__(self, timeout=60):
        super().__init__()
        self._timeout = timeout
        self.process = None
        self.port = None

    @property
    def url(self):
        """An oslo.messaging transport URL of it."""
        return 'rabbit://guest:guest@127.0.0.1:%d/' % self.port

    def _setUp(self):
        if not os.access(RABBITMQ_SERVER, os.X_OK):
            raise RuntimeError('RabbitMQ is not installed (bindep.txt; '
                               'apt-get install rabbitmq-server)')
        self.port = free_port()
        self._dir = self.useFixture(fixtures.TempDir()).path
        self.addCleanup(self.stop)
        self.start()

    def _environment(self):
        base = self._dir
        with open(os.path.join(base, 'enabled_plugins'), 'w') as f:
            f.write('[].\n')
        with open(os.path.join(base, 'rabbitmq.conf'), 'w') as f:
            f.write('listeners.tcp.default = 127.0.0.1:%d\n' % self.port)
        env = dict(os.environ)
        env.update({
            # Its own Erlang cookie and node: no other RabbitMQ is touched.
            'HOME': base,
            'RABBITMQ_NODENAME': 'fe%d@localhost' % self.port,
            'RABBITMQ_NODE_PORT': str(self.port),
            'RABBITMQ_NODE_IP_ADDRESS': '127.0.0.1',
            'RABBITMQ_DIST_PORT': str(free_port()),
            'RABBITMQ_MNESIA_BASE': os.path.join(base, 'mnesia'),
            'RABBITMQ_LOG_BASE': os.path.join(base, 'log'),
            'RABBITMQ_ENABLED_PLUGINS_FILE': os.path.join(
                base, 'enabled_plugins'),
            'RABBITMQ_CONFIG_FILE': os.path.join(base, 'rabbitmq'),
            'RABBITMQ_PID_FILE': os.path.join(base, 'pid'),
            'RABBITMQ_LOGS': os.path.join(base, 'rabbit.log'),
        })
        return env

    def start(self):
        self._log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [RABBITMQ_SERVER], env=self._environment(), cwd=self._dir,
            stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True)
        try:
            wait_for_port(self.port, timeout=self._timeout,
                          process=self.process)
        except RuntimeError:
            self._log.seek(0)
            raise RuntimeError('RabbitMQ did not start: %s' % (
                self._log.read()[-2000:].decode(errors='replace')))

    def stop(self):
        """Stop the node (and its Erlang runtime); the port stays."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, 15)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait(10)
        self.process = None
        self._log.close()
