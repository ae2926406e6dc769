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

"""Start real Keystone 30 from its own interpreter for the test cloud.

The interpreter is ``$FLAVOR_EXPORTER_KEYSTONE_PYTHON`` or, when unset,
``<repo>/.tox/keystone-venv/bin/python``, which ``make_keystone_venv.sh``
creates (once, under a lock, the first time a test needs it).
"""

import fcntl
import os
import secrets
import subprocess

import fixtures

from testcloud import process

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(HERE)
DEFAULT_VENV = os.path.join(REPO_ROOT, '.tox', 'keystone-venv')
ENV_PYTHON = 'FLAVOR_EXPORTER_KEYSTONE_PYTHON'
MAKE_VENV = os.path.join(HERE, 'make_keystone_venv.sh')
SERVER = os.path.join(HERE, 'keystone_server.py')
START_TIMEOUT = 120


def keystone_python():
    """The interpreter that has keystone==30.0.0, creating it if needed.

    An explicitly configured interpreter is used as it is; only the default
    venv is created on demand, so a fresh clone works without extra steps.
    """
    configured = os.environ.get(ENV_PYTHON)
    if configured:
        return configured
    python = os.path.join(DEFAULT_VENV, 'bin', 'python')
    os.makedirs(os.path.dirname(DEFAULT_VENV), exist_ok=True)
    # Parallel test workers must not build the same venv at once.
    with open(DEFAULT_VENV + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(['bash', MAKE_VENV, DEFAULT_VENV], check=True,
                       stdout=subprocess.DEVNULL, env=process.environ())
    return python


class KeystoneServer(fixtures.Fixture):
    """Keystone on an ephemeral loopback port, with an admin and a member.

    After setUp, :attr:`info` is the ready document: ``url``, ``region``,
    ``admin_user``/``admin_password``/``admin_project`` and
    ``member_user``/``member_password``/``member_project`` and
    ``reader_user``/``reader_password``, a reader of the whole system.
    """

    def __init__(self, workdir=None, python=None, timeout=START_TIMEOUT):
        super().__init__()
        self.workdir = workdir
        self.python = python
        self.timeout = timeout
        self.info = None

    def _setUp(self):
        workdir = self.workdir or self.useFixture(fixtures.TempDir()).path
        os.makedirs(workdir, exist_ok=True)
        self.ready_file = os.path.join(workdir, 'keystone-ready.json')
        argv = [self.python or keystone_python(), SERVER,
                '--workdir', workdir, '--ready-file', self.ready_file,
                # "=" form: a password may start with "-".
                '--admin-password=' + secrets.token_urlsafe(12),
                '--member-password=' + secrets.token_urlsafe(12),
                '--parent-pid', str(os.getpid())]
        self.process = process.ServerProcess('keystone', argv, workdir,
                                             self.ready_file)
        self.addCleanup(self.process.stop)
        self.info = self.process.start(self.timeout)

    @property
    def url(self):
        return self.info['url']
