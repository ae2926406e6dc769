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
"""``openstack capacity flavor list`` and ``openstack capacity flavor show``.

cliff gives both every output format (-f table, json, yaml, csv, value).
Flavors are listed as ``flavor-exporter-report`` lists them: GPU flavors
first.
"""

from osc_lib.command import command

from flavor_exporter.common import phrases
from flavor_exporter.osc import plugin

LIST_COLUMNS = ('ID', 'Name', 'GPU', 'Total', 'Available', 'Fragmented',
                'Limited By')
LIST_FIELDS = ('id', 'name', 'gpu', 'total', 'available', 'fragmented',
               'limited_by')
# Within 120 columns for flavor UUIDs and names up to 20 characters;
# --long adds the rest, as openstack server list --long does.
PROJECT_COLUMNS = ('ID', 'Name', 'GPU', 'Startable', 'Available',
                   'Quota Headroom')
PROJECT_LONG_COLUMNS = PROJECT_COLUMNS + (
    'Quota Limited By', 'Limited By',
    'Zones (%s)' % phrases.PROJECT_ZONE_CELL.title())

# The words flavor-exporter-report uses too (common/phrases.py).
gpu_text = phrases.gpu


def gpu_first(flavors):
    """GPU flavors first (by GPU type), then by name, as the report does."""
    return sorted(flavors, key=lambda f: (
        f['gpu'] is None, (f['gpu'] or {}).get('type', ''),
        f['name'].casefold()))


def zones_text(zones):
    """"az1 3/4, az2 0/2 (available/total)" per availability zone."""
    text = phrases.zones(zones, 'available', 'total')
    return '%s (%s)' % (text, phrases.FLAVOR_ZONE_CELL) if text else ''


def project_zones_text(zones):
    """"az1 2/3, az2 0/4": startable/available per availability zone."""
    return phrases.zones(zones, 'startable', 'available')


def client_of(app):
    """The capacity client of the openstack command's session."""
    return getattr(app.client_manager, plugin.API_NAME)


def add_cloud_argument(parser):
    """--cloud NAME: one cloud of a service that serves several.

    Not openstackclient's --os-cloud, the clouds.yaml entry that holds the
    user's credentials: NAME is one of ``openstack capacity cloud list``.
    """
    parser.add_argument(
        '--cloud', metavar='<cloud>',
        help='Cloud of the capacity service to read, one of "openstack '
             'capacity cloud list" (default: the service\'s default '
             'cloud)')


class ListFlavor(command.Lister):
    """How many instances of each flavor fit, available and in total."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--gpu', action='store_true', default=None,
            help='GPU flavors only')
        parser.add_argument(
            '--availability-zone', metavar='<zone>',
            help='Figures of one availability zone only')
        parser.add_argument(
            '--project', metavar='<project-id>',
            help='What this project can start: capacity on the hosts it '
                 'may use, quota headroom, and startable, the smaller')
        parser.add_argument(
            '--long', action='store_true', default=False,
            help='With --project: also what limits the quota headroom and '
                 'startable, and the figures per availability zone')
        add_cloud_argument(parser)
        return parser

    def take_action(self, parsed_args):
        if parsed_args.project:
            return self._project(parsed_args)
        document = client_of(self.app).list_flavors(
            gpu=parsed_args.gpu,
            availability_zone=parsed_args.availability_zone,
            cloud=parsed_args.cloud)
        rows = []
        for flavor in gpu_first(document['flavors']):
            # A service before fragmentation publishes none: empty.
            row = dict(flavor, gpu=gpu_text(flavor['gpu']),
                       fragmented=flavor.get('fragmented'))
            rows.append(tuple(row[field] for field in LIST_FIELDS))
        return LIST_COLUMNS, rows

    def _project(self, parsed_args):
        document = client_of(self.app).list_project_flavors(
            parsed_args.project, cloud=parsed_args.cloud)
        rows = []
        for flavor in gpu_first(document['flavors']):
            if parsed_args.gpu and not flavor['gpu']:
                continue
            zones = flavor['availability_zones'] or {}
            if parsed_args.availability_zone is not None:
                zones = {name: numbers for name, numbers in zones.items()
                         if name == parsed_args.availability_zone}
            row = (flavor['id'], flavor['name'], gpu_text(flavor['gpu']),
                   flavor['startable'], flavor['available'],
                   phrases.headroom(flavor['quota']))
            if parsed_args.long:
                row += (phrases.quota_limited_by(flavor['quota']),
                        flavor['startable_limited_by'] or '',
                        project_zones_text(zones))
            rows.append(row)
        return (PROJECT_LONG_COLUMNS if parsed_args.long
                else PROJECT_COLUMNS), rows


class ShowFlavor(command.ShowOne):
    """A flavor's capacity, per availability zone, and what limits it."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('flavor', metavar='<flavor>',
                            help='Flavor ID or name')
        add_cloud_argument(parser)
        return parser

    def take_action(self, parsed_args):
        document = client_of(self.app).get_flavor(parsed_args.flavor,
                                                  cloud=parsed_args.cloud)
        flavor = document['flavor']
        fields = {
            'id': flavor['id'],
            'name': flavor['name'],
            'vcpus': flavor['vcpus'],
            'ram': '%s MiB' % flavor['ram'],
            'disk': '%s GiB' % flavor['disk'],
            'gpu': gpu_text(flavor['gpu']),
            'total': flavor['total'],
            'available': flavor['available'],
            'fragmented': flavor.get('fragmented'),
            'availability_zones': zones_text(flavor['availability_zones']),
            'limited_by': flavor['limited_by'],
            'hosts': len(flavor.get('hosts') or ()),
            'error': flavor['error'],
            'data_timestamp': document['timestamp'],
            'stale': document['stale'],
        }
        return tuple(zip(*sorted(fields.items())))
