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
"""Benchmark: from Nova's action to a changed answer of the served API.

The real test cloud (Nova + Placement, testcloud's disabled_host
scenario) sends its notifications to a RabbitMQ of the benchmark's own;
two flavor-exporter-worker processes listen in one pool (leadership in
memcached) and flavor-exporter-api serves with its default processes,
every option at its default but [worker] refresh_interval (an hour: all
that changes comes from a notification). Each round of testcloud/
changes.py makes every kind of change once, one at a time with a quiet
spell between them (so each is a lone change, refreshed on the leading
edge); the seconds from the moment a client polling Nova every 0.02 s
sees the action end to the first answer of /v3/flavors/{name} (polled
every 0.02 s, a new connection each) that says it.

Reported: p50, p95 and worst per kind and overall; then, with no
requests, what the freshness machinery costs while idle: memcached reads
a second of the API processes (generation pointer) and of the workers
(the leader's looks), and their CPU.

    tox -e bench -- freshness    (python -m tools.bench.freshness --help)
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

from pymemcache.client import base as memcache

from testcloud import changes
from testcloud import launcher
from testcloud import loopback

RESULTS = os.path.join('bench-results', 'freshness.json')
# Seconds of each idle window the costs are measured over.
IDLE_WINDOW = 20.0
CLK_TCK = os.sysconf('SC_CLK_TCK')


def _percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _summary(values):
    return {'count': len(values),
            'p50_seconds': round(_percentile(values, 0.5), 3),
            'p95_seconds': round(_percentile(values, 0.95), 3),
            'worst_seconds': round(max(values), 3)}


def _write_config(path, cloud, memcached, rabbit, port, options=()):
    """options: GROUP.NAME=VALUE, to compare with other settings."""
    with open(path, 'w') as out:
        for option in options:
            name, value = option.split('=', 1)
            group, name = name.split('.', 1)
            out.write('[%s]\n%s = %s\n' % (group, name, value))
        out.write('[DEFAULT]\nauth_strategy = noauth\n'
                  '[api]\nport = %d\n'
                  '[worker]\nrefresh_interval = 3600\n'
                  '[document_cache]\nmemcache_servers = %s\n'
                  '[coordination]\nbackend_url = memcached://%s?timeout=5\n'
                  '[openstack]\ncloud = %s\nnotification_transport_url = '
                  '%s\n[pci]\n' % (port, memcached.servers[0],
                                   memcached.servers[0], cloud.cloud_name,
                                   rabbit.url))


def _start(name, config, env, workdir):
    log = open(os.path.join(workdir, name + '.log'), 'w')
    script = os.path.join(os.path.dirname(sys.executable), name.rsplit(
        '.', 1)[0])
    return subprocess.Popen([script, '--config-file', config], env=env,
                            stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _stop(process):
    if process.poll() is None:
        os.killpg(process.pid, 15)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait(15)


def _tree(pid):
    """pid and its descendants (the API forks its processes)."""
    children = collections.defaultdict(list)
    for name in os.listdir('/proc'):
        if name.isdigit():
            try:
                with open('/proc/%s/stat' % name) as stat:
                    fields = stat.read().rsplit(')', 1)[1].split()
            except OSError:
                continue
            children[int(fields[1])].append(int(name))
    found, todo = [], [pid]
    while todo:
        each = todo.pop()
        found.append(each)
        todo.extend(children[each])
    return found


def _cpu_seconds(pids):
    total = 0
    for pid in pids:
        try:
            with open('/proc/%d/stat' % pid) as stat:
                fields = stat.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLK_TCK


def _gets(memcached):
    host, port = memcached.servers[0].rsplit(':', 1)
    client = memcache.Client((host, int(port)))
    try:
        return int(client.stats()[b'cmd_get'])
    finally:
        client.close()


def _idle(memcached, groups):
    """Memcached reads and CPU a second over IDLE_WINDOW, by group."""
    pids = {name: _tree(process.pid) for name, process in groups.items()}
    gets, cpu = _gets(memcached), {name: _cpu_seconds(p)
                                   for name, p in pids.items()}
    time.sleep(IDLE_WINDOW)
    return ((_gets(memcached) - gets) / IDLE_WINDOW,
            {name: (_cpu_seconds(p) - cpu[name]) / IDLE_WINDOW
             for name, p in pids.items()}, pids)


def measure(rounds, workdir, options=()):
    memcached = loopback.MemcachedFixture()
    rabbit = loopback.RabbitMQFixture()
    memcached.setUp()
    rabbit.setUp()
    cloud = launcher.TestCloud(changes.SCENARIO,
                               notification_url=rabbit.url,
                               notification_format='both')
    cloud.setUp()
    processes = {}
    try:
        port = loopback.free_port()
        config = os.path.join(workdir, 'flavor-exporter.conf')
        _write_config(config, cloud, memcached, rabbit, port, options)
        env = dict(os.environ, **cloud.env())
        for name in ('flavor-exporter-worker.1', 'flavor-exporter-worker.2',
                     'flavor-exporter-api.1'):
            processes[name] = _start(name, config, env, workdir)
        loopback.wait_for_port(port, timeout=120)
        api = changes.Api(port)
        deadline = time.monotonic() + 300
        while not _first_served(api):
            if time.monotonic() > deadline:
                raise RuntimeError('nothing served after 300 s')
            time.sleep(0.2)
        conn = cloud.connection()
        by_kind = collections.defaultdict(list)
        never = []
        driver = changes.Changes(conn)
        for _ in range(rounds):
            for kind, make in driver.round():
                time.sleep(driver.quiet)
                change = make()
                seconds = changes.watch(api, change)
                if seconds is None:
                    never.append(change.what)
                else:
                    by_kind[kind].append(seconds)
        # Each measured change, each aggregate made for one, and a round's
        # cleanup (an aggregate and a flavor deleted) is one change:
        # more refreshes mean some change cost two.
        figures = {'changes_made': rounds * (len(changes.KINDS) + 3),
                   'notified_refreshes': _notified_refreshes(workdir),
                   'scenario': changes.SCENARIO, 'rounds': rounds,
                   'options': list(options),
                   'never_served': never,
                   'kinds': {kind: _summary(by_kind[kind])
                             for kind in changes.KINDS if by_kind[kind]},
                   'all': _summary([s for v in by_kind.values()
                                    for s in v])}
        time.sleep(3)
        api_process = processes['flavor-exporter-api.1']
        workers = {name: p for name, p in processes.items()
                   if 'worker' in name}
        both, cpu, pids = _idle(memcached, dict(
            workers, api=api_process))
        for name in workers:
            _stop(processes.pop(name))
        time.sleep(2)
        api_only, api_cpu, api_pids = _idle(memcached,
                                            {'api': api_process})
        # The parent only forks and watches: the serving processes.
        serving = max(1, len(api_pids['api']) - 1)
        figures['idle'] = {
            'api_processes': serving,
            'api_memcached_reads_per_second_per_process': round(
                api_only / serving, 2),
            'api_cpu_percent_per_process': round(
                100 * api_cpu['api'] / serving, 3),
            'workers_memcached_reads_per_second': round(
                both - api_only, 2),
            'workers_cpu_percent': {
                name: round(100 * cpu[name], 3) for name in workers},
        }
        return figures
    finally:
        for process in processes.values():
            _stop(process)
        cloud.cleanUp()
        rabbit.cleanUp()
        memcached.cleanUp()


def _notified_refreshes(workdir):
    """The refreshes the workers' logs say notifications started."""
    count = 0
    for name in os.listdir(workdir):
        if name.startswith('flavor-exporter-worker'):
            with open(os.path.join(workdir, name)) as log:
                count += log.read().count('Nova announced changes of')
    return count


def _first_served(api):
    try:
        return changes.small_is(4)(api)
    except Exception:
        return False


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--rounds', type=int, default=5,
                        help='rounds of every kind of change')
    parser.add_argument('--option', action='append', default=[],
                        metavar='GROUP.NAME=VALUE',
                        help='an option other than its default (to '
                             'compare; the figures are the defaults\')')
    parser.add_argument('--output', default=RESULTS)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as workdir:
        figures = measure(args.rounds, workdir, args.option)
    os.makedirs(os.path.dirname(args.output) or '.', exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump(figures, out, indent=2, sort_keys=True)
    print(json.dumps(figures, indent=2, sort_keys=True))


if __name__ == '__main__':
    main()
