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
"""A portal's first day: N real projects asked about at once, one client.

Against the real test cloud behind a real Keystone (testcloud, the
predecessor's scenario) and a real memcached, in this process: creates
N projects in Keystone, lets the worker's KnownProjects list them, asks
about all of them as one client through ProjectRequests (the API's
rules: charged or free), and runs the leading worker's ProjectAnswers
every [projects] poll_interval until every project is answered. Then
quota readings per second at 1, 4 and 8 at once (QuotaReader alone),
which is what bounds the first day. Figures in
bench-results/project_first_day.json.

    tox -e functional --notest
    .tox/functional/bin/python -m tools.bench.project_first_day \
        [--projects 2000]
"""

import argparse
import concurrent.futures
import json
import os
import sys
import time
import uuid

import requests

from flavor_exporter.common import clouds
from flavor_exporter.common import config
from flavor_exporter.publication import publisher
from flavor_exporter.worker import projects
from flavor_exporter.worker import quotas
from flavor_exporter.worker import refresh
from testcloud import keystone_catalog
from testcloud import launcher
from testcloud import loopback

RESULTS = os.path.join('bench-results', 'project_first_day.json')


def create_projects(keystone, count, threads=8):
    token = keystone_catalog.admin_token(keystone)
    prefix = 'bench-%s' % uuid.uuid4().hex[:6]

    def create(i):
        response = requests.post(
            keystone['url'] + '/v3/projects', timeout=60,
            headers={'X-Auth-Token': token},
            json={'project': {'name': '%s-%d' % (prefix, i),
                              'domain_id': 'default'}})
        response.raise_for_status()
        return response.json()['project']['id']
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return list(pool.map(create, range(count)))


def _configure(cloud, memcached):
    config.parse_args([], default_config_files=[])
    conf = config.CONF
    os.environ.update(cloud.env())
    conf.set_override('cloud', cloud.cloud_name, group='openstack')
    conf.set_override('backend', 'memcached', group='document_cache')
    conf.set_override('memcache_servers', memcached.servers,
                      group='document_cache')
    return conf


def first_day(conf, store, refresher, ids):
    """Ask about every id at once as one client; until all answered."""
    answers = projects.ProjectAnswers(conf, store, refresher,
                                      clouds.default(conf))
    try:
        started = time.perf_counter()
        answers._listing.list_now(refresher.client)
        listing = answers._listing.status
        outcomes = {}
        for project_id in ids:
            outcome = store.project_requests.ask(
                project_id, 600, 'portal', conf.projects.new_per_client,
                time.time())
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        timeline = []
        answered = 0
        while answered < len(ids):
            answered += answers.answer()
            timeline.append((round(time.perf_counter() - started, 1),
                             answered))
            time.sleep(conf.projects.poll_interval)
        seconds = time.perf_counter() - started
    finally:
        answers.close()
    return {'projects': len(ids), 'asked': outcomes,
            'listing_seconds': listing['seconds'],
            'listed': listing['listed'],
            'seconds_until_all_answered': round(seconds, 1),
            'projects_per_second': round(len(ids) / seconds, 1),
            'unreadable': answers.status['unreadable'],
            'timeline': timeline[::max(1, len(timeline) // 20)]}


def quota_reads(conf, client, ids, at_once):
    reader = quotas.QuotaReader(conf)
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(at_once) as pool:
        list(pool.map(lambda pid: reader.read(client, pid), ids))
    return round(len(ids) / (time.perf_counter() - started), 1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--projects', type=int, default=2000)
    parser.add_argument('--sample', type=int, default=100,
                        help='projects per quota-reading measurement')
    parser.add_argument('--output', default=RESULTS)
    args = parser.parse_args(argv)
    report = {'load_average_before': os.getloadavg()}
    with launcher.TestCloud('predecessor', keystone=True) as cloud, \
            loopback.MemcachedFixture() as memcached:
        started = time.perf_counter()
        ids = create_projects(cloud.keystone, args.projects)
        report['create_seconds'] = round(time.perf_counter() - started, 1)
        print('%d projects created in %.1f s' % (
            len(ids), report['create_seconds']), flush=True)
        conf = _configure(cloud, memcached)
        store = publisher.Publisher.from_conf(conf)
        try:
            refresher = refresh.Refresher(conf, store)
            if not refresher.refresh():
                raise RuntimeError(refresher.last_error)
            report['quota_reads_per_second'] = {
                str(n): quota_reads(conf, refresher.client,
                                    ids[:args.sample], n)
                for n in (1, 4, 8)}
            print('quota readings per second:',
                  report['quota_reads_per_second'], flush=True)
            report['first_day'] = first_day(conf, store, refresher, ids)
            print(json.dumps(report['first_day']), flush=True)
        finally:
            store.close()
    os.makedirs(os.path.dirname(args.output) or '.', exist_ok=True)
    with open(args.output, 'w') as out:
        json.dump(report, out, indent=2)
    print('written to %s' % args.output)


if __name__ == '__main__':
    sys.exit(main())
