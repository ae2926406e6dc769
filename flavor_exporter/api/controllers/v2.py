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
"""/v2 pages: the worker's status, the clouds served.

The flavor documents of /v2 are published documents, served by
dispatch.py straight from the queries; these are made per request.
"""

import pecan

from flavor_exporter.api import responses


def _age(view):
    return None if view.age is None else round(view.age, 3)


class V2Controller:

    def __init__(self, queries, stale_after):
        self._queries = queries
        self._stale_after = stale_after

    @pecan.expose()
    def status(self, cloud=None):
        """The worker's last refresh and the generation served here.

        Answers while the cache is cold or unreachable too: that is when
        an operator wants to know why.
        """
        view = self._queries.peek(cloud)
        if view.generation is None:
            current = None
            problem = view.trouble or 'no data has been published yet'
        else:
            current = view.generation.pointer
            problem = view.trouble
        return responses.body({
            'current': current,
            'age_seconds': _age(view),
            'stale': view.stale,
            'stale_after_seconds': self._stale_after,
            'problem': problem,
            'refresh': self._queries.status(cloud),
        })

    @pecan.expose()
    def clouds(self):
        """Each cloud served: name, whether default, freshness, links."""
        listed = []
        for name in self._queries.names():
            view = self._queries.peek(name)
            base_path = '%s/v2/clouds/%s/' % (
                pecan.request.application_url, name)
            listed.append({
                'name': name,
                'default': name == self._queries.default,
                'age_seconds': _age(view),
                'stale': view.stale,
                'links': [
                    {'rel': 'flavors', 'href': base_path + 'flavors/'},
                    {'rel': 'status', 'href': base_path + 'status'}]})
        return responses.body({'clouds': listed})
