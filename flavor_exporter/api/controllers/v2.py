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
"""/v2: every flavor with its capacity, one flavor, the worker's status."""

import pecan
import webob.exc

from flavor_exporter.api.controllers import base
from flavor_exporter.api import filters
from flavor_exporter.api import generations
from flavor_exporter.api import responses
from flavor_exporter.common import published as pub


def _bad_request(exc):
    return webob.exc.HTTPBadRequest(detail=str(exc))


def _index(names):
    """(flavor ids, {name: id}) from the V2_NAMES document."""
    return frozenset(names.values()), names


def _marked_stale(document):
    return dict(document, **{pub.STALE: True})


class FlavorsController(base.CollectionController):

    def __init__(self, reader, retry_after):
        self._reader = reader
        self._retry_after = retry_after

    def _view(self):
        return responses.current_view(self._reader, self._retry_after)

    @pecan.expose()
    def collection(self):
        try:
            query = filters.ListQuery.from_params(pecan.request.GET)
        except filters.BadQuery as exc:
            raise _bad_request(exc)
        view = self._view()
        name = query.document()
        if not query.rewrites and not view.stale:
            held = self._reader.documents.get(view.generation.id, name)
        else:
            held = self._rewritten(view, name, query)
        if held is None:
            raise responses.service_unavailable(
                'The published data has no list of flavors; is the worker '
                'older than this API?', self._retry_after)
        return responses.representation(pecan.request, held, view)

    def _rewritten(self, view, name, query):
        generation_id = view.generation.id
        parsed = self._reader.parsed

        def make():
            document = parsed.get(generation_id, name)
            if document is None:
                return None
            if query.rewrites:
                zones = None
                if query.availability_zone is not None:
                    zones = filters.known_zones(
                        parsed.get(generation_id, pub.V2_LIST) or {})
                document = filters.apply(query, document, zones)
            return _marked_stale(document) if view.stale else document

        variant = (query.availability_zone, query.name, view.stale)
        try:
            return self._reader.variants.get(generation_id, name, variant,
                                             make)
        except filters.BadQuery as exc:
            raise _bad_request(exc)

    @pecan.expose()
    def item(self, key):
        try:
            filters.refuse_any(pecan.request.GET)
        except filters.BadQuery as exc:
            raise _bad_request(exc)
        view = self._view()
        # Ids first: a flavor may be named like another's id.
        ids, names = self._reader.parsed.derived(
            view.generation.id, pub.V2_NAMES, 'index', _index)
        flavor_id = key if key in ids else names.get(key)
        if flavor_id is None:
            raise webob.exc.HTTPNotFound(
                detail='No flavor has the id or name "%s".' % key)
        held = self._flavor(view, flavor_id)
        if held is None:
            raise generations.Unavailable(
                'the data of flavor %s is missing from the cache'
                % flavor_id)
        return responses.representation(pecan.request, held, view)

    def _flavor(self, view, flavor_id):
        generation_id = view.generation.id
        name = pub.v2_flavor(flavor_id)
        if not view.stale:
            return self._reader.documents.get(generation_id, name)

        def make():
            document = self._reader.parsed.get(generation_id, name)
            return None if document is None else _marked_stale(document)
        return self._reader.variants.get(generation_id, name, 'stale', make)


class V2Controller:

    def __init__(self, reader, retry_after, stale_after):
        self._reader = reader
        self._stale_after = stale_after
        self.flavors = FlavorsController(reader, retry_after)

    @pecan.expose()
    def status(self):
        """The worker's last refresh and the generation served here.

        Answers while the cache is cold or unreachable too: that is when
        an operator wants to know why.
        """
        try:
            filters.refuse_any(pecan.request.GET)
        except filters.BadQuery as exc:
            raise _bad_request(exc)
        try:
            view = self._reader.view(fill=False)
        except (generations.NoData, generations.Unavailable) as exc:
            current, age, stale = None, None, True
            problem = str(exc) or 'no data has been published yet'
        else:
            current, age, stale = (view.generation.pointer, view.age,
                                   view.stale)
            problem = view.trouble
        return responses.body({
            'current': current,
            'age_seconds': None if age is None else round(age, 3),
            'stale': stale,
            'stale_after_seconds': self._stale_after,
            'problem': problem,
            'refresh': self._reader.status.get(),
        })
