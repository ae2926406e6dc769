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

coordination_group = cfg.OptGroup(
    'coordination', title='Coordination options',
    help='How several workers agree which one of them refreshes: the '
         'others stand by and take over when it stops.')

opts = [
    cfg.StrOpt('backend_url',
               help='tooz coordination backend URL, for example '
                    'redis://host:6379, etcd3+http://host:2379 or '
                    'zookeeper://host:2181. Unset: '
                    'memcached://<the first [document_cache] '
                    'memcache_servers server>, no new infrastructure. '
                    'The leader holds a lock whose lease it renews; with '
                    'memcached the lease is 30 seconds, set by '
                    '?timeout=SECONDS in the URL (also the socket '
                    'timeout). Unused with [document_cache] backend = '
                    'memory.'),
    cfg.IntOpt('check_interval', default=5, min=1,
               help='Seconds between two checks of the leadership by '
                    'each worker. A worker that stopped is replaced '
                    'within its lease plus this.'),
]


def register_opts(conf):
    conf.register_group(coordination_group)
    conf.register_opts(opts, group=coordination_group)


def list_opts():
    return {coordination_group: opts}
