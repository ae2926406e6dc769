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

Exit status 0 when the whole set starts, 1 when it does not (and, as
every openstack command, 1 on an error): ``if openstack capacity check
...; then`` scripts it. Every row has the set's verdict, Fits, in every
format; --long adds where the servers go and what would start instead.
"""

import json
import textwrap

from osc_lib.command import command
from osc_lib import exceptions

from flavor_exporter.common import phrases
from flavor_exporter.osc import flavor as flavor_cmd

COLUMNS = ('#', 'Flavor', 'Count', 'Started', 'Fits', 'Stopped By')
LONG_COLUMNS = COLUMNS + ('Request', 'Hosts', 'Would Start Instead')
#: Stopped By is wrapped to this width in tables, which then stay within
#: 120 columns for flavor names up to 20 characters.
STOPPED_BY_WIDTH = 56
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


def rows(check, long=False, wrap=None):
    """One row per request of a check's answer (COLUMNS, LONG_COLUMNS).

    wrap: the width Stopped By is wrapped to (tables only).
    """
    found = []
    for index, item in enumerate(check['requests'], 1):
        flavor = (item['flavor'] or {}).get('name', item['asked'])
        stopped = phrases.stopped_by(item['stopped_by'])
        if wrap:
            stopped = '\n'.join(textwrap.wrap(stopped, wrap))
        row = (index, flavor, item['count'], phrases.started(item),
               check['fits'], stopped)
        if long:
            row += (item['request'], phrases.hosts(item['servers']),
                    phrases.alternatives(item['alternatives']))
        found.append(row)
    return found


class CheckSet(command.Lister):
    """Whether a set of servers can start together, where, and why not.

    Exit status 0 when the whole set starts, 1 when it does not. Fits is
    the set's verdict (the same on every row); Started "not tried" is a
    request after the one that stopped the set.
    """

    #: The verdict of the last check, for the exit status.
    fits = None

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
        parser.add_argument(
            '--long', action='store_true', default=False,
            help='Also the request kind, the hosts the servers go to and '
                 'what would start instead')
        flavor_cmd.add_cloud_argument(parser)
        return parser

    def run(self, parsed_args):
        # cliff returns what run returns as the command's exit status.
        status = super().run(parsed_args)
        return status or (0 if self.fits else 1)

    def take_action(self, parsed_args):
        document = flavor_cmd.client_of(self.app).check(
            body_of(parsed_args), cloud=parsed_args.cloud)
        check = document['check']
        self.fits = check['fits']
        # The verdict in words, for people; scripts read Fits or the
        # exit status.
        self.app.stderr.write(phrases.verdict(check) + '\n')
        for note in check['notes']:
            self.app.stderr.write(phrases.note(note) + '\n')
        table = getattr(parsed_args, 'formatter', 'table') == 'table'
        return (LONG_COLUMNS if parsed_args.long else COLUMNS,
                rows(check, parsed_args.long,
                     STOPPED_BY_WIDTH if table else None))
