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
"""/v2: every flavor with its capacity, one flavor, the worker's status.

Each exists for the default cloud at /v2/ and for every cloud of
[DEFAULT] clouds at /v2/clouds/{cloud}/.
"""

import json

import pecan
import webob.exc

from flavor_exporter.api import access
from flavor_exporter.api.controllers import base
from flavor_exporter.api import filters
from flavor_exporter.api import generations
from flavor_exporter.api import responses
from flavor_exporter.common import published as pub
from flavor_exporter.policies import capacity as policies


def _bad_request(exc):
    return webob.exc.HTTPBadRequest(detail=str(exc))


def _marked_stale(document):
    return dict(document, **{pub.STALE: True})


def _with_flavor(document, flavor, stale):
    document = dict(document, **{pub.FLAVOR: flavor})
    return _marked_stale(document) if stale else document


class FlavorsController(base.CollectionController):

    def __init__(self, reader, retry_after):
        self._reader = reader
        self._retry_after = retry_after
        self._index_tags = (None, ())

    def _view(self):
        return responses.current_view(self._reader, self._retry_after)

    @pecan.expose()
    def collection(self):
        caller = access.of(pecan.request)
        caller.require(policies.FLAVOR_LIST)
        try:
            query = filters.ListQuery.from_params(pecan.request.GET)
        except filters.BadQuery as exc:
            raise _bad_request(exc)
        view = self._view()
        name = query.document()
        visible = base.flavor_filter(self._reader, view.generation, caller)
        if not query.rewrites and not view.stale and visible is None:
            held = self._reader.documents.get(view.generation, name)
        else:
            held = self._rewritten(view, name, query, visible,
                                   caller.project_id)
        if held is None:
            raise responses.service_unavailable(
                'The published data has no list of flavors; is the worker '
                'older than this API?', self._retry_after)
        return responses.representation(pecan.request, held, view)

    def _rewritten(self, view, name, query, visible, project_id):
        generation = view.generation
        parsed = self._reader.parsed

        def make():
            document = parsed.get(generation, name)
            if visible is not None:
                document = dict(document, **{pub.FLAVORS: [
                    f for f in document[pub.FLAVORS] if visible(f[pub.ID])]})
            if query.rewrites:
                zones = None
                if query.availability_zone is not None:
                    zones = filters.known_zones(
                        parsed.get(generation, pub.V2_LIST) or {})
                document = filters.apply(query, document, zones)
            return _marked_stale(document) if view.stale else document

        variant = (query.availability_zone, query.name, view.stale,
                   None if visible is None else project_id)
        try:
            return self._reader.variants.get(generation, name, variant,
                                             make)
        except filters.BadQuery as exc:
            raise _bad_request(exc)

    @pecan.expose()
    def item(self, key):
        caller = access.of(pecan.request)
        caller.require(policies.FLAVOR_GET)
        try:
            filters.refuse_any(pecan.request.GET)
        except filters.BadQuery as exc:
            raise _bad_request(exc)
        view = self._view()
        generation = view.generation
        flavor_id = self._flavor_id(generation, key)
        visible = base.flavor_filter(self._reader, generation, caller)
        if flavor_id is None or (visible is not None
                                 and not visible(flavor_id)):
            # A flavor the caller may not see does not exist for them.
            raise webob.exc.HTTPNotFound(
                detail='No flavor has the id or name "%s".' % key)
        name = pub.v2_flavor(flavor_id)
        if caller.may(policies.HOSTS):
            held = self._with_hosts(view, flavor_id)
        else:
            def make():
                document = self._reader.parsed.get(generation, name)
                flavor = {k: v for k, v in document[pub.FLAVOR].items()
                          if k != pub.EXCLUDED}
                return _with_flavor(document, flavor, view.stale)
            held = self._reader.variants.get(
                generation, name, ('no hosts', view.stale), make)
        if held is None:
            raise generations.Unavailable(
                'the data of flavor %s is not published' % flavor_id)
        return responses.representation(pecan.request, held, view)

    def _with_hosts(self, view, flavor_id):
        """The flavor's document with its per-host rows, made once.

        The worker publishes the per-host numbers apart, as columns that
        name hosts by their place in the host index: far smaller, and
        they change apart from the flavor's totals.
        """
        generation = view.generation
        name = pub.v2_flavor(flavor_id)
        numbers_name = pub.v2_flavor_hosts(flavor_id)
        numbers = generation.documents.get(numbers_name)
        # What the rows are made of: a new version of any is a new variant.
        sources = (numbers.etag if numbers else None,
                   self._host_index_tags(generation))

        def make():
            document = self._reader.parsed.get(generation, name)
            held = self._reader.documents.get(generation, numbers_name)
            rows = []
            if held is not None:
                rows = pub.host_rows(
                    json.loads(held.body),
                    lambda page: self._reader.parsed.get(
                        generation, pub.hosts_page(page)))
            flavor = {k: v for k, v in document[pub.FLAVOR].items()
                      if k != pub.EXCLUDED}
            flavor[pub.HOSTS] = rows
            flavor[pub.EXCLUDED] = document[pub.FLAVOR].get(pub.EXCLUDED, {})
            return _with_flavor(document, flavor, view.stale)
        return self._reader.variants.get(
            generation, name, ('hosts', view.stale, sources), make)

    def _host_index_tags(self, generation):
        """The entity tags of the host index pages, read once."""
        known_id, tags = self._index_tags
        if known_id != generation.id:
            tags = tuple(entry.etag for name, entry in sorted(
                generation.documents.items()) if pub.is_hosts_page(name))
            self._index_tags = (generation.id, tags)
        return tags

    def _flavor_id(self, generation, key):
        """The id of the flavor key names, or None."""
        # Ids first: a flavor may be named like another's id. The
        # manifest knows the ids; the names cost one decoded document.
        if pub.v2_flavor(key) in generation.documents:
            return key
        return self._reader.parsed.derived(
            generation, pub.V2_NAMES, 'names', dict).get(key)


class CloudController:
    """One cloud's flavors and status."""

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
        access.of(pecan.request).require(policies.STATUS)
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


def _freshness(reader):
    """(age in seconds or None, stale) of what reader serves; no fill."""
    try:
        view = reader.view(fill=False)
    except (generations.NoData, generations.Unavailable):
        return None, True
    return (None if view.age is None else round(view.age, 3)), view.stale


class CloudsController:
    """/v2/clouds: the clouds served, and each under /v2/clouds/{name}/."""

    def __init__(self, readers, retry_after, stale_after):
        self._readers = readers
        self._clouds = {
            name: CloudController(reader, retry_after, stale_after)
            for name, reader in readers.items()}

    @pecan.expose()
    def _route(self, args, request):
        if not args or args == ['']:
            return self.collection, []
        cloud = self._clouds.get(args[0])
        if cloud is None:
            raise webob.exc.HTTPNotFound(
                detail='No cloud is named "%s"; GET /v2/clouds lists them.'
                % args[0])
        return pecan.routing.lookup_controller(cloud, args[1:], request)

    @pecan.expose()
    def collection(self):
        access.of(pecan.request).require(policies.FLAVOR_LIST)
        try:
            filters.refuse_any(pecan.request.GET)
        except filters.BadQuery as exc:
            raise _bad_request(exc)
        listed = []
        for name, reader in self._readers.items():
            age, stale = _freshness(reader)
            base_path = '/v2/clouds/%s/' % name
            listed.append({
                'name': name,
                'default': name == self._readers.default_name,
                'age_seconds': age,
                'stale': stale,
                'links': [
                    {'rel': 'flavors', 'href': base_path + 'flavors/'},
                    {'rel': 'status', 'href': base_path + 'status'}]})
        return responses.body({'clouds': listed})


class V2Controller(CloudController):
    """/v2: the default cloud's flavors and status, and every cloud's."""

    def __init__(self, readers, retry_after, stale_after):
        super().__init__(readers.default, retry_after, stale_after)
        self.clouds = CloudsController(readers, retry_after, stale_after)
