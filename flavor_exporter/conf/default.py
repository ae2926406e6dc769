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

opts = [
    cfg.StrOpt('auth_strategy',
               default='keystone',
               choices=[('noauth', 'No authentication: anyone who reaches '
                         'the port can read the capacity data. For '
                         'loopback (the demo, tests, a proxy on the same '
                         'machine that authenticates); on another address '
                         'only with [api] noauth_beyond_loopback.'),
                        ('keystone', 'Validate tokens with '
                         'keystonemiddleware; configure it in the '
                         '[keystone_authtoken] section. With '
                         'http_basic_auth_user_file set, HTTP Basic '
                         'credentials of that file are accepted too.'),
                        ('http_basic', 'HTTP Basic authentication against '
                         'http_basic_auth_user_file, as Ironic\'s '
                         'strategy of that name.')],
               help='How API requests are authenticated; keystone, '
                    'as OpenStack\'s APIs, by default. The version '
                    'documents, /healthcheck and the API description '
                    'stay public either way; what an authenticated '
                    'caller may read is set by policy.'),
    cfg.StrOpt('http_basic_auth_user_file',
               help='An Apache htpasswd file of the users HTTP Basic '
                    'authentication accepts, bcrypt entries only '
                    '(htpasswd -B). Needed by auth_strategy = http_basic; '
                    'with keystone, when set, a request with HTTP Basic '
                    'credentials and no token is checked against it (for '
                    'Prometheus and portals that have no Keystone '
                    'token). Read again when it changes.'),
]


def register_opts(conf):
    conf.register_opts(opts)


def list_opts():
    return {'DEFAULT': opts}
