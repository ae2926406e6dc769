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
"""podman, as the container tests use it: the image, and containers.

Every container runs with the host's network, so that it reaches the test
cloud and memcached on 127.0.0.1 and nothing leaves loopback.
"""

import itertools
import os
import subprocess
import time

import fixtures
import testtools

from flavor_exporter import version

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..',
                                    '..'))
IMAGE = 'localhost/flavor-exporter:test'
# A build on 2 cores takes about 4 minutes (PyPI through a proxy), much
# more when the machine is shared.
BUILD_TIMEOUT = 1200
TIMEOUT = 120

_built = {}
_names = itertools.count()


def podman(*args, timeout=TIMEOUT, check=True):
    done = subprocess.run(['podman'] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          timeout=timeout)
    if check and done.returncode:
        raise RuntimeError('podman %s: exit %d: %s' % (
            ' '.join(args), done.returncode, done.stderr.strip()))
    return done


def _image_id(tag):
    done = podman('image', 'inspect', '--format', '{{.Id}}', tag,
                  check=False)
    return done.stdout.strip() if done.returncode == 0 else None


def image():
    """The image of this checkout, built once per test process.

    Returns (tag, seconds the build took). Built the way the README says
    (``podman build -t ... .`` in the checkout), but without a cached
    layer per instruction (--layers=false): with the vfs storage a sandbox
    like CI's has, every layer is a full copy of the file system, which
    made the build two and a half times as long. A checkout whose .git is
    not a directory (a git worktree: it points outside the build context)
    gives pbr the version the test's own installation has.
    """
    if IMAGE not in _built:
        args = ['build', '--layers=false', '-t', IMAGE]
        if not os.path.isdir(os.path.join(ROOT, '.git')):
            args += ['--build-arg',
                     'PBR_VERSION=%s' % version.version_string()]
        previous = _image_id(IMAGE)
        started = time.monotonic()
        podman(*args + [ROOT], timeout=BUILD_TIMEOUT)
        _built[IMAGE] = time.monotonic() - started
        if previous and previous != _image_id(IMAGE):
            # The last run's image, no longer tagged: not a pile of them.
            podman('rmi', previous, check=False)
    return IMAGE, _built[IMAGE]


class Container(fixtures.Fixture):
    """A detached container, removed at cleanUp.

    args: what follows ``podman run -d --network host --name NAME``: run
    options, the image, the command. A test that fails has each
    container's log among its details.
    """

    def __init__(self, *args):
        super().__init__()
        self.args = args
        self.name = 'flavor-exporter-test-%d-%d' % (os.getpid(),
                                                    next(_names))

    def _setUp(self):
        podman('run', '-d', '--network', 'host', '--name', self.name,
               *self.args)
        self.addCleanup(podman, 'rm', '--force', '--time', '5', self.name,
                        check=False)

    def log_on_failure(self, test):
        """Add the log to test's details if test fails (before cleanUp)."""
        test.addOnException(lambda exc_info: test.addDetail(
            self.name, testtools.content.text_content(self.logs())))
        return self

    def logs(self):
        done = podman('logs', self.name, check=False)
        return done.stdout + done.stderr

    def running(self):
        done = podman('inspect', '--format', '{{.State.Running}}',
                      self.name, check=False)
        return done.stdout.strip() == 'true'

    def exec(self, *command):
        return podman('exec', self.name, *command, check=False)
