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
"""How the worker reaches the cloud.

Credentials are the usual keystoneauth options of this group. When none are
set ([openstack] auth_type is empty), openstacksdk reads clouds.yaml and the
OS_* environment variables exactly like the openstack CLI does, so that
sourcing an openrc file is enough.
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = 'openstack'

openstack_group = cfg.OptGroup(
    GROUP, title='OpenStack access',
    help='Credentials and limits for the calls the worker makes to Nova '
         'and Placement.')

opts = [
    cfg.StrOpt('cloud',
               help='Name of a clouds.yaml entry to use when no '
                    'keystoneauth options are set in this group. Empty: '
                    'OS_CLOUD, or the OS_* variables of an openrc file.'),
    cfg.StrOpt('region_name',
               help='Region of the compute and placement endpoints.'),
    cfg.StrOpt('interface', default='public',
               choices=['public', 'internal', 'admin'],
               help='Endpoint interface to take from the catalog.'),
    cfg.IntOpt('api_timeout', default=60, min=1,
               help='Timeout in seconds of one API call.'),
    cfg.IntOpt('max_concurrency', default=8, min=1,
               help='Largest number of API calls the worker has in flight '
                    'at once. Keeps a refresh cheap for the cloud.'),
    cfg.IntOpt('page_size', default=1000, min=1,
               help='Items asked for per page of every list call.'),
    cfg.StrOpt('notification_transport_url', secret=True,
               help="The cloud's message bus, where Nova sends its "
                    "notifications: nova.conf's "
                    "[oslo_messaging_notifications] transport_url (or "
                    "[DEFAULT] transport_url), for example "
                    "rabbit://flavor-exporter:SECRET@rabbit.example.org:"
                    "5672/. With it the worker refreshes within seconds "
                    "of a server starting or going, a compute service, "
                    "an aggregate or a flavor changing, and counts the "
                    "boots Nova turned away; see [notifications]. "
                    "Empty: polling alone."),
    cfg.ListOpt('cell_database_connections', default=[], secret=True,
                help='SQLAlchemy URLs of Nova\'s cell databases (those '
                     'of nova-manage cell_v2 list_cells, not cell0), read '
                     'only for the NUMA topology of each compute node, '
                     'which no API shows. Opt-in: without them flavors '
                     'with a guest NUMA topology (hw:numa_nodes, pinned '
                     'CPUs, hw:mem_page_size) are counted by Placement and '
                     'say so. The account needs SELECT on '
                     'compute_nodes(host, hypervisor_hostname, '
                     'numa_topology, cpu_allocation_ratio, '
                     'ram_allocation_ratio, stats, pci_stats, deleted) '
                     'and nothing else; for example mysql+pymysql://'
                     'flavor_exporter:SECRET@db.example.org/nova_cell1. '
                     'A URL that cannot be one stops the worker at start; '
                     'a database that cannot be read or is too slow (see '
                     'the cell_database_*_timeout options) is a problem '
                     'line of the refresh, its hosts counted by Placement '
                     'alone.'),
    cfg.IntOpt('cell_database_connect_timeout', default=10, min=1,
               help='Seconds to open the connection to a cell database '
                    '(mysql: connect_timeout).'),
    cfg.IntOpt('cell_database_read_timeout', default=30, min=1,
               help='Seconds a cell database may keep the worker waiting '
                    'for any one answer, its greeting included (mysql: '
                    'read_timeout and write_timeout): a server that '
                    'accepts the connection and never answers holds a '
                    'refresh this long. Keep it above '
                    'cell_database_statement_timeout, which the server '
                    'enforces with a clearer error. The cell databases '
                    'are read at once, so several silent ones cost this '
                    'once.'),
    cfg.IntOpt('cell_database_statement_timeout', default=20, min=1,
               help='Seconds the server may run the query of one cell '
                    'database (MySQL: MAX_EXECUTION_TIME, MariaDB: '
                    'max_statement_time, set for the session; SQLite: how '
                    'long a locked database is waited for).'),
]


def register_opts(conf):
    conf.register_group(openstack_group)
    conf.register_opts(opts, group=openstack_group)
    ks_loading.register_session_conf_options(conf, GROUP)
    ks_loading.register_auth_conf_options(conf, GROUP)


def _auth_opts():
    # Document the two plugins operators use most; options they share
    # (auth_url, ...) are listed once.
    found = {}
    for plugin in ('password', 'v3applicationcredential'):
        for opt in ks_loading.get_auth_plugin_conf_options(plugin):
            found.setdefault(opt.dest, opt)
    return list(found.values())


def list_opts():
    return {
        openstack_group: (opts
                          + ks_loading.get_session_conf_options()
                          + ks_loading.get_auth_common_conf_options()
                          + _auth_opts()),
    }
