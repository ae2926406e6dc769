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
"""[checks] and [weighers]: the set check (POST /v3/checks).

A check places a set of servers the way Nova's scheduler would, request
by request (capacity/planning/set_check/). The API asks the leading worker
through the cache and waits for its answer, as for projects; [checks]
bounds what that costs. [weighers] mirrors the options of nova.conf's
[filter_scheduler] (and [metrics]) that decide where Nova puts a server
among the hosts that fit: the weighers and their multipliers, under the
same names (common/nova_conf.py says which to set when nova.conf's
section is pasted instead).
"""

from oslo_config import cfg

group = cfg.OptGroup(
    'checks', title='Set checks',
    help='Whether a set of servers can start together, and where.')

opts = [
    cfg.BoolOpt('enabled', default=True,
                help='Answer POST /v3/checks. The worker then reads the '
                     'compute nodes\' scheduler figures (os-hypervisors: '
                     'free RAM and disk, I/O operations, instances) with '
                     'every usage reading, one listing more per refresh. '
                     'Disabled, the route answers 404.'),
    cfg.IntOpt('max_servers', default=50, min=1, max=500,
               help='Servers one check may ask for, all requests '
                    'together; a larger set is answered 400.'),
    cfg.FloatOpt('wait', default=5.0, min=0.0, max=30.0,
                 help='Seconds an API request waits for the worker\'s '
                      'answer (usually well under a second) before a 503 '
                      'with Retry-After; asking again then finds the '
                      'answer.'),
    cfg.IntOpt('max_waiting', default=4, min=0,
               help='API requests of one process that may wait for a '
                    'check at the same time, at most [api] threads minus '
                    'one; more are answered 503 with Retry-After at once.'),
    cfg.IntOpt('retry_after', default=2, min=1,
               help='The Retry-After (seconds) of that 503.'),
    cfg.IntOpt('new_per_client', default=30, min=1,
               help='Checks not asked before that one client (an '
                    'authenticated user, else an address) may ask for per '
                    'minute; more are answered 429. The same check asked '
                    'again for the same data is answered from the cache '
                    'and costs nothing.'),
    cfg.FloatOpt('poll_interval', default=0.1, min=0.05, max=10.0,
                 help='Seconds between two looks of the leading worker '
                      'for checks asked for (one memcached read each).'),
    cfg.IntOpt('max_per_poll', default=20, min=1,
               help='Checks the worker answers at one look, in the order '
                    'they were asked; the others wait for the next.'),
    cfg.IntOpt('answer_ttl', default=600, min=10,
               help='Seconds memcached keeps an answer; it is used only '
                    'while it is for the data published now.'),
]

scheduler_group = cfg.OptGroup(
    'weighers', title='The cloud\'s Nova scheduler weighers',
    help='As the cloud\'s nova.conf sets them: where Nova puts a server '
         'among the hosts that fit. Each multiplier may also be set per '
         'host aggregate in its metadata, under the same name; Nova and '
         'this service then use the smallest value of the host\'s '
         'aggregates.')


def _multiplier(name, default, what):
    return cfg.FloatOpt(name, default=default,
                        help='nova.conf [filter_scheduler] %s: %s' % (
                            name, what))


scheduler_opts = [
    cfg.ListOpt('weight_classes',
                default=['nova.scheduler.weights.all_weighers'],
                help='nova.conf [filter_scheduler] weight_classes: the '
                     'weighers the scheduler runs, by class path or name; '
                     'the default runs all of them.'),
    cfg.IntOpt('host_subset_size', default=1, min=1,
               help='nova.conf [filter_scheduler] host_subset_size. Above '
                    '1 Nova picks at random among that many best hosts: '
                    'a check then names the best and says so.'),
    cfg.BoolOpt('shuffle_best_same_weighed_hosts', default=False,
                help='nova.conf [filter_scheduler] '
                     'shuffle_best_same_weighed_hosts. Either way, a check '
                     'names the hosts of equal best weight: Nova\'s order '
                     'among them is not defined.'),
    cfg.IntOpt('max_placement_results', default=1000, min=1,
               help='nova.conf [scheduler] max_placement_results: Nova '
                    'weighs at most that many of the hosts Placement '
                    'offers. A check with more hosts that fit names the '
                    'best of all and says so.'),
    _multiplier('ram_weight_multiplier', 1.0, 'free RAM (spreads).'),
    _multiplier('cpu_weight_multiplier', 1.0, 'free vCPUs (spreads).'),
    _multiplier('disk_weight_multiplier', 1.0, 'free disk (spreads).'),
    _multiplier('io_ops_weight_multiplier', -1.0,
                'I/O operations under way (builds, resizes...).'),
    _multiplier('pci_weight_multiplier', 1.0,
                'hosts with fewer free PCI devices first.'),
    _multiplier('soft_affinity_weight_multiplier', 1.0,
                'members of a soft-affinity group on the host.'),
    _multiplier('soft_anti_affinity_weight_multiplier', 1.0,
                'members of a soft-anti-affinity group on the host.'),
    _multiplier('build_failure_weight_multiplier', 1000000.0,
                'recent failed builds on the host (no API shows them: '
                'taken as none).'),
    _multiplier('hypervisor_version_weight_multiplier', 1.0,
                'newer hypervisors first.'),
    _multiplier('num_instances_weight_multiplier', 0.0,
                'instances on the host.'),
    _multiplier('image_props_weight_multiplier', 0.0,
                'image properties of the host\'s instances (2025.1 and '
                'later; not modelled: a check says so when it is not 0).'),
    _multiplier('cross_cell_move_weight_multiplier', 1000000.0,
                'moves only; no effect on a boot.'),
    cfg.FloatOpt('metrics_weight_multiplier', default=1.0,
                 help='nova.conf [metrics] weight_multiplier.'),
    cfg.ListOpt('metrics_weight_setting', default=[],
                help='nova.conf [metrics] weight_setting; not modelled '
                     '(no API shows the metrics): a check says so when it '
                     'is set.'),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)


def list_opts():
    return {group: opts, scheduler_group: scheduler_opts}
