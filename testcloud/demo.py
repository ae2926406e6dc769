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
Everything it writes is in one temporary directory, removed when it stops.

    python -m testcloud.demo [--scenario NAME]
        [--port 8780]
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import requests
import yaml

from testcloud import launcher
from testcloud import scenario as scenario_mod

READY_TIMEOUT = 120


def write_config(path, cloud, spec, port, refresh_interval):
    # noauth on loopback: the demo's cloud and its clients are local.
    lines = ['[DEFAULT]', 'auth_strategy = noauth', '',
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


def wait_for_data(url, process):
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit('flavor-exporter-all exited with %d'
                             % process.returncode)
        try:
            response = requests.get(url, timeout=2)
            if response.status_code == 200:
                return response.json()
        except requests.ConnectionError:
            pass
        time.sleep(0.5)
    raise SystemExit('no data from %s after %ds' % (url, READY_TIMEOUT))


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
    args = parser.parse_args(argv)

    args.scenario = scenario_of(args.scenario)
    check_port(args.port)
    spec = scenario_mod.load(args.scenario)
    print('Starting Nova + Placement: %s ...' % spec.description,
          flush=True)
    with tempfile.TemporaryDirectory(prefix='flavor-exporter-demo-') as tmp:
        # The cloud's directory is made inside: everything goes at the end.
        cloud = launcher.TestCloud(args.scenario, rootdir=tmp)
        try:
            cloud.setUp()  # stops what it started when it fails
        except KeyboardInterrupt:
            return
        try:
            serve(cloud, spec, tmp, args)
        except KeyboardInterrupt:
            pass
        finally:
            cloud.cleanUp()


def serve(cloud, spec, workdir, args):
    """Run flavor-exporter-all against cloud until SIGINT or SIGTERM."""
    base = 'http://127.0.0.1:%d' % args.port
    config = os.path.join(workdir, 'flavor-exporter.conf')
    write_config(config, cloud, spec, args.port, args.refresh_interval)
    clouds_yaml = os.path.join(workdir, 'clouds.yaml')
    write_clouds_yaml(clouds_yaml, cloud, base)
    env = dict(os.environ, OS_CLIENT_CONFIG_FILE=clouds_yaml,
               OS_CLOUD=cloud.cloud_name)
    process = subprocess.Popen(
        [sys.executable, '-m', 'flavor_exporter.cmd.all',
         '--config-file', config], env=env)
    try:
        document = wait_for_data(base + '/v3/flavors/', process)
        print('\nflavor-exporter is serving the demo cloud:\n')
        for flavor in gpu_first(document['flavors']):
            gpu = flavor['gpu']
            print('  %-28s %-10s available %3s of %3s' % (
                flavor['name'],
                '%s x%d' % (gpu['type'], gpu['count']) if gpu else '',
                flavor['available'], flavor['total']))
        bindir = os.path.dirname(sys.executable)
        print('\n  API      %s/v3/flavors/\n  portal   %s/v2/flavors/\n'
              '  legacy   %s/gpus/flavors/\n'
              '  docs     %s/docs/\n  metrics  %s/metrics\n'
              '  config   %s\n\n'
              'From another shell, while this runs:\n\n'
              '  export OS_CLIENT_CONFIG_FILE=%s OS_CLOUD=%s\n'
              '  %s/flavor-exporter-report --config-file %s\n'
              '  %s/openstack capacity flavor list\n'
              '  %s/openstack --os-compute-api-version 2.87 hypervisor list\n'
              '\nCtrl-C stops.'
              % (base, base, base, base, base, config, clouds_yaml,
                 cloud.cloud_name, bindir, config, bindir, bindir),
              flush=True)
        # Blocked only now: the children must not inherit the mask.
        stop_signals = {signal.SIGINT, signal.SIGTERM}
        signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)
        signal.sigwait(stop_signals)
    finally:
        process.terminate()
        process.wait(timeout=30)


if __name__ == '__main__':
    main()
