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

api_group = cfg.OptGroup(
    'api', title='API options',
    help='Options for the flavor-exporter HTTP API.')

opts = [
    cfg.HostAddressOpt('host_ip',
                       default='127.0.0.1',
                       help='The IP address or hostname the API listens on. '
                            'With [DEFAULT] auth_strategy = noauth, an '
                            'address other than loopback needs [api] '
                            'noauth_beyond_loopback.'),
    cfg.BoolOpt('noauth_beyond_loopback', default=False,
                help='Serve with [DEFAULT] auth_strategy = noauth on an '
                     '[api] host_ip other than loopback: anyone who '
                     'reaches the port reads the capacity data. For a '
                     'container whose port is published on the host\'s '
                     'loopback only, or behind a proxy that '
                     'authenticates. Otherwise the commands refuse to '
                     'start.'),
    cfg.PortOpt('port', default=8780,
                help='The TCP port the API listens on.'),
    cfg.IntOpt('workers', min=1,
               help='Number of API processes of flavor-exporter-api. '
                    'Default: the number of CPUs, which measured best '
                    'for serving cached documents: against twice as '
                    'many, more requests a second and a shorter tail '
                    '(doc/source/performance.rst).'),
    cfg.IntOpt('threads', default=2, min=1,
               help='Number of threads running the application in each '
                    'API process (granian\'s blocking threads; '
                    'flavor-exporter-api runs [api] workers processes, '
                    'flavor-exporter-all one). Connections are held by '
                    'the server, not by these threads. Two keep a request '
                    'that waits (a project asked for the first time) from '
                    'holding the others; 1 serves a single client about a '
                    'third faster, and then a project\'s first request is '
                    'answered 503 with Retry-After instead of waiting '
                    '(doc/source/performance.rst).'),
    cfg.IntOpt('listen_backlog', default=1024, min=128,
               help='Listen queue size of the API socket (capped by the '
                    'kernel\'s net.core.somaxconn).'),
    cfg.FloatOpt('request_timeout', default=10.0, min=0.1, max=60.0,
                 help='Seconds a client has to send the head of a request '
                      '(its request line and headers), counted from '
                      'connecting or from its previous answer. A '
                      'connection that has not sent one by then is closed, '
                      'so that clients that send slowly, or connect and '
                      'send nothing, and idle kept-alive connections do not '
                      'stay open for ever. Keep it above the idle timeout '
                      'of a load balancer that reuses connections to the '
                      'API.'),
    cfg.FloatOpt('body_timeout', default=10.0, min=0.1, max=300.0,
                 help='Seconds a client has to send the body of a request '
                      '(POST /v3/checks) under uWSGI or mod_wsgi: a body '
                      'not whole by then is answered 408 and the '
                      'connection closed (each wait is also bounded by '
                      'the server: uWSGI socket-timeout, Apache '
                      'RequestReadTimeout). flavor-exporter-api (granian) '
                      'cannot end a read: there at most [api] threads - 1 '
                      'requests read bodies at once, one per client '
                      'address, and the others are answered 503 with '
                      'Retry-After (this many seconds) without reading '
                      'theirs, so that slow or stalled clients never hold '
                      'the threads others need.'),
    cfg.FloatOpt('keepalive_timeout', default=75.0, min=0.1,
                 deprecated_for_removal=True,
                 deprecated_since='2026.2',
                 deprecated_reason='The server closes an idle kept-alive '
                                   'connection after [api] request_timeout.',
                 help='Not used.'),
    cfg.IntOpt('max_connections', default=10000, min=16,
               help='Client connections each API process serves at once '
                    '(granian\'s backpressure); further ones wait in the '
                    'listen queue. Slow and idle clients count, so keep it '
                    'well above the clients expected. The command raises '
                    'its open-file limit to fit, up to the hard limit '
                    '(logged when that is lower).'),
    cfg.BoolOpt('compute_on_miss', default=False,
                help='When the cache holds no data, ask the leading '
                     'worker to publish at once and wait for it (up to '
                     '[api] compute_on_miss_timeout) instead of answering '
                     '503: one refresh whatever the number of API '
                     'processes and waiting requests. The API itself '
                     'never reads the cloud.'),
    cfg.IntOpt('compute_on_miss_timeout', default=120, min=1,
               help='Seconds a request waits for a worker to publish when '
                    '[api] compute_on_miss is set; then it is answered '
                    '503. A cold refresh of a large cloud takes a minute '
                    'or more.'),
    cfg.IntOpt('retry_after', default=5, min=1,
               help='Seconds put in the Retry-After header of a 503 '
                    'answered while the cache is cold or cannot be read. '
                    'Clients that honour it (the de.NBI portal retries '
                    'three times) wait this long each time, so keep it '
                    'short: a retry costs the API one cache read.'),
    cfg.BoolOpt('log_requests', default=True,
                help='Log one INFO line per request (address, method, '
                     'URI, status, bytes, seconds, with the request id), '
                     'as Placement does. False: only answers of 400 and '
                     'more.'),
    cfg.IntOpt('stale_after', min=1,
               help='Data older than this many seconds is marked '
                    '"stale": true. Default: twice [worker] '
                    'refresh_interval.'),
    cfg.FloatOpt('generation_check_interval', default=0.2, min=0.0,
                 help='Seconds between two reads of the published data\'s '
                      'pointer by a thread of each API process; requests '
                      'read none. Every process serves a new generation '
                      'this long after it was published, all at the same '
                      'moment, so that clients never get older data after '
                      'newer: it is what the API adds to the time a '
                      'change takes to be served. Each read is one small '
                      'cache round trip per process and cloud (5 a second '
                      'at 0.2). 0 reads the pointer on every request '
                      'instead, at the price of one more cache round trip '
                      'each.'),
]


def register_opts(conf):
    conf.register_group(api_group)
    conf.register_opts(opts, group=api_group)


def list_opts():
    return {api_group: opts}
