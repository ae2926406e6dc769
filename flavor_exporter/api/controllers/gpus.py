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
"""GPU devices by type: the predecessor's first /gpus, and /v3/gpus."""

from flavor_exporter.api.controllers import base
from flavor_exporter.api.controllers import flavors
from flavor_exporter.api import errors
from flavor_exporter.api import filters
from flavor_exporter.api import published
from flavor_exporter.policies import capacity as policies
from flavor_exporter.publication import contract as pub

#: The predecessor's first API's answer for an unknown GPU type, in the
#: same words (its openapi.yaml gave the shape, {"message"}, not the text).
UNKNOWN_LEGACY_GPU = 'Unknown GPU type!'


def _type_document(data, state, generation, listed, name):
    """Document name of a GPU type, or None when there is no such type.

    A generation without the list (its worker predates GPU types) has
    nothing to say about any type: Unavailable, not NotFound.
    """
    if listed not in generation.documents:
        raise errors.Unavailable('the published data has no %s document'
                                 % listed, data.retry_after)
    return data.document(state, generation, name)


class LegacyGpusController(base.Resource):
    """/gpus: the predecessor's two families.

    /gpus/flavors is its later one, matched before a GPU type: a type
    named "flavors" is only found under /v3/gpus/.
    """

    flavors = flavors.LegacyFlavorsController()

    @base.expose('listLegacyGpus')
    def get_all(self):
        """Every GPU type, the predecessor's first shape."""
        request = base.request()
        state, view = request.published.answering(request.cloud)
        return base.answer(request.published.document(
            state, view.generation, pub.LEGACY_GPUS, required=True), view)

    @base.expose('getLegacyGpu')
    def get_one(self, gpu_type):
        """One GPU type, the predecessor's first shape."""
        request = base.request()
        data = request.published
        state, view = data.answering(request.cloud)
        held = _type_document(data, state, view.generation, pub.LEGACY_GPUS,
                              pub.legacy_gpu(gpu_type))
        if held is None:
            raise errors.NotFound(UNKNOWN_LEGACY_GPU)
        return base.answer(held, view)


class GpusController(base.Resource):
    """/v3/gpus/: GPU devices by type."""

    @base.expose('listGpus')
    def get_all(self):
        """Every GPU type, filtered by query (a filters.GpuQuery).

        A zone the cloud does not have is a BadRequest.
        """
        request = base.request()
        data = request.published
        zone = request.query.availability_zone
        state, view = data.answering(request.cloud)
        generation = view.generation
        held = data.document(state, generation, pub.V3_GPUS, required=True)
        unreadable = data.unreadable_hosts(state, generation, request.caller)
        if zone is None and unreadable is None:
            return base.answer(data.fresh_or_stale(held, view), view)

        def make():
            document = data.value(state, generation, pub.V3_GPUS)
            if zone is not None:
                # A zone with hosts but no GPUs is known: its types count 0.
                zones = (data.derived(state, generation, pub.V3_LIST,
                                      'zones', filters.known_zones)
                         | data.derived(state, generation, pub.V3_GPUS,
                                        'zones', filters.gpu_zones))
                document = filters.apply_gpus(request.query, document, zones)
            return pub.encode(published.marked(document, view.stale,
                                               unreadable))
        variant = (zone, view.stale,
                   published.unreadable_tag(generation, unreadable))
        return base.answer(data.variant(held, variant, make), view)

    @base.expose('getGpu')
    def get_one(self, gpu_type):
        """One GPU type.

        With the hosts policy, the type carries its per-host rows and the
        unreadable hosts by name.
        """
        request = base.request()
        data = request.published
        state, view = data.answering(request.cloud)
        generation = view.generation
        name = pub.v3_gpu(gpu_type)
        held = _type_document(data, state, generation, pub.V3_GPUS, name)
        if held is None:
            raise errors.NotFound('No GPU type is named "%s"; GET /v3/gpus/ '
                                  'lists them.' % gpu_type)
        if not request.caller.may(policies.HOSTS):
            return base.answer(data.fresh_or_stale(held, view), view)
        return base.answer(data.with_host_rows(
            state, view, held, name, pub.v3_gpu_hosts(gpu_type),
            pub.with_gpu_hosts, request.caller), view)
