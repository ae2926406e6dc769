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
from flavor_exporter.api import documents
from flavor_exporter.api import filters
from flavor_exporter.api import responses

ONE = 'v2/flavor/%s'
NAMES = 'v2/names'
ALL = 'v2/flavors'


def _bad_request(exc):
    return webob.exc.HTTPBadRequest(detail=str(exc))


def _index(names):
    """(flavor ids, {name: id}) from the v2/names document."""
    return frozenset(names.values()), names


def _marked_stale(document):
    return dict(document, stale=True)


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
            rendered = self._reader.render(view, name)
        else:
            rendered = self._rewritten(view, name, query)
        if rendered is None:
            raise responses.service_unavailable(
                'The published data has no %s document; is the worker '
                'older than this API?' % name, self._retry_after)
        return responses.document(pecan.request, rendered, view)

    def _rewritten(self, view, name, query):
        zones = None
        if query.availability_zone is not None:
            zones = filters.known_zones(
                self._reader.decoded(view, ALL) or {})

        def build(document):
            if query.rewrites:
                document = filters.apply(query, document, zones)
            return _marked_stale(document) if view.stale else document

        variant = (query.availability_zone, query.name, view.stale)
        try:
            return self._reader.render(view, name, variant, build)
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
        ids, names = self._reader.derived(view, (NAMES, 'index'), _index)
        flavor_id = key if key in ids else names.get(key)
        if flavor_id is None:
            raise webob.exc.HTTPNotFound(
                detail='No flavor has the id or name "%s".' % key)
        rendered = self._flavor(view, flavor_id)
        if rendered is None:
            raise documents.Unavailable('%s is missing from the cache'
                                        % (ONE % flavor_id))
        return responses.document(pecan.request, rendered, view)

    def _flavor(self, view, flavor_id):
        if not view.stale:
            return self._reader.render(view, ONE % flavor_id)
        return self._reader.render(view, ONE % flavor_id, 'stale',
                                   _marked_stale)


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
        except (documents.NoData, documents.Unavailable) as exc:
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
            'refresh': self._reader.status(),
        })
