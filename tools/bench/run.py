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
"""Every benchmark, or those named: ``tox -e bench [-- api|collect ...]``.

Each runs in a process of its own (so that each peak RSS is its own),
writes its figures to bench-results/<name>.json and prints a summary.
Options of one benchmark: ``python -m tools.bench.<name> --help``.
``realcloud`` (the real Nova + Placement test cloud at 200 and 1,000
hosts) takes many minutes and needs Nova: it runs only when named
(``tox -e bench -- realcloud``), in the functional env's interpreter
(make it once with ``tox -e functional --notest``); so does ``freshness``
(a change made in that cloud, through RabbitMQ, to the served API's
answer).
"""

import os
import subprocess
import sys

BENCHMARKS = ('engine', 'publish', 'api', 'inprocess', 'collect', 'worker',
              'memcached_loss', 'projects', 'notifications', 'checks',
              'request_log', 'whatif', 'defrag')
# Run only when named: minutes long, and Nova must be installed.
ON_REQUEST = ('realcloud', 'freshness')
FUNCTIONAL_PYTHON = os.path.join('.tox', 'functional', 'bin', 'python')


def main(argv=None):
    names = sys.argv[1:] if argv is None else argv
    unknown = sorted(set(names) - set(BENCHMARKS + ON_REQUEST))
    if unknown:
        sys.exit('unknown benchmark(s): %s; known: %s'
                 % (', '.join(unknown), ', '.join(BENCHMARKS + ON_REQUEST)))
    for name in names or BENCHMARKS:
        print('== %s' % name, flush=True)
        python = FUNCTIONAL_PYTHON if name in ON_REQUEST else sys.executable
        if name in ON_REQUEST and not os.access(python, os.X_OK):
            sys.exit('%s needs Nova: run tox -e functional --notest first'
                     % name)
        done = subprocess.run([python, '-m', 'tools.bench.%s' % name])
        if done.returncode:
            sys.exit('%s failed (exit %d)' % (name, done.returncode))


if __name__ == '__main__':
    main()
