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

Each writes its figures to bench-results/<name>.json and prints a summary.
Options of one benchmark: ``python -m tools.bench.<name> --help``.
"""

import importlib
import sys

BENCHMARKS = ('engine', 'publish', 'api', 'collect', 'memcached_loss')


def main(argv=None):
    names = sys.argv[1:] if argv is None else argv
    unknown = sorted(set(names) - set(BENCHMARKS))
    if unknown:
        sys.exit('unknown benchmark(s): %s; known: %s'
                 % (', '.join(unknown), ', '.join(BENCHMARKS)))
    for name in names or BENCHMARKS:
        print('== %s' % name, flush=True)
        importlib.import_module('tools.bench.%s' % name).main([])


if __name__ == '__main__':
    main()
