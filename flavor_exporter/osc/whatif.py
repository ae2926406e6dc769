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
"""``openstack capacity whatif``: the capacity after changes to the cloud.

The changes are the body of POST /v3/whatif: from --file (the same file
``flavor-exporter-report --whatif`` reads), or from --drain, --add,
--remove (with --evacuate, the drained hosts' servers are moved). One
row per flavor, GPU flavors first: available and total before and
after; the hosts changed, where evacuated servers go and the notes on
stderr. Exit status 0, or 1 when an evacuated server finds no host.
"""

import json

from osc_lib.command import command
from osc_lib import exceptions

from flavor_exporter.common import whatif_text
from flavor_exporter.osc import flavor as flavor_cmd

COLUMNS = tuple(name.title() for name in whatif_text.FLAVOR_COLUMNS)


def _like(text):
    like, _, count = text.rpartition(':')
    if like and count.isdigit():
        return {'like': like, 'count': int(count)}
    return {'like': text, 'count': 1}


def body_of(parsed_args):
    """The POST /v3/whatif body the arguments describe."""
    given = (parsed_args.drain or parsed_args.drain_aggregate
             or parsed_args.drain_zone or parsed_args.add
             or parsed_args.remove)
    if parsed_args.file:
        if given:
            raise exceptions.CommandError(
                'Give the changes with --file or with options, not both')
        try:
            with open(parsed_args.file) as stream:
                return json.load(stream)
        except (OSError, ValueError) as exc:
            raise exceptions.CommandError('--file %s: %s'
                                          % (parsed_args.file, exc))
    if not given:
        raise exceptions.CommandError(
            'Give the changes: --drain HOST, --drain-aggregate, '
            '--drain-zone, --add HOST[:COUNT], --remove HOST, or --file')
    servers = 'evacuate' if parsed_args.evacuate else 'stay'
    drain = []
    if parsed_args.drain:
        drain.append({'hosts': parsed_args.drain, 'servers': servers})
    drain += [{'aggregate': name, 'servers': servers}
              for name in parsed_args.drain_aggregate]
    drain += [{'availability_zone': name, 'servers': servers}
              for name in parsed_args.drain_zone]
    body = {'drain': drain, 'add': [_like(t) for t in parsed_args.add]}
    if parsed_args.remove:
        body['remove'] = [{'hosts': parsed_args.remove}]
    return body


class Whatif(command.Lister):
    """The capacity of each flavor after changes to the cloud.

    Exit status 0, or 1 when a server of an evacuated host finds no
    host. Hosts drained keep their servers unless --evacuate moves them,
    one by one, where Nova's scheduler would.
    """

    #: Whether every evacuated server found a host, for the exit status.
    fits = True

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--drain', metavar='<host>', action='append',
                            default=[],
                            help='A host whose compute service is disabled '
                                 '(repeat for several)')
        parser.add_argument('--drain-aggregate', metavar='<aggregate>',
                            action='append', default=[],
                            help='Every host of a host aggregate')
        parser.add_argument('--drain-zone', metavar='<zone>',
                            action='append', default=[],
                            help='Every host of an availability zone')
        parser.add_argument('--evacuate', action='store_true',
                            default=False,
                            help='The drained hosts\' servers are moved to '
                                 'the others (else they stay)')
        parser.add_argument('--add', metavar='<host>[:<count>]',
                            action='append', default=[],
                            help='COUNT new empty hosts like HOST, in its '
                                 'aggregates and zone')
        parser.add_argument('--remove', metavar='<host>', action='append',
                            default=[],
                            help='A host that leaves the cloud with its '
                                 'servers')
        parser.add_argument('--file', metavar='<file>',
                            help='The changes as a JSON file (the body of '
                                 'POST /v3/whatif, as "flavor-exporter-'
                                 'report --whatif" reads it): also ratio, '
                                 'reserved and flavor changes')
        parser.add_argument('--changed-only', action='store_true',
                            default=False,
                            help='Only the flavors whose figures change')
        flavor_cmd.add_cloud_argument(parser)
        return parser

    def run(self, parsed_args):
        # cliff returns what run returns as the command's exit status.
        status = super().run(parsed_args)
        return status or (0 if self.fits else 1)

    def take_action(self, parsed_args):
        document = flavor_cmd.client_of(self.app).whatif(
            body_of(parsed_args), cloud=parsed_args.cloud)
        answer = document['whatif']
        evacuation = answer.get('evacuation')
        self.fits = not evacuation or evacuation['fits']
        for line in whatif_text.summary_lines(answer):
            self.app.stderr.write(line + '\n')
        gpus = whatif_text.gpu_rows(answer)
        if gpus:
            self.app.stderr.write('GPU devices: %s\n' % '; '.join(
                '%s usable %s -> %s, total %s -> %s (%s stranded)'
                % tuple(row)
                for row in gpus))
        return COLUMNS, whatif_text.flavor_rows(answer,
                                                parsed_args.changed_only)
