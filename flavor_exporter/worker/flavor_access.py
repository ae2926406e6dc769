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
"""Who may see each private flavor, read again only when it may be stale.

Nova has no bulk read of flavor access lists: one call per private flavor
(os-flavor-access), 300 calls on a cloud of a thousand flavors, for lists
that change when an administrator grants or revokes access, rarely. Nor
does a grant change anything the flavor list shows (no generation, no
updated_at), so a changed list cannot be noticed without reading it.

So a worker keeps the lists it read: a flavor it has not seen private
before (a new flavor) is read at once, the others again once their list is
[worker] flavor_access_max_age seconds old. A grant or revocation shows in
the per-project documents within that age plus one refresh interval. A
list that could not be read is not kept: the flavor is shown to admins
only, and its list is asked again at the next refresh.
"""

import time

from flavor_exporter._i18n import _
from flavor_exporter.worker import openstack

# 2.75 as for the flavor list.
MICROVERSION = '2.75'


def read_projects(client, flavor, problems):
    """The projects a private flavor is shared with, or None if unknown.

    The API shows a private flavor to the members of these projects; an
    unknown list hides it from everyone but admins, never the reverse.
    """
    try:
        body = client.get('compute', '/flavors/%s/os-flavor-access'
                          % flavor.id, MICROVERSION)
        return tuple(sorted({access['tenant_id']
                             for access in body['flavor_access']}))
    except (openstack.CloudError, KeyError, TypeError) as exc:
        problems.append(_('flavor %(flavor)s: its project access list is '
                          'unreadable (%(error)s); only admins see it')
                        % {'flavor': flavor.name, 'error': exc})
        return None


class FlavorAccess:
    """Access lists kept between refreshes, for at most max_age seconds.

    max_age 0 reads every list at every refresh. One instance per source,
    used by one collect at a time.
    """

    def __init__(self, max_age=0, clock=time.monotonic):
        self._max_age = max_age
        self._clock = clock
        self._known = {}  # flavor id -> (projects, monotonic read time)
        self.last_read = 0  # lists read by the last call

    def projects(self, client, private, problems):
        """{flavor id: projects or None} of the private flavors given."""
        now = self._clock()
        due = [flavor for flavor in private if self._due(flavor.id, now)]
        read = client.map(lambda flavor: read_projects(client, flavor,
                                                       problems), due)
        for flavor, projects in zip(due, read):
            if projects is None:
                self._known.pop(flavor.id, None)
            else:
                self._known[flavor.id] = (projects, now)
        wanted = {flavor.id for flavor in private}
        # Deleted flavors are forgotten: an id created again is read anew.
        for flavor_id in set(self._known) - wanted:
            del self._known[flavor_id]
        self.last_read = len(due)
        return {flavor.id: self._known.get(flavor.id, (None,))[0]
                for flavor in private}

    def _due(self, flavor_id, now):
        entry = self._known.get(flavor_id)
        return entry is None or now - entry[1] >= self._max_age
