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

"""tox -e demo: a real Nova + Placement with GPU hosts, and flavor-exporter.

Starts the test cloud of a scenario (the predecessor's example by
default), writes a flavor-exporter configuration that points at it, runs
``flavor-exporter-all`` against it and prints where to look, until Ctrl-C.
Everything it writes is in one temporary directory, removed when it stops,
but its log: flavor-exporter-all's output and what the demo did, in the
file it names first (--log-file), kept.

While the cloud starts it says what it is doing and how long that usually
takes, and every TICK seconds that it still is; the banner comes last and
stays the last thing on the terminal (at most one line follows it, the
first time flavor-exporter-all logs an ERROR).

    python -m testcloud.demo [--scenario NAME]
        [--port 8780] [--log-file FILE] [--horizon [--horizon-port 8781]]

--horizon: the cloud with Keystone, the API behind it and registered in
its catalog, and Horizon 27 with the capacity panels (its own venv,
.tox/horizon-venv, built on first use); the banner gives its URL and the
admin's and a member's credentials.
"""

import argparse
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import requests
import yaml

from testcloud import cloud_venv
from testcloud import horizon
from testcloud import keystone_catalog
from testcloud import launcher
from testcloud import scenario as scenario_mod

READY_TIMEOUT = 120
#: Seconds between the "still ..." lines of a step that takes long.
TICK = 15
# How long each step usually takes on a 2-core machine: measured on the
# machines CI runs on, the interpreters of 2026.2 and 2024.1 built in 47
# and 78 s from pip's cache, the predecessor's cloud started in 11-12 s
# and was first read in 2 s; larger scenarios and a busy machine take
# several times that.
BUILD_USUALLY = 'first run only, usually 1-3 minutes'
START_USUALLY = 'usually 10-60 s'
HORIZON_USUALLY = ('first run installs Horizon, usually 2-5 minutes; then '
                   'usually 20-60 s')
REFRESH_USUALLY = 'usually 2-20 s'


def write_config(path, cloud, spec, port, refresh_interval):
    # noauth on loopback: the demo's cloud and its clients are local;
    # with Keystone (--horizon) its tokens, as Horizon sends them.
    auth = 'keystone' if cloud.keystone else 'noauth'
    lines = ['[DEFAULT]', 'auth_strategy = %s' % auth, '',
             '[api]', 'host_ip = 127.0.0.1', 'port = %d' % port, '',
             '[worker]', 'refresh_interval = %d' % refresh_interval, '',
             '[document_cache]', 'backend = memory', '',
             '[openstack]', 'cloud = %s' % cloud.cloud_name]
    if cloud.cell_database:
        # As a deployer lets the worker read what no API shows (NUMA
        # cells, what the scheduler weighs hosts by).
        lines.append('cell_database_connections = %s' % cloud.cell_database)
    lines += ['', '[pci]']
    lines += ['alias = %s' % json.dumps(alias)
              for alias in spec.pci_aliases]
    if cloud.keystone:
        lines += ['', '[keystone_authtoken]'] + horizon.authtoken_lines(
            cloud.keystone)
    with open(path, 'w') as conf:
        conf.write('\n'.join(lines) + '\n')


def write_clouds_yaml(path, cloud, api_url):
    """The cloud's clouds.yaml, whose entries also lead to the demo's API.

    capacity_endpoint_override is how openstackclient users point
    ``openstack capacity`` at a service the catalog does not list (the
    test cloud has no Keystone, hence no catalog).
    """
    with open(cloud.clouds_yaml) as original:
        clouds = yaml.safe_load(original)
    for entry in clouds['clouds'].values():
        entry['capacity_endpoint_override'] = api_url
    with open(path, 'w') as out:
        yaml.safe_dump(clouds, out, default_flow_style=False)


def gpu_first(flavors):
    """GPU flavors first (by GPU type), then by name, as the report does."""
    return sorted(flavors, key=lambda f: (
        f['gpu'] is None, (f['gpu'] or {}).get('type', ''),
        f['name'].casefold()))


def wait_for_data(url, process, log_file, headers=None):
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit('flavor-exporter-all exited with %d; its log: %s'
                             % (process.returncode, log_file))
        try:
            response = requests.get(url, timeout=2, headers=headers)
            if response.status_code == 200:
                return response.json()
        # A timeout too: behind Keystone the first request waits for
        # keystonemiddleware's own token.
        except (requests.ConnectionError, requests.Timeout):
            pass
        time.sleep(0.5)
    raise SystemExit('no data from %s after %ds; the log: %s'
                     % (url, READY_TIMEOUT, log_file))


class Log:
    """The demo's log file: flavor-exporter-all's output and its steps.

    say() prints a line on the terminal and writes it, with the time, to
    the file; the file object is what flavor-exporter-all writes to.
    """

    def __init__(self, path):
        self.path = os.path.abspath(path)
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.file = open(self.path, 'w', buffering=1)
        self._lock = threading.Lock()

    def say(self, text):
        with self._lock:
            print(text, flush=True)
            self.file.write('%s demo: %s\n' % (
                time.strftime('%Y-%m-%d %H:%M:%S'), text.strip()))

    def close(self):
        self.file.close()


@contextlib.contextmanager
def step(log, doing, usually):
    """Say what the demo is doing and how long it usually takes.

    Every TICK seconds a line says it still is; at the end, how long it
    took. doing: "starting Nova + Placement", say.
    """
    log.say('%s (%s) ...' % (doing[0].upper() + doing[1:], usually))
    started = time.monotonic()
    finished = threading.Event()

    def tick():
        while not finished.wait(TICK):
            log.say('  ... still %s: %d s so far' % (
                doing, time.monotonic() - started))
    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        yield
    finally:
        finished.set()
        ticker.join()
    log.say('  done in %d s' % (time.monotonic() - started))


def default_log_file():
    """tox's log directory of the environment (.tox/demo/log), else TMPDIR.

    Not in the demo's temporary directory: the log stays when it stops.
    """
    directory = os.environ.get('TOX_ENV_DIR')
    if directory:
        return os.path.join(directory, 'log', 'demo.log')
    return os.path.join(tempfile.gettempdir(), 'flavor-exporter-demo.log')


def scenario_of(name):
    """The scenario a name (vgpu, vgpu.yaml) or a file path means.

    SystemExit with one line listing the scenarios when it means none.
    """
    if os.path.isfile(name):
        return name
    shipped = os.path.splitext(os.path.basename(name))[0]
    if shipped in scenario_mod.names():
        return shipped
    raise SystemExit('demo: no scenario %r; choose one of: %s (or name a '
                     'scenario file)'
                     % (name, ', '.join(scenario_mod.names())))


def check_port(port):
    """SystemExit with one line when something already listens on port.

    Checked before the cloud starts: another demo serving there would
    answer in this one's place.
    """
    with socket.socket() as sock:
        try:
            sock.bind(('127.0.0.1', port))
        except OSError as exc:
            raise SystemExit('demo: 127.0.0.1:%d is in use (%s; another demo '
                             'still running?): stop it, or pass --port N'
                             % (port, exc.strerror)) from None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--scenario', default='predecessor')
    parser.add_argument('--port', type=int, default=8780)
    parser.add_argument('--refresh-interval', type=int, default=30)
    parser.add_argument('--horizon', action='store_true',
                        help='Serve Horizon with the capacity panels too '
                             '(the cloud then has Keystone)')
    parser.add_argument('--horizon-port', type=int, default=8781)
    parser.add_argument('--log-file', default=None,
                        help='Where flavor-exporter-all and the demo log '
                             '(default: %s)' % default_log_file())
    args = parser.parse_args(argv)

    args.scenario = scenario_of(args.scenario)
    check_port(args.port)
    if args.horizon:
        check_port(args.horizon_port)
    spec = scenario_mod.load(args.scenario)
    log = Log(args.log_file or default_log_file())
    try:
        log.say('The demo logs to %s (flavor-exporter-all\'s output too).'
                % log.path)
        run(spec, args, log)
    except KeyboardInterrupt:
        pass
    finally:
        log.close()


def run(spec, args, log):
    release = cloud_venv.selected()
    if not cloud_venv.built(release):
        with step(log, 'building the test cloud\'s Python environment '
                  '(Nova and Placement %s) in %s' % (
                      release, cloud_venv.venv_dir(release)),
                  BUILD_USUALLY):
            cloud_venv.python(release)
    with tempfile.TemporaryDirectory(prefix='flavor-exporter-demo-') as tmp:
        # The cloud's directory is made inside: everything goes at the end.
        cloud = launcher.TestCloud(args.scenario, rootdir=tmp,
                                   keystone=args.horizon)
        try:
            with step(log, 'starting Nova + Placement %s: %s; %s, %s, %s'
                      % (release, spec.description,
                         counted(spec.hosts, 'host'),
                         counted(spec.flavors, 'flavor'),
                         counted(spec.servers, 'server')),
                      START_USUALLY):
                cloud.setUp()  # stops what it started when it fails
        except KeyboardInterrupt:
            return
        try:
            serve(cloud, spec, tmp, args, log)
        except KeyboardInterrupt:
            pass
        finally:
            cloud.cleanUp()


def counted(items, noun):
    """"1 host", "3 hosts"."""
    return '%d %s%s' % (len(items), noun, '' if len(items) == 1 else 's')


def banner(document, base, config, clouds_yaml, cloud, log):
    """What the demo serves and where to look: the terminal's last lines."""
    flavors = gpu_first(document['flavors'])
    gpus = ['%s x%d' % (f['gpu']['type'], f['gpu']['count'])
            if f['gpu'] else '' for f in flavors]
    # Columns as wide as their longest entry: a VGPU type with its traits
    # ("VGPU:CUSTOM_NVIDIA_11 x1") keeps the figures aligned.
    name_width = max([len(f['name']) for f in flavors] + [4])
    gpu_width = max([len(g) for g in gpus] + [3])
    lines = ['', 'flavor-exporter is serving the demo cloud:', '']
    for flavor, gpu in zip(flavors, gpus):
        lines.append('  %-*s  %-*s  available %3s of %3s' % (
            name_width, flavor['name'], gpu_width, gpu,
            flavor['available'], flavor['total']))
    bindir = os.path.dirname(sys.executable)
    lines.append(
        '\n  API      %s/v3/flavors/\n  portal   %s/v2/flavors/\n'
        '  legacy   %s/gpus/flavors/\n'
        '  docs     %s/docs/\n  metrics  %s/metrics\n'
        '  config   %s\n  log      %s\n\n'
        'From another shell, while this runs:\n\n'
        '  export OS_CLIENT_CONFIG_FILE=%s OS_CLOUD=%s\n'
        '  %s/flavor-exporter-report --config-file %s\n'
        '  %s/openstack capacity flavor list\n'
        '  %s/openstack --os-compute-api-version 2.87 hypervisor list\n'
        '\nCtrl-C stops.'
        % (base, base, base, base, base, config, log.path, clouds_yaml,
           cloud.cloud_name, bindir, config, bindir, bindir))
    return '\n'.join(lines)


def serve(cloud, spec, workdir, args, log):
    """Run flavor-exporter-all against cloud until SIGINT or SIGTERM."""
    base = 'http://127.0.0.1:%d' % args.port
    config = os.path.join(workdir, 'flavor-exporter.conf')
    write_config(config, cloud, spec, args.port, args.refresh_interval)
    clouds_yaml = os.path.join(workdir, 'clouds.yaml')
    write_clouds_yaml(clouds_yaml, cloud, base)
    # Unbuffered: oslo.log writes to stdout, here the log file, which
    # would otherwise hold the lines back in 8 KB blocks.
    env = dict(os.environ, OS_CLIENT_CONFIG_FILE=clouds_yaml,
               OS_CLOUD=cloud.cloud_name, PYTHONUNBUFFERED='1')
    # Its log lines go to the log file, never to the terminal: they
    # would scroll the banner away.
    process = subprocess.Popen(
        [sys.executable, '-m', 'flavor_exporter.cmd.all',
         '--config-file', config], env=env, stdin=subprocess.DEVNULL,
        stdout=log.file, stderr=subprocess.STDOUT)
    try:
        headers = ({'X-Auth-Token': keystone_catalog.admin_token(
            cloud.keystone)} if cloud.keystone else None)
        with step(log, 'starting flavor-exporter-all and its first read '
                  'of the cloud', REFRESH_USUALLY):
            document = wait_for_data(base + '/v3/flavors/', process,
                                     log.path, headers)
        text = banner(document, base, config, clouds_yaml, cloud, log)
        if args.horizon:
            text = text.replace('\nCtrl-C stops.', serve_horizon(
                cloud, base, workdir, args, log) + '\n\nCtrl-C stops.')
        print(text, flush=True)
        log.file.write(text + '\n')
        # Blocked only now: the children must not inherit the mask.
        stop_signals = {signal.SIGINT, signal.SIGTERM}
        signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)
        watch(process, log, stop_signals)
    finally:
        process.terminate()
        process.wait(timeout=30)


def serve_horizon(cloud, base, workdir, args, log):
    """Horizon with the capacity panels; the banner's lines about it.

    Horizon is stopped when the demo's process ends (its fixture's
    cleanup is registered with the cloud's: the temporary directory).
    """
    keystone = cloud.keystone
    horizon.register_capacity(keystone, base)
    server = horizon.HorizonServer(keystone['url'], workdir,
                                   port=args.horizon_port)
    with step(log, 'starting Horizon 27 with the capacity panels',
              HORIZON_USUALLY):
        server.setUp()
    cloud.addCleanup(server.cleanUp)
    return ('\nHorizon    %s  (Project > Compute > Capacity, '
            'Admin > Compute > Capacity)\n'
            '  admin    %s / %s\n  member   %s / %s  (project %s)\n'
            '  keystone %s/v3\n'
            'With Keystone the API wants a token: openstack token issue.\n'
            % (server.url, keystone['admin_user'],
               keystone['admin_password'], keystone['member_user'],
               keystone['member_password'], keystone['member_project'],
               keystone['url']))


def watch(process, log, stop_signals):
    """Wait for a stop signal, keeping the banner the terminal's last.

    One line, once, if flavor-exporter-all logs an ERROR or exits.
    """
    with open(log.path, errors='replace') as reading:
        reading.seek(0, os.SEEK_END)
        told = False
        while not signal.sigtimedwait(stop_signals, 2):
            if process.poll() is not None:
                print('flavor-exporter-all exited with %d: see %s' % (
                    process.returncode, log.path), flush=True)
                return
            if not told and ' ERROR ' in reading.read():
                print('flavor-exporter-all logged an ERROR: see %s'
                      % log.path, flush=True)
                told = True


if __name__ == '__main__':
    main()
