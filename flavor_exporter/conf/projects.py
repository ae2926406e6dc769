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
"""[projects]: the per-project documents (/v3/projects/{project_id}/).

A project's quota is read only when someone asks about the project: the
API asks the leading worker through the cache, the worker reads the
quota (one to four calls) in a thread of its own, beside the refreshes,
and publishes the project's headroom; the API joins it with the
cloud-wide numbers of each refresh. These options bound what that costs
the cloud and the API, and how old an answer may be.
"""

from oslo_config import cfg

group = cfg.OptGroup(
    'projects', title='Per-project documents',
    help='What a project can start: capacity on the hosts it may use, '
         'and its quota headroom.')

opts = [
    cfg.IntOpt('max_age', default=300, min=10,
               help='Seconds a project\'s quota reading is used for. A '
                    'project asked about again within this time costs '
                    'the cloud nothing; older, it is served marked stale '
                    'while the quota is read again. Also how long a '
                    'project Nova does not know is answered 404 without '
                    'asking Nova again.'),
    cfg.IntOpt('forget_after', default=900, min=10,
               help='Seconds after the last question about a project '
                    'until memcached forgets its quota reading.'),
    cfg.FloatOpt('wait', default=3.0, min=0.0, max=30.0,
                 help='Seconds an API request for a project never '
                      'answered before waits for the worker\'s first '
                      'answer (usually about a second) before a 503 with '
                      'Retry-After. An answer that is only old is served '
                      'at once, marked stale.'),
    cfg.IntOpt('max_waiting', default=4, min=0,
               help='API requests of one process that may wait for a '
                    'first answer at the same time, at most [api] threads '
                    'minus one; more are answered 503 with Retry-After at '
                    'once, so that waiting requests never hold the '
                    'threads other routes need.'),
    cfg.IntOpt('retry_after', default=2, min=1,
               help='The Retry-After (seconds) of that 503.'),
    cfg.IntOpt('new_per_client', default=30, min=1,
               help='Projects not asked about yet that one client (an '
                    'authenticated user, else an address) may ask about '
                    'per minute, not counting those Keystone listed at '
                    'the worker\'s last reading (list_interval) nor '
                    'those the worker has found real since: a share '
                    'spent on projects still being looked up is a 503 '
                    'with Retry-After, one spent on unknown projects a '
                    '429. A crowd of made-up ids uses up its own '
                    'budget, not the worker\'s time for real projects.'),
    cfg.IntOpt('list_interval', default=300, min=0,
               help='Seconds between two readings of Keystone\'s project '
                    'list (GET /v3/projects, paginated) by the leading '
                    'worker, in a thread of its own; the projects listed '
                    'are asked about without counting against '
                    'new_per_client. 0 never lists them. When the '
                    'worker\'s credentials may not list projects, every '
                    'new project counts until the worker finds it real, '
                    'and /v3/status says so.'),
    cfg.FloatOpt('poll_interval', default=1.0, min=0.1, max=60.0,
                 help='Seconds between two looks of the leading worker '
                      'for projects asked about.'),
    cfg.IntOpt('max_per_poll', default=50, min=1,
               help='Projects whose quota the worker reads at one look, '
                    'in the order they were asked; the others wait for '
                    'the next.'),
    cfg.IntOpt('concurrency', default=4, min=1,
               help='Quota readings the worker makes at the same time. A '
                    'quota API that hangs holds these, never the '
                    'refreshes.'),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return {group: opts}
