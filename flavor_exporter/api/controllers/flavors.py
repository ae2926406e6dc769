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
"""Flavors: the seed's /v2 list, the predecessor's /gpus/flavors, and /v3.

Every answer is a published document (publication/contract.py), served
as it is or as a variant the memo keeps: the flavors a caller's project
may see, a list filtered by query, a copy marked stale, a flavor with its
per-host rows.
"""

from flavor_exporter.api.controllers import base
from flavor_exporter.api import errors
from flavor_exporter.api import filters
from flavor_exporter.api import published
from flavor_exporter.policies import capacity as policies
from flavor_exporter.publication import contract as pub

#: The predecessor's answer for a flavor it does not serve, kept verbatim.
UNKNOWN_LEGACY_FLAVOR = 'Unknown flavor id!'


def _visible_only(request, state, view, name, id_field, bare=False):
    """The Representation of list name as the caller may see it.

    bare: the document is the list itself (the seed's), not a head with
    its FLAVORS.
    """
    data = request.published
    held = data.document(state, view.generation, name, required=True)
    visible = data.visible(state, view.generation, request.caller)
    if visible is None:
        return held

    def make():
        document = data.value(state, view.generation, name)
        listed = document if bare else document[pub.FLAVORS]
        kept = [f for f in listed if visible(f[id_field])]
        return pub.encode(kept if bare else
                          dict(document, **{pub.FLAVORS: kept}))
    return data.variant(held, ('project', request.caller.project_id), make)


class SeedFlavorsController(base.Resource):
    """/v2/flavors/: the seed's list, every flavor the caller may see.

    A bare list (no room for "stale": the X-Flavor-Exporter-Stale header
    says it).
    """

    @base.expose('listSeedFlavors')
    def get_all(self):
        request = base.request()
        state, view = request.published.answering(request.cloud)
        return base.answer(_visible_only(request, state, view,
                                         pub.SEED_LIST, pub.ID, bare=True),
                           view)


class LegacyFlavorsController(base.Resource):
    """/gpus/flavors/: the predecessor's GPU flavors."""

    @base.expose('listLegacyFlavors')
    def get_all(self):
        """The GPU flavors the caller may see."""
        request = base.request()
        state, view = request.published.answering(request.cloud)
        return base.answer(_visible_only(
            request, state, view, pub.LEGACY_LIST, pub.LEGACY_ID), view)

    @base.expose('getLegacyFlavor')
    def get_one(self, flavor_id):
        """One GPU flavor the caller may see."""
        request = base.request()
        data = request.published
        state, view = data.answering(request.cloud)
        held = data.document(state, view.generation,
                             pub.legacy_flavor(flavor_id))
        visible = data.visible(state, view.generation, request.caller)
        if held is None or (visible is not None and not visible(flavor_id)):
            raise errors.NotFound(UNKNOWN_LEGACY_FLAVOR)
        return base.answer(held, view)


class FlavorsController(base.Resource):
    """/v3/flavors/: the service's own flavor documents."""

    @base.expose('listFlavors')
    def get_all(self):
        """Every flavor the caller may see, filtered by query.

        The query is a filters.ListQuery; a zone the cloud does not have
        is a BadRequest.
        """
        request = base.request()
        data = request.published
        query = request.query
        state, view = data.answering(request.cloud)
        generation = view.generation
        name = query.document()
        held = data.document(state, generation, name, required=True)
        visible = data.visible(state, generation, request.caller)
        unreadable = data.unreadable_hosts(state, generation, request.caller)
        if not query.rewrites and visible is None and unreadable is None:
            return base.answer(data.fresh_or_stale(held, view), view)

        def make():
            document = data.value(state, generation, name)
            if visible is not None:
                document = dict(document, **{pub.FLAVORS: [
                    f for f in document[pub.FLAVORS] if visible(f[pub.ID])]})
            if query.rewrites:
                zones = None
                if query.availability_zone is not None:
                    zones = data.derived(state, generation, pub.V3_LIST,
                                         'zones', filters.known_zones)
                document = filters.apply(query, document, zones)
            return pub.encode(published.marked(document, view.stale,
                                               unreadable))
        variant = (query.availability_zone, query.name, view.stale,
                   None if visible is None else request.caller.project_id,
                   published.unreadable_tag(generation, unreadable))
        return base.answer(data.variant(held, variant, make), view)

    @base.expose('getFlavor')
    def get_one(self, flavor):
        """One flavor by id or name.

        With the hosts policy, the flavor carries its per-host rows, the
        hosts excluded from it, and the unreadable hosts by name.
        """
        request = base.request()
        data = request.published
        state, view = data.answering(request.cloud)
        generation = view.generation
        flavor_id = data.flavor_id(state, generation, flavor)
        visible = data.visible(state, generation, request.caller)
        if flavor_id is None or (visible is not None and
                                 not visible(flavor_id)):
            # A flavor the caller may not see does not exist for them.
            raise errors.NotFound('No flavor has the id or name "%s".'
                                  % flavor)
        held = data.document(state, generation, pub.v3_flavor(flavor_id),
                             required=True)
        if not request.caller.may(policies.HOSTS):
            return base.answer(data.fresh_or_stale(held, view), view)
        return base.answer(data.with_host_rows(
            state, view, held, pub.v3_flavor(flavor_id),
            pub.v3_flavor_hosts(flavor_id), pub.with_hosts, request.caller),
            view)
