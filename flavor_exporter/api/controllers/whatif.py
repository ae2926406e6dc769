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
from flavor_exporter.api import responses
from flavor_exporter.policies import capacity as policies
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import whatif as whatif_docs


class WhatifController(base.Resource):
    """/v3/whatif: the capacity after changes to the cloud."""

    @base.expose('createWhatif')
    def post(self):
        answer = checks.worker_answer(
            pub.WHATIF_REQUESTS_NAME, whatif_docs, whatif_docs.InvalidWhatIf,
            'This API answers no what-ifs ([checks] enabled is false).')
        document = {whatif_docs.WHATIF: answer}
        if not base.request().caller.may(policies.HOSTS):
            document = whatif_docs.without_hosts(document)
        return responses.page(document,
                              headers=[('Cache-Control', 'no-store')])
