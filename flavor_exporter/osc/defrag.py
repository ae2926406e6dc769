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
"""``openstack capacity defrag``: the live migrations that make room.

POST /v3/defrag for a flavor and a count: one row per move, in order,
with the ``openstack server migrate --live-migration --host`` command
that makes it; --commands prints only the commands (a script to review
and run), --watcher the plan as a Watcher action list (JSON). Whether
the plan is proven minimal, or why there is none, goes to stderr.
Exit status 0 with a plan, 1 without.
"""

import json

from osc_lib.command import command

from flavor_exporter.osc import flavor as flavor_cmd

COLUMNS = ('#', 'Server', 'Name', 'Flavor', 'From', 'To', 'Command')


def summary(answer):
    """The lines on stderr: the plan's size and proof, or why none."""
    flavor = answer['flavor']['name']
    if not answer['found']:
        return ['No plan frees %d more %s: %s' % (
            answer['count'], flavor, answer['reason'])]
    moves = len(answer['moves'])
    lines = ['%d live migration(s) let %d more %s start (%d available now, '
             '%s fragmented)' % (moves, answer['gained'], flavor,
                                 answer['available'], answer['fragmented'])]
    if answer['proven_minimal']:
        lines.append('Proven minimal: every plan needs at least %d'
                     % answer['lower_bound'])
    else:
        lines.append('Not proven minimal: %s' % ('; '.join(
            answer['search']['cut']) or 'the lower bound is %s'
            % answer['lower_bound']))
    never = answer.get('never_moved') or {}
    if never:
        lines.append('Never moved: %s' % ', '.join(
            '%d (%s)' % (count, why) for why, count in sorted(never.items())))
    return lines


class Defrag(command.Lister):
    """The fewest live migrations after which more of a flavor start.

    Exit status 0 with a plan, 1 when there is none (the reason on
    stderr).
    """

    found = True

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('flavor', metavar='<flavor>',
                            help='Flavor ID or name')
        parser.add_argument('--count', metavar='<count>', type=int,
                            default=1,
                            help='How many more must start (default 1)')
        parser.add_argument('--max-moves', metavar='<moves>', type=int,
                            help='The most live migrations (default 8)')
        parser.add_argument('--max-hosts', metavar='<hosts>', type=int,
                            help='Hosts whose servers are searched '
                                 '(default 20)')
        parser.add_argument('--max-seconds', metavar='<seconds>', type=int,
                            help='The search\'s time bound (default 8)')
        output = parser.add_mutually_exclusive_group()
        output.add_argument('--commands', action='store_true', default=False,
                            help='Print only the openstack server migrate '
                                 'commands, one per line')
        output.add_argument('--watcher', action='store_true', default=False,
                            help='Print the plan as a Watcher action list '
                                 '(JSON)')
        flavor_cmd.add_cloud_argument(parser)
        return parser

    def run(self, parsed_args):
        status = super().run(parsed_args)
        return status or (0 if self.found else 1)

    def take_action(self, parsed_args):
        body = {'flavor': parsed_args.flavor, 'count': parsed_args.count}
        for key in ('max_moves', 'max_hosts', 'max_seconds'):
            if getattr(parsed_args, key) is not None:
                body[key] = getattr(parsed_args, key)
        answer = flavor_cmd.client_of(self.app).defrag(
            body, cloud=parsed_args.cloud)['defrag']
        self.found = answer['found']
        for line in summary(answer):
            self.app.stderr.write(line + '\n')
        if parsed_args.commands:
            for line in answer['commands']:
                self.app.stdout.write(line + '\n')
            return COLUMNS, []
        if parsed_args.watcher:
            self.app.stdout.write(json.dumps(answer['actions'], indent=2)
                                  + '\n')
            return COLUMNS, []
        return COLUMNS, [
            (i, move['server'], move['name'], move['flavor'], move['from'],
             move['to'], command_line)
            for i, (move, command_line) in enumerate(
                zip(answer['moves'], answer['commands']), 1)]
