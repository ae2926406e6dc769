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
from oslo_config import cfg

worker_group = cfg.OptGroup(
    'worker', title='Worker options',
    help='Options for the worker that reads the cloud and fills the cache.')

opts = [
    cfg.IntOpt('refresh_interval', default=150, min=10,
               help='Seconds between two refreshes of the capacity data.'),
    cfg.IntOpt('initial_delay', default=0, min=0,
               help='Seconds to wait before the first refresh, unless an '
                    'API process finds no data and asks for one ([api] '
                    'compute_on_miss).'),
    cfg.IntOpt('flavor_access_max_age', default=900, min=0,
               help='Seconds a private flavor\'s access list (the projects '
                    'it is shared with, one os-flavor-access call per '
                    'private flavor) is kept before the worker reads it '
                    'again. A new flavor\'s list is read at once; a grant '
                    'or revocation of access shows in the per-project '
                    'documents within this age plus one refresh_interval. '
                    '0 reads every list at every refresh.'),
]


def register_opts(conf):
    conf.register_group(worker_group)
    conf.register_opts(opts, group=worker_group)


def list_opts():
    return {worker_group: opts}
