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
"""A what-if's answer as text.

One wording for `flavor-exporter-report --whatif` and `openstack
capacity whatif`.
"""

from flavor_exporter._i18n import _

#: The columns of the flavor table.
FLAVOR_COLUMNS = ('flavor', 'gpu', 'available', 'after', 'change', 'total',
                  'total after', 'limited by after')
GPU_COLUMNS = ('gpu type', 'usable', 'usable after', 'total', 'total after',
               'stranded after')


def _signed(number):
    return '%+d' % number if number else '0'


def flavor_rows(answer, changed_only=False):
    """One row a flavor (FLAVOR_COLUMNS), GPU flavors first."""
    rows = []
    for item in answer['results']['flavors']:
        difference = item['difference']
        if changed_only and not (difference['available']
                                 or difference['total']):
            continue
        gpu = item['gpu']
        rows.append([
            item['name'] + (_(' (new)') if item['added'] else ''),
            '%s x%d' % (gpu['type'], gpu['count']) if gpu else '-',
            str(item['before']['available']), str(item['after']['available']),
            _signed(difference['available']), str(item['before']['total']),
            str(item['after']['total']), item['limited_by'] or '-'])
    return rows


def gpu_rows(answer):
    return [[item['type'], str(item['before']['usable']),
             str(item['after']['usable']), str(item['before']['total']),
             str(item['after']['total']), str(item['after']['stranded'])]
            for item in answer['results']['gpus']]


def _count(value):
    return value if isinstance(value, int) else len(value)


def summary_lines(answer):
    """The hosts changed, the evacuation's verdict and moves, the notes."""
    lines = []
    hosts = answer['hosts']
    parts = ['%s %d' % (kind, _count(names)) for kind, names in hosts.items()
             if _count(names)]
    if parts:
        lines.append(_('hosts: %s') % ', '.join(parts))
    evacuation = answer.get('evacuation')
    if evacuation:
        if evacuation['fits']:
            lines.append(_('evacuation: all %d servers find a host')
                         % evacuation['servers'])
        else:
            lines.append(_('evacuation: %(placed)d of %(servers)d servers '
                           'find a host') % evacuation)
        for move in evacuation['moves']:
            if 'to' in move:
                lines.append(_('  %(server)s (%(flavor)s): %(from)s -> '
                               '%(to)s') % dict(move, flavor=move['flavor']
                                                or '?'))
        for item in evacuation['not_placed']:
            lines.append(_('  %(server)s (%(flavor)s): no host: %(reason)s')
                         % dict(item, flavor=item['flavor'] or '?'))
    for note in answer['notes']:
        lines.append(_('note: %s') % note)
    return lines
