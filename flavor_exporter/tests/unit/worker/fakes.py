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
"""A stand-in for openstack.CloudClient that answers canned documents."""

import copy

from flavor_exporter.worker import openstack


def servers_listed(servers, params):
    """The servers Nova's listing answers with params.

    SOFT_DELETED ones only when asked for by status, with deleted=true.
    """
    if params.get('status'):
        return [s for s in servers if s.get('status') == params['status']]
    return [s for s in servers if s.get('status') != 'SOFT_DELETED']


class FakeClient:
    """CloudClient's interface over canned answers, recording every call.

    bodies maps a path to the document a GET of it answers, or to the
    exception that GET raises. Paths it lacks go to answer(service, path,
    params) when given, and otherwise fail as a 404 would. Lists come in
    one page and map() calls one item after the other, so that the calls
    a test sees, and their order, are exact.
    """

    def __init__(self, bodies=None, answer=None,
                 services=('compute', 'placement')):
        self.bodies = dict(bodies or {})
        self._answer = answer
        self._services = services
        self.requests = []  # (service, path, microversion, params)

    @property
    def call_count(self):
        return len(self.requests)

    def has_service(self, service_type):
        return service_type in self._services

    def get(self, service, path, microversion=None, params=None):
        self.requests.append((service, path, microversion, params))
        if path in self.bodies:
            body = self.bodies[path]
        elif self._answer is not None:
            body = self._answer(service, path, params or {})
        else:
            raise openstack.CloudError('%s GET %s answered 404'
                                       % (service, path))
        if isinstance(body, Exception):
            raise body
        if path == '/servers/detail' and isinstance(body, dict):
            body = dict(body, servers=servers_listed(body['servers'],
                                                     params or {}))
        # A copy, as a new answer would be: the caller may change it.
        return copy.deepcopy(body)

    def get_all(self, service, path, key, microversion=None, params=None):
        return self.get(service, path, microversion, params)[key]

    def map(self, function, items):
        return [function(item) for item in items]

    def get_many(self, service, paths, microversion=None):
        """As CloudClient.get_many, one path after the other."""
        got = []
        for path in paths:
            try:
                got.append(self.get(service, path, microversion))
            except openstack.CloudError as exc:
                got.append(exc)
        return got

    def paths(self, start=0):
        """The paths asked for, from the start-th call on."""
        return [path for _, path, _, _ in self.requests[start:]]
