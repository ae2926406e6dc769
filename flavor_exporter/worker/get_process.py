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
"""A share of a batch of GETs, sent from a second process.

Why: the worker is Python under one GIL. A cold refresh of 10,000 hosts
is 19,284 inventory GETs (Placement has no bulk read) at about 135 us of
our CPU each, all on one core while the machine's second core idles. A
child process sends a share of them over kept-alive connections of its
own (http_connections.Connections) and hands back each answer's status
and body; CloudClient.get_many reads them as it reads its own answers:
the same checks, the same errors, the same numbers.

How: a new interpreter running this module (``python -m``), not a fork of
the worker, whose threads (oslo.service's timers, the notification
listener, the cache clients) may hold a lock at any moment, and whose
hundreds of MB a fork would share copy-on-write with a process that
reads none of them. It imports the standard library and
http_connections only (about 0.1 s of CPU to start, on the other core),
reads its batch from stdin and writes the answers to stdout, pickled
(the two ends are this module's, of the same installation), and ends
with its batch.

Failures: a GET the child could not send, or whose answer only the usual
path can take (a 401: keystoneauth renews the token; a redirect), comes
back as None and the parent sends it again itself. A child that dies
before answering fails the batch (ProcessFailed): the refresh fails with
one line and the last good data stays published. A child that cannot be
started at all is said once, and from then on the parent sends every
batch itself.

The batch, the token among its headers, goes through the child's stdin,
never its command line or environment, which other users may read.
"""

import concurrent.futures
import os
import pickle
import subprocess
import sys
import threading
import time

from flavor_exporter.worker import http_connections

# Below this many GETs a child's start (a new interpreter, about 0.1 s of
# CPU) is not worth it: a warm refresh sends a few hundred.
MIN_BATCH = 1000
# The share of a batch the child sends. The parent has its own share and
# everything else of the refresh (the listings, the allocation
# candidates) on its core; measured at 10,000 hosts, see
# doc/source/performance.rst.
CHILD_SHARE = 0.5

_lock = threading.Lock()
_unavailable = []  # why no child could be started, once it could not


def usable_cpus():
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def child_share(count, concurrency):
    """How many of count GETs a child sends (0: none), and its threads.

    The child's threads are taken from the concurrency bound, so that the
    cloud sees no more calls at once than [openstack] max_concurrency.
    """
    if (count < MIN_BATCH or concurrency < 2 or usable_cpus() < 2
            or _unavailable):
        return 0, 0
    return int(count * CHILD_SHARE), concurrency // 2


def send(spec, urls, threads):
    """[answer of each url]: (status, body), or None for the usual path.

    None for what the parent must send itself: a transport error (the
    usual path meets it again and says it as it does), a 401, a redirect.
    """
    pools = http_connections.Connections(spec['timeout'], threads,
                                         spec['tls'])
    headers = spec['headers']

    def one(url):
        try:
            response = pools.request('GET', url, headers=headers)
        except Exception:
            return None
        if response.status == 401 or 300 <= response.status < 400:
            return None
        return response.status, response.data

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return list(pool.map(one, urls))


def main():
    """The child: a batch from stdin, (answers, CPU seconds) to stdout."""
    spec, urls, threads = pickle.load(sys.stdin.buffer)
    answers = send(spec, urls, threads)
    pickle.dump((answers, time.process_time()), sys.stdout.buffer,
                protocol=pickle.HIGHEST_PROTOCOL)
    sys.stdout.buffer.flush()


def _environment():
    """The child's environment: this installation of the package first."""
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(http_connections.__file__))))
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(
        [package_root] + ([env['PYTHONPATH']] if env.get('PYTHONPATH')
                          else []))
    return env


class ProcessFailed(Exception):
    """The child died, or wrote something else than its answers."""


class Share:
    """A child process sending urls; answers() waits for what it sent.

    command: what runs the child (this module's main, by default).
    """

    def __init__(self, spec, urls, threads, command=None):
        self.urls = urls
        self.cpu_seconds = 0.0
        self._process = subprocess.Popen(
            command or [sys.executable, '-m', __name__],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, close_fds=True, env=_environment())
        self._output = None
        # communicate() feeds stdin and drains stdout and stderr at once,
        # so that neither end waits on a full pipe; in a thread, so that
        # the parent sends its own share meanwhile.
        self._thread = threading.Thread(
            target=self._communicate, name='get-process', daemon=True,
            args=(pickle.dumps((spec, urls, threads),
                               protocol=pickle.HIGHEST_PROTOCOL),))
        self._thread.start()

    @property
    def pid(self):
        return self._process.pid

    def _communicate(self, batch):
        try:
            self._output = self._process.communicate(batch)
        except Exception as exc:  # a broken pipe: the child died early
            self._process.kill()
            self._process.wait()
            self._output = (b'', str(exc).encode())

    def answers(self):
        """The child's answers in urls' order; ProcessFailed if none."""
        self._thread.join()
        out, err = self._output
        failed = self._process.returncode != 0
        if not failed:
            try:
                answers, self.cpu_seconds = pickle.loads(out)
            except Exception as exc:
                err = str(exc).encode()
                failed = True
            else:
                failed = (not isinstance(answers, list)
                          or len(answers) != len(self.urls))
        if failed:
            lines = err.decode('utf-8', 'replace').strip().splitlines()
            raise ProcessFailed(
                'the process sending %d of the GETs ended without '
                'answering (exit code %s)%s'
                % (len(self.urls), self._process.returncode,
                   ': %s' % lines[-1] if lines else ''))
        return answers


def start(spec, urls, threads, log=None):
    """A Share sending urls, or None when no child can be started.

    spec: {'headers', 'timeout', 'tls'} of the direct lane, the token
    included. log: a logger for the one line said when it cannot.
    """
    try:
        return Share(spec, urls, threads)
    except (OSError, ValueError, TypeError) as exc:
        # No interpreter to run (sys.executable empty in an embedding),
        # no process or pipe left (EAGAIN, EMFILE): the parent sends.
        with _lock:
            first = not _unavailable
            _unavailable.append(str(exc))
        if first and log is not None:
            log.warning('No second process for the GETs of a large '
                        'refresh (%s): this process sends them all', exc)
        return None


if __name__ == '__main__':
    main()
