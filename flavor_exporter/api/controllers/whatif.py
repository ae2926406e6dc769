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
"""What if the cloud changed? POST /v3/whatif.

Asked and answered as set checks are (checks.WorkerAnswers): the API
process checks the body (publication/whatif.py), leaves it for the
leading worker in the cache and waits for its answer, within [checks]
wait, max_waiting and new_per_client. The policy (capacity:whatif:create,
administrators and system readers) is the route's; host names the caller
did not give appear only for callers capacity:flavor:hosts allows.
"""

from flavor_exporter.api.controllers import base
from flavor_exporter.api.controllers import checks
from flavor_exporter.api import errors
from flavor_exporter.api import generations
from flavor_exporter.api import responses
from flavor_exporter.policies import capacity as policies
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import reader as reader_mod
from flavor_exporter.publication import whatif as whatif_docs


class WhatifController(base.Resource):
    """/v3/whatif: the capacity after changes to the cloud."""

    @base.expose('createWhatif')
    def post(self):
        request = base.request()
        data = request.published
        state, view = data.answering(request.cloud)
        answers = state.answers.get(pub.WHATIF_REQUESTS_NAME)
        if answers is None:
            raise errors.NotFound('This API answers no what-ifs ([checks] '
                                  'enabled is false).')
        body = checks.request_json(request, whatif_docs.NOT_JSON)
        try:
            wanted = whatif_docs.parse(body)
        except whatif_docs.InvalidWhatIf as exc:
            raise errors.BadRequest('%s.' % exc) from None
        if view.generation is None:
            raise errors.NoData(data.retry_after)
        try:
            answer = answers.get(
                whatif_docs.identity(wanted), whatif_docs.canonical(wanted),
                base.client(), view.generation.pointer[pub.TIMESTAMP])
        except reader_mod.CacheError as exc:
            raise errors.Unavailable('%s: %s' % (generations.UNREACHABLE,
                                                 exc),
                                     data.retry_after) from exc
        document = {whatif_docs.WHATIF: answer}
        if not request.caller.may(policies.HOSTS):
            document = whatif_docs.without_hosts(document)
        return responses.page(document,
                              headers=[('Cache-Control', 'no-store')])
