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
"""Routing of collections whose members are named by data."""

import pecan
import webob.exc

from flavor_exporter.api import access
from flavor_exporter.common import published as pub
from flavor_exporter.policies import capacity as policies


def flavor_filter(reader, generation, caller):
    """None when caller sees every flavor, else a test of flavor ids.

    Private flavors are seen by the projects they are shared with, and by
    those whom policy lets see them all.
    """
    if caller.may(policies.ALL_FLAVORS):
        return None
    if pub.ACCESS in generation.documents:
        private = reader.parsed.derived(generation, pub.ACCESS, 'private',
                                        access.private_flavors)
    else:
        private = reader.parsed.derived(generation, pub.V2_LIST, 'private',
                                        access.private_from_list)
    if not private:
        return None
    project = caller.project_id
    return lambda flavor_id: access.may_see(private, flavor_id, project)


class CollectionController:
    """``/things``, ``/things/`` and ``/things/{key}`` (``/`` optional).

    Pecan's object dispatch looks a path segment up as an attribute first,
    so a flavor whose id or name is "index", or the name of any method,
    would reach that method. ``_route`` sends every key to ``item``
    instead. Subclasses expose ``collection()`` and ``item(key)``.
    """

    @pecan.expose()
    def _route(self, args, request):
        if not args or args == ['']:
            return self.collection, []
        # ``/things//`` names no member: an empty key is not a name.
        if args[0] and (len(args) == 1 or (len(args) == 2 and not args[1])):
            return self.item, args[:1]
        raise webob.exc.HTTPNotFound()
