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
from oslo_config import types


class HostPort(types.String):
    """host:port, the port required: memcached has no port to assume.

    Refused while the configuration is read (common/config_check.py),
    in one line; a server without its port used to fail later, in every
    API and worker process the launcher forked, again and again.
    """

    def __init__(self):
        super().__init__(type_name='host:port value')

    def __call__(self, value):
        value = super().__call__(value).strip()
        host, sep, port = value.rpartition(':')
        if not sep or not host.strip('[]') or not port.isdigit() or \
                not 0 < int(port) < 65536:
            raise ValueError('%r is not host:port; add the port (memcached '
                             'listens on 11211 by default)' % value)
        return value


# Not "[cache]": that group belongs to oslo.cache, which keystonemiddleware
# registers on the same CONF with options of the same names.
cache_group = cfg.OptGroup(
    'document_cache', title='Document cache options',
    help='Where the worker publishes the rendered documents that the API '
         'serves.')

opts = [
    cfg.StrOpt('backend', default='memcached',
               choices=[('memcached', 'memcached servers, shared by any '
                         'number of API and worker processes.'),
                        ('memory', 'Process memory. Only meaningful for '
                         'flavor-exporter-all, where API and worker share '
                         'one process.')],
               help='Cache backend.'),
    cfg.ListOpt('memcache_servers', default=['127.0.0.1:11211'],
                item_type=HostPort(),
                help='memcached servers as host:port. With several '
                     'servers keys are spread by consistent hashing.'),
    cfg.StrOpt('key_prefix', default='flavor-exporter',
               help='Prefix of every cache key, so that several '
                    'deployments can share memcached servers.'),
    cfg.IntOpt('expiration_time', default=86400, min=0,
               help='Seconds a published document lives in the cache. '
                    'Keep it well above [worker] refresh_interval so that '
                    'the API serves the last good data (marked stale) '
                    'when refreshes fail.'),
    cfg.FloatOpt('socket_timeout', default=1.0, min=0.01,
                 help='Timeout in seconds of one memcached operation.'),
    cfg.IntOpt('pool_maxsize', default=16, min=1,
               help='Maximum connections per memcached server and '
                    'process.'),
    cfg.IntOpt('dead_retry', default=5, min=0,
               help='Seconds before a memcached server that failed is '
                    'tried again.'),
]


def register_opts(conf):
    conf.register_group(cache_group)
    conf.register_opts(opts, group=cache_group)


def list_opts():
    return {cache_group: opts}
