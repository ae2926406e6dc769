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
"""Which live migrations free room for a flavor? POST /v3/defrag.

Asked and answered as set checks and what-ifs are
(checks.WorkerAnswers): the API process checks the body
(publication/defrag.py), leaves it for the leading worker in the cache
and waits for its answer, within [checks] wait, max_waiting and
new_per_client. The policy (capacity:defrag:create, administrators and
system readers) is the route's: a plan names hosts and the servers of
every project.
"""

from flavor_exporter.api.controllers import base
from flavor_exporter.api.controllers import checks
from flavor_exporter.api import responses
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import defrag as defrag_docs


class DefragController(base.Resource):
    """/v3/defrag: the fewest live migrations that free room."""

    @base.expose('createDefrag')
    def post(self):
        answer = checks.worker_answer(
            pub.DEFRAG_REQUESTS_NAME, defrag_docs, defrag_docs.InvalidDefrag,
            'This API answers no defrag requests ([checks] enabled is '
            'false).')
        return responses.page({defrag_docs.DEFRAG: answer},
                              headers=[('Cache-Control', 'no-store')])
