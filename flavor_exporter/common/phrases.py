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
"""The words flavor-exporter-report and ``openstack capacity`` share.

Both print the API's documents (/v3/flavors/, /v3/gpus/, a project's
flavors, a set check's answer) for people; what they say of the same
thing is written once, here, so that a user who reads one can read the
other. Functions of the documents' plain values (dicts as the API sends
them): the openstack plugin imports this module, so it imports nothing
but the translation marker.
"""

from flavor_exporter._i18n import _
from flavor_exporter._i18n import _P

#: A quota with no limit (Nova's -1), in every column that shows one.
UNLIMITED = 'unlimited'
#: A request of a set check the check did not reach (one before it
#: stopped the set).
NOT_TRIED = 'not tried'

#: What a zone cell's two figures are, per view.
FLAVOR_ZONE_CELL = 'available/total'
PROJECT_ZONE_CELL = 'startable/available'
GPU_ZONE_CELL = 'free/total'


def servers(count):
    """"1 server", "2 servers"."""
    return _P('%d server', '%d servers', count) % count


def gpu(value):
    """"a100 x1" for {"type": "a100", "count": 1}; "" for no GPU."""
    return '%s x%d' % (value['type'], value['count']) if value else ''


def headroom(quota):
    """A project's quota headroom in instances, "unlimited" for none."""
    value = quota['headroom']
    return UNLIMITED if value is None else value


def quota_limited_by(quota):
    """The quota that limits a project's headroom, "unlimited" for none.

    The API says null there when no quota limits the flavor.
    """
    if quota['headroom'] is None:
        return UNLIMITED
    return quota['limited_by'] or ''


def zone_cell(part, whole):
    """A zone's two figures, "1/11" (FLAVOR_ZONE_CELL and its kin)."""
    return '%s/%s' % (part, whole)


def zones(by_zone, part, whole):
    """"az1 1/11, az2 0/4": zone_cell of each zone, by name."""
    return ', '.join(
        '%s %s' % (zone, zone_cell(numbers[part], numbers[whole]))
        for zone, numbers in sorted((by_zone or {}).items()))


def zone_legend(cell):
    """The line under a table of zone cells: what their figures are."""
    return _('zone cells: %s') % cell


def stopped_by(stop):
    """What stopped a request of a set check: "kind: reason", or ""."""
    return '%s: %s' % (stop['kind'], stop['reason']) if stop else ''


def hosts(placed):
    """Where a request's servers go: "h1, h2 (tied with h3, h4)".

    placed: the request's "servers" (those a caller may see hosts of);
    a host other hosts weigh the same as says so, as Nova takes any.
    """
    return ', '.join(
        server['host'] + (_(' (tied with %s)') % ', '.join(
            server['tied_with']) if server.get('tied_with') else '')
        for server in placed if 'host' in server)


def alternatives(found):
    """What would start instead: "m1.small x3, m1.tiny x5"."""
    return ', '.join('%s x%d' % (item['name'], item['would_start'])
                     for item in found)


def started(item):
    """How many servers of a check's request started, or NOT_TRIED."""
    return item['started'] if item['reached'] else NOT_TRIED


def verdict(check):
    """A set check's one-line answer, its figures and plural right."""
    if check['fits']:
        return _('the set starts: %s') % servers(check['started'])
    return _('the set does not start whole: %(started)d of %(servers)s') % {
        'started': check['started'], 'servers': servers(check['requested'])}


def note(text):
    """A note of a set check's answer."""
    return _('note: %s') % text
