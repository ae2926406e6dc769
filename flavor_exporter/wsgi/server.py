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
"""The API's HTTP server: granian, set from the [api] options.

granian parses HTTP (hyper, in Rust), keeps connections alive and holds
slow or idle clients in its event loop, without a Python thread each; the
application runs on [api] threads threads of each of [api] workers
processes. Measured beside uWSGI and the server this project used to
write itself (doc/source/performance.rst): as fast as the latter at 1, 16
and 64 connections, and unlike uWSGI serving HTTP itself it keeps
thousands of slow clients from blocking the others, given room for them
([api] max_connections, granian's backpressure). What it cannot parse is
answered 400 (tests/functional/test_front_end.py).

Each process builds the application after granian forks it (make_app),
so that each has its own cache connections.
"""

import multiprocessing.util
import resource

from granian import constants
from granian import http
from granian import log as granian_log
from granian import server as granian_server
from oslo_log import log

LOG = log.getLogger(__name__)

# What granian logs (workers started, died, respawned) goes to oslo.log's
# handlers with the service's own lines, not to granian's stdout ones.
_LOGGING = {'loggers': {
    '_granian': {'handlers': [], 'propagate': True},
    # One INFO line per request is the application's ([api]
    # log_requests), with the request id.
    'granian.access': {'handlers': [], 'propagate': False},
}}
# The target granian names in its logs; make_app builds it.
_TARGET = 'flavor_exporter.wsgi.api:application'
# Seconds a process has on SIGTERM to finish its requests (and, in
# flavor-exporter-all, the worker to hand over leadership) before it is
# killed.
_STOP_SECONDS = 30
# Files a process needs beside its clients' (cache connections, logs).
_SPARE_FILES = 256


def _allow_open_files(count):
    """Raise this process's open-file limit towards count (inherited)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= count:
        return
    new = count if hard == resource.RLIM_INFINITY else min(count, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
    if new < count:
        LOG.warning('Open files are limited to %d, below [api] '
                    'max_connections (%d): raise the hard limit (LimitNOFILE '
                    'in a systemd unit, ulimit -Hn) to hold that many '
                    'clients.', new, count)


def granian(conf, workers, prog):
    """A granian server on [api] host_ip and port, [api] threads each.

    serve() runs it until SIGTERM or SIGINT.
    """
    api = conf.api
    # Each client holds a file; the processes granian forks inherit it.
    _allow_open_files(api.max_connections + _SPARE_FILES)
    return granian_server.Server(
        _TARGET, address=api.host_ip, port=api.port,
        interface=constants.Interfaces.WSGI,
        workers=workers, blocking_threads=api.threads,
        backlog=api.listen_backlog, backpressure=api.max_connections,
        http=constants.HTTPModes.http1, websockets=False,
        http1_settings=http.HTTP1Settings(
            header_read_timeout=int(api.request_timeout * 1000)),
        log_dictconfig=_LOGGING,
        log_level=(granian_log.LogLevels.debug if conf.debug
                   else granian_log.LogLevels.info),
        # A process that died is started again, as oslo.service does.
        respawn_failed_workers=True,
        workers_kill_timeout=_STOP_SECONDS,
        process_name=prog)


def serve(server, make_app):
    """Run server, each of its processes serving make_app().

    make_app: called once in each process granian starts (after the
    fork), returns the WSGI application.
    """
    server.serve(target_loader=lambda *args, **kwargs: make_app())


def on_exit(callback):
    """Call callback when a process granian started is about to exit.

    granian's processes are multiprocessing's: their finalizers run when
    serving ended, before Python waits for the process's other threads
    (the worker's timers in flavor-exporter-all), which callback stops.
    """
    multiprocessing.util.Finalize(None, callback, exitpriority=10)
