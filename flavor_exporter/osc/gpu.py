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
"""``openstack capacity gpu list`` and ``openstack capacity gpu show``.

The GPU devices by type, as ``flavor-exporter-report --gpus`` prints them:
how many exist, are used, are free, and are stranded (free, but no flavor
can use them, and why).
"""

from osc_lib.command import command

from flavor_exporter.common import phrases
from flavor_exporter.osc import flavor as flavor_cmd

LIST_COLUMNS = ('Type', 'Total', 'Used', 'Free', 'Stranded', 'Fragmented',
                'Zones (%s)' % phrases.GPU_ZONE_CELL.title())


def zones_text(zones):
    """"az1 3/8, az2 0/2": free/total per availability zone."""
    return phrases.zones(zones, 'free', 'total')


def stranded_text(stranded_by):
    """"2 (no flavor asks for them), 1 (...)": why free devices are idle."""
    return ', '.join('%s (%s)' % (count, why)
                     for why, count in sorted(stranded_by.items()))


class ListGpu(command.Lister):
    """GPU devices by type: total, used, free, stranded, per zone."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        flavor_cmd.add_cloud_argument(parser)
        return parser

    def take_action(self, parsed_args):
        document = flavor_cmd.client_of(self.app).list_gpus(
            cloud=parsed_args.cloud)
        return LIST_COLUMNS, [
            (gpu['type'], gpu['total'], gpu['used'], gpu['free'],
             gpu['stranded'], gpu.get('fragmented'),
             zones_text(gpu['availability_zones']))
            for gpu in sorted(document['gpus'],
                              key=lambda gpu: gpu['type'].casefold())]


class ShowGpu(command.ShowOne):
    """One GPU type: its figures per zone, and what strands devices."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('gpu_type', metavar='<gpu-type>',
                            help='GPU type, as "openstack capacity gpu '
                                 'list" names it')
        flavor_cmd.add_cloud_argument(parser)
        return parser

    def take_action(self, parsed_args):
        document = flavor_cmd.client_of(self.app).get_gpu(
            parsed_args.gpu_type, cloud=parsed_args.cloud)
        gpu = document['gpu']
        fields = {
            'type': gpu['type'],
            'resource_class': gpu['resource_class'],
            'traits': ', '.join(gpu['traits']),
            'counted_from': ', '.join(gpu['counted_from']),
            'total': gpu['total'],
            'used': gpu['used'],
            'free': gpu['free'],
            'stranded': gpu['stranded'],
            'fragmented': gpu.get('fragmented'),
            'stranded_by': stranded_text(gpu['stranded_by']),
            'availability_zones': '%s (%s)' % (
                zones_text(gpu['availability_zones']),
                phrases.GPU_ZONE_CELL) if gpu['availability_zones'] else '',
            'hosts': len(gpu.get('hosts') or ()),
            'data_timestamp': document['timestamp'],
            'stale': document['stale'],
        }
        return tuple(zip(*sorted(fields.items())))
