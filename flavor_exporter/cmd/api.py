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
"""flavor-exporter-api: serve the API with uWSGI, sized to the machine.

This command parses the configuration, checks that the port is free, then
replaces itself with uWSGI serving flavor_exporter.wsgi.api:application:
a master process, uWSGI's HTTP router on [api] port and [api] workers
single-threaded processes behind it (default twice the CPUs), which
served cached documents best on the machines measured (see
tools/bench/api.py). The router reads each request whole, without
blocking, before a worker gets it: clients that send slowly hold none of
the workers (tools/bench/slow_clients.py measures it). Each process
loads the application after the fork (--lazy-apps), so each has its own
cache connections. The configuration
files reach the application through the environment (see
flavor_exporter.api.wsgi_env).
"""

import os
import shutil
import sys

from oslo_log import log

from flavor_exporter._i18n import _
from flavor_exporter.api import auth
from flavor_exporter.api import port
from flavor_exporter.api import wsgi_env
from flavor_exporter.common import config
from flavor_exporter.worker import refresh

LOG = log.getLogger(__name__)

MODULE = 'flavor_exporter.wsgi.api:application'

PROG = 'flavor-exporter-api'


class UwsgiNotFound(RuntimeError):
    pass


def find_uwsgi():
    """uwsgi next to this Python (same virtualenv), else on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), 'uwsgi')
    if os.access(beside, os.X_OK):
        return beside
    found = shutil.which('uwsgi')
    if found:
        return found
    raise UwsgiNotFound(
        _('flavor-exporter-api needs uWSGI: install it in this Python '
          'environment (pip install pyuwsgi, a wheel), or put a uwsgi '
          'binary built for Python %(major)d.%(minor)d on PATH.')
        % {'major': sys.version_info[0], 'minor': sys.version_info[1]})


def workers(conf):
    return conf.api.workers or 2 * (os.cpu_count() or 1)


def uwsgi_argv(conf, binary):
    host = conf.api.host_ip
    if ':' in host:
        host = '[%s]' % host
    argv = [
        binary,
        '--strict',
        # The router process buffers requests (non-blocking, one offload
        # thread for the responses) so that slow clients cannot occupy
        # the workers; it passes them on a socket of its own.
        '--http', '%s:%d' % (host, conf.api.port),
        '--http-timeout', '30',
        '--offload-threads', '1',
        '--master',
        '--processes', str(workers(conf)),
        '--listen', str(conf.api.listen_backlog),
        '--module', MODULE,
        '--lazy-apps',
        '--need-app',
        '--die-on-term',
        '--single-interpreter',
        # compute_on_miss may run the worker's code, which uses threads.
        '--enable-threads',
        '--thunder-lock',
        # Keystone tokens and proxies make headers larger than 4 KiB.
        '--buffer-size', '65535',
        # A log line per request costs more than serving a cached
        # document; errors are still logged.
        '--disable-logging', '--log-4xx', '--log-5xx',
        '--procname-prefix-spaced', 'flavor-exporter-api',
    ]
    if sys.prefix != sys.base_prefix:
        argv += ['--home', sys.prefix]
    return argv


def config_files(conf):
    """Every file oslo.config read, including those of --config-dir."""
    files = list(conf.config_file or [])
    for directory in conf.config_dir or []:
        files += sorted(os.path.join(directory, name)
                        for name in os.listdir(directory)
                        if name.endswith('.conf'))
    return files


def main(argv=None):
    try:
        config.prepare_service(sys.argv[1:] if argv is None else argv)
        if config.CONF.api.compute_on_miss:
            # The API computes on a cold cache with the worker's code:
            # refuse a [pci] alias the worker would refuse, before uWSGI
            # starts processes that could only fail later.
            refresh.engine_options(config.CONF)
    except config.CONFIG_ERRORS as exc:
        return config.refuse_to_start(PROG, exc)
    conf = config.CONF
    auth.warn_if_open(conf)
    try:
        binary = find_uwsgi()
        port.ensure_free(conf.api.host_ip, conf.api.port)
    except (UwsgiNotFound, port.PortInUse) as exc:
        sys.stderr.write('%s: %s\n' % (PROG, exc))
        return 1
    argv = uwsgi_argv(conf, binary)
    env = dict(os.environ, **wsgi_env.environment(config_files(conf)))
    LOG.info('Starting uWSGI on %s:%d with %d processes',
             conf.api.host_ip, conf.api.port, workers(conf))
    os.execve(binary, argv, env)


if __name__ == '__main__':
    sys.exit(main())
