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
"""CPU per request log line: oslo.log's LOG.info against request_log.

In process, oslo.log set up as flavor-exporter-api sets it up (default
formats), a request context set as request_id.py sets it: the line as
LOG.info wrote it before, and request_log's, to a log_file
(WatchedFileHandler) and to a stream (use_stderr; here to /dev/null).
Best of a few rounds of CPU time per line. Writes
bench-results/request_log.json.
"""

import argparse
import json
import os
import sys
import tempfile
import time

from oslo_config import cfg
from oslo_context import context
from oslo_log import log

from flavor_exporter.api import request_log

ENVIRON = {'REMOTE_ADDR': '10.0.0.1', 'REQUEST_METHOD': 'GET',
           'PATH_INFO': '/v3/flavors/', 'QUERY_STRING': ''}


def _cpu_us(call, lines, rounds):
    call()
    best = None
    for _ in range(rounds):
        started = time.process_time()
        for _ in range(lines):
            call()
        spent = (time.process_time() - started) / lines * 1e6
        best = spent if best is None else min(best, spent)
    return round(best, 2)


def measure(where, lines, rounds):
    conf = cfg.ConfigOpts()
    log.register_options(conf)
    conf([], project='flavor-exporter')
    if where == 'log_file':
        folder = tempfile.mkdtemp()
        conf.set_override('log_file', os.path.join(folder, 'api.log'))
    else:
        conf.set_override('use_stderr', True)
        sys.stderr = open(os.devnull, 'w')
    log.setup(conf, 'flavor-exporter')
    context.RequestContext(request_id='req-1',
                           global_request_id='req-2', user_id='u',
                           project_id='p')
    args = ('10.0.0.1', 'GET', '/v3/flavors/', '200', '1234', 0.000512)
    log_request = request_log.RequestLog(True)
    figures = {
        'LOG.info': _cpu_us(lambda: request_log.LOG.info(
            request_log._MESSAGE, *args), lines, rounds),
        'request_log': _cpu_us(lambda: log_request.answered(
            ENVIRON, '200 OK', '1234', 0.000512), lines, rounds)}
    sys.stderr = sys.__stderr__
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--lines', type=int, default=20000)
    parser.add_argument('--rounds', type=int, default=5)
    options = parser.parse_args()
    results = {}
    for where in ('log_file', 'use_stderr'):
        # Each in a fresh logging set-up; the same process.
        results[where] = measure(where, options.lines, options.rounds)
        print('%-10s us CPU per line: LOG.info %6.2f, request_log %6.2f'
              % (where, results[where]['LOG.info'],
                 results[where]['request_log']), flush=True)
    os.makedirs('bench-results', exist_ok=True)
    with open(os.path.join('bench-results', 'request_log.json'), 'w') as out:
        json.dump({'us_cpu_per_line': results, 'lines': options.lines,
                   'rounds': options.rounds, 'context': True}, out,
                  indent=2)


if __name__ == '__main__':
    main()
