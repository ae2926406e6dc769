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

"""Start a server subprocess, wait for its ready file, stop it.

Shared by the cloud and the Keystone launchers: both servers say they are
ready by writing a JSON file, and both must leave nothing running behind a
test, even a failed one.
"""

import json
import os
import signal
import subprocess
import tempfile
import time

#: HOME and the temporary directory as they were before any test ran
#: (this module is imported when the tests are loaded). oslotest gives each
#: test a HOME and a temporary directory of its own and removes them when
#: the test ends; a server shared by several tests must outlive them, and
#: pip finds its configuration in the real HOME.
ORIGINAL_HOME = os.environ.get('HOME')
ORIGINAL_TEMPDIR = tempfile.gettempdir()


def environ(env=None):
    """env (default os.environ) with the HOME tests started with."""
    env = dict(os.environ if env is None else env)
    if ORIGINAL_HOME:
        env['HOME'] = ORIGINAL_HOME
    return env


#: How often the ready file is looked for; a cloud starts in seconds.
POLL_INTERVAL = 0.05
#: Seconds a server gets to exit after SIGTERM before it is killed.
STOP_TIMEOUT = 15


class StartError(RuntimeError):
    """A server exited or timed out before it was ready."""


def tail(path, lines=60):
    """The last lines of a log file, for error messages."""
    try:
        with open(path, errors='replace') as f:
            return ''.join(f.readlines()[-lines:])
    except OSError:
        return ''


class ServerProcess(object):
    """One server subprocess whose output goes to files in ``workdir``."""

    def __init__(self, name, argv, workdir, ready_file, env=None):
        self.name = name
        self.argv = argv
        self.ready_file = ready_file
        self.stdout_path = os.path.join(workdir, name + '.stdout.log')
        self.stderr_path = os.path.join(workdir, name + '.stderr.log')
        self.env = env
        self.popen = None

    def start(self, timeout):
        """Start the server and return its ready document."""
        # Files, not pipes: nobody reads a pipe while the server runs, and
        # a full pipe would block it.
        with open(self.stdout_path, 'wb') as out, \
                open(self.stderr_path, 'wb') as err:
            self.popen = subprocess.Popen(
                self.argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                env=environ(self.env), close_fds=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(self.ready_file):
                with open(self.ready_file) as f:
                    return json.load(f)
            if self.popen.poll() is not None:
                raise StartError('%s exited with %s before it was ready:\n%s'
                                 % (self.name, self.popen.returncode,
                                    tail(self.stderr_path)))
            time.sleep(POLL_INTERVAL)
        self.stop()
        raise StartError('%s not ready after %ss:\n%s' % (
            self.name, timeout, tail(self.stderr_path)))

    def alive(self):
        return self.popen is not None and self.popen.poll() is None

    def stop(self):
        """SIGTERM, then SIGKILL if the server does not exit in time."""
        if not self.alive():
            return
        self.popen.send_signal(signal.SIGTERM)
        try:
            self.popen.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
