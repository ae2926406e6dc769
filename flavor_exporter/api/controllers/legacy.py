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
"""/gpus/flavors: the predecessor's API, which existing portals call.

The bodies are the worker's ``legacy/*`` documents, served byte for byte.
Query strings are ignored, as the predecessor ignored them: portals add
cache-busting parameters that must not start failing.
"""

import pecan
import webob.exc

from flavor_exporter.api import access
from flavor_exporter.api.controllers import base
from flavor_exporter.api import responses
from flavor_exporter.common import published as pub
from flavor_exporter.policies import capacity as policies

UNKNOWN_FLAVOR = 'Unknown flavor id!'


def _flavors_by_id(document):
    return {f[pub.LEGACY_ID]: f for f in document[pub.FLAVORS]}


class FlavorsController(base.CollectionController):

    def __init__(self, reader, retry_after):
        self._reader = reader
        self._retry_after = retry_after

    @pecan.expose()
    def collection(self):
        caller = access.of(pecan.request)
        caller.require(policies.FLAVOR_LIST)
        view = responses.current_view(self._reader, self._retry_after)
        generation = view.generation
        visible = base.flavor_filter(self._reader, generation, caller)
        if visible is None:
            held = self._reader.documents.get(generation, pub.LEGACY_LIST)
        else:
            def make():
                listed = self._reader.parsed.get(generation,
                                                 pub.LEGACY_LIST)
                return dict(listed, **{pub.FLAVORS: [
                    f for f in listed[pub.FLAVORS]
                    if visible(f[pub.LEGACY_ID])]})
            held = self._reader.variants.get(
                generation, pub.LEGACY_LIST, ('project', caller.project_id),
                make)
        if held is None:
            raise responses.service_unavailable(
                'The published data has no legacy list; is the worker '
                'older than this API?', self._retry_after)
        return responses.representation(pecan.request, held, view)

    @pecan.expose()
    def item(self, flavor_id):
        caller = access.of(pecan.request)
        caller.require(policies.FLAVOR_GET)
        view = responses.current_view(self._reader, self._retry_after)
        generation = view.generation
        # One flavor of the list, made once per version of the list.
        by_id = self._reader.parsed.derived(
            generation, pub.LEGACY_LIST, 'by id', _flavors_by_id)
        visible = base.flavor_filter(self._reader, generation, caller)
        if flavor_id not in by_id or (visible is not None
                                      and not visible(flavor_id)):
            raise webob.exc.HTTPNotFound(detail=UNKNOWN_FLAVOR)

        def make():
            listed = self._reader.parsed.get(generation, pub.LEGACY_LIST)
            return {pub.FLAVOR: by_id[flavor_id],
                    pub.TIMESTAMP: listed[pub.TIMESTAMP]}
        held = self._reader.variants.get(generation, pub.LEGACY_LIST,
                                         ('flavor', flavor_id), make)
        return responses.representation(pecan.request, held, view)


class GpusController:

    def __init__(self, reader, retry_after):
        self.flavors = FlavorsController(reader, retry_after)
