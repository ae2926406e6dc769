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

A project's numbers are computed only when someone asks for them: the
API asks the leading worker through the cache, the worker reads that
project's quota (one to three calls) and computes from the snapshot it
holds. These options bound what that costs and how old an answer may be.
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
                    'the cloud nothing; its document is recomputed from '
                    'each new refresh. Older, the next question reads the '
                    'quota again.'),
    cfg.IntOpt('forget_after', default=900, min=10,
               help='Seconds after the last question about a project '
                    'until the worker stops recomputing its document with '
                    'each refresh, and memcached forgets it.'),
    cfg.FloatOpt('wait', default=5.0, min=0.0, max=30.0,
                 help='Seconds an API request for a project the worker '
                      'has not answered for yet waits for its answer '
                      'before a 503 with Retry-After.'),
    cfg.IntOpt('retry_after', default=2, min=1,
               help='The Retry-After (seconds) of that 503.'),
    cfg.FloatOpt('poll_interval', default=1.0, min=0.1, max=60.0,
                 help='Seconds between two looks of the leading worker '
                      'for projects asked about.'),
    cfg.IntOpt('max_per_poll', default=50, min=1,
               help='Projects whose quota the worker reads at one look; '
                    'the others wait for the next.'),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return {group: opts}
