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
"""``openstack capacity check``: can this set of servers start together?

The set is the body of POST /v3/checks: from --file (the same file
``flavor-exporter-report --check`` reads), or from --server FLAVOR:COUNT
(:MIN_COUNT for one multi-create request) in launch order with
--project, --availability-zone and --group-policy. One row per request:
how many start, what stops the rest, where they go (for callers allowed
to see hosts), what would fit instead.
"""

import json

from osc_lib.command import command
from osc_lib import exceptions

from flavor_exporter.osc import flavor as flavor_cmd

COLUMNS = ('#', 'Flavor', 'Request', 'Count', 'Started', 'Stopped By',
           'Hosts', 'Would Start Instead')
POLICIES = ('affinity', 'anti-affinity', 'soft-affinity',
            'soft-anti-affinity')


def server_entry(text):
    """{"flavor", "count"[, "min_count"]} of FLAVOR:COUNT[:MIN_COUNT]."""
    flavor, _, rest = text.rpartition(':') if ':' in text else (text, '',
                                                                '')
    counts = []
    # A flavor name may hold ':'; the counts are the trailing numbers.
    while flavor and rest.isdigit() and len(counts) < 2:
        counts.insert(0, int(rest))
        flavor, _, rest = flavor.rpartition(':') if ':' in flavor else (
            flavor, '', '')
        if not rest.isdigit():
            flavor = '%s:%s' % (flavor, rest) if rest else flavor
            break
    if not flavor:
        raise exceptions.CommandError(
            '--server %s: give FLAVOR:COUNT or FLAVOR:COUNT:MIN_COUNT' % text)
    entry = {'flavor': flavor, 'count': counts[0] if counts else 1}
    if len(counts) == 2:
        entry['min_count'] = counts[1]
    return entry


def body_of(parsed_args):
    """The POST /v3/checks body the arguments describe."""
    if parsed_args.file:
        if parsed_args.server:
            raise exceptions.CommandError(
                'Give the set with --file or with --server, not both')
        try:
            with open(parsed_args.file) as stream:
                body = json.load(stream)
        except (OSError, ValueError) as exc:
            raise exceptions.CommandError('--file %s: %s'
                                          % (parsed_args.file, exc))
        if isinstance(body, list):
            body = {'servers': body}
    elif parsed_args.server:
        body = {'servers': [server_entry(s) for s in parsed_args.server]}
    else:
        raise exceptions.CommandError(
            'Give the set: --server FLAVOR:COUNT (repeated, in launch '
            'order) or --file FILE')
    if not isinstance(body, dict):
        raise exceptions.CommandError('--file %s: not a JSON object'
                                      % parsed_args.file)
    for key, value in (('project_id', parsed_args.project),
                       ('availability_zone', parsed_args.availability_zone)):
        if value:
            body[key] = value
    if parsed_args.group_policy:
        group = {'policy': parsed_args.group_policy}
        if parsed_args.max_server_per_host:
            group['rules'] = {
                'max_server_per_host': parsed_args.max_server_per_host}
        body['server_group'] = group
    return body


def _stopped_text(stop):
    return '%s: %s' % (stop['kind'], stop['reason']) if stop else ''


def rows(check):
    """One row per request of a check's answer."""
    found = []
    for index, item in enumerate(check['requests'], 1):
        flavor = (item['flavor'] or {}).get('name', item['asked'])
        hosts = ', '.join(s['host'] + (' (tied with %s)' % ', '.join(
            s['tied_with']) if s['tied_with'] else '')
            for s in item['servers'] if 'host' in s)
        instead = ', '.join('%s x%d' % (a['name'], a['would_start'])
                            for a in item['alternatives'])
        found.append((index, flavor, item['request'], item['count'],
                      item['started'] if item['reached'] else 'not tried',
                      _stopped_text(item['stopped_by']), hosts, instead))
    return found


class CheckSet(command.Lister):
    """Whether a set of servers can start together, where, and why not."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--server', metavar='<flavor>:<count>[:<min-count>]',
            action='append', default=[],
            help='COUNT servers of a flavor (id or name), in launch order '
                 '(repeat for several requests); with MIN_COUNT one '
                 'multi-create request, as "openstack server create --min '
                 '--max" makes')
        parser.add_argument(
            '--file', metavar='<file>',
            help='The set as a JSON file (the body of POST /v3/checks, as '
                 '"flavor-exporter-report --check" reads it)')
        parser.add_argument('--project', metavar='<project-id>',
                            help='Project the servers are for (default: '
                                 'your token\'s)')
        parser.add_argument('--availability-zone', metavar='<zone>',
                            help='Zone every server is asked into')
        parser.add_argument('--group-policy', choices=POLICIES,
                            help='Every server joins a new server group of '
                                 'this policy')
        parser.add_argument('--max-server-per-host', type=int,
                            metavar='<count>',
                            help='With --group-policy anti-affinity: the '
                                 'group\'s max_server_per_host rule')
        flavor_cmd.add_cloud_argument(parser)
        return parser

    def take_action(self, parsed_args):
        document = flavor_cmd.client_of(self.app).check(
            body_of(parsed_args), cloud=parsed_args.cloud)
        check = document['check']
        verdict = ('The set starts: %d servers.' % check['started']
                   if check['fits'] else
                   'The set does not start whole: %d of %d servers.'
                   % (check['started'], check['requested']))
        self.app.stderr.write(verdict + '\n')
        for note in check['notes']:
            self.app.stderr.write('Note: %s\n' % note)
        return COLUMNS, rows(check)
