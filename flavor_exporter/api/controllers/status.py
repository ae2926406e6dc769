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
"""The worker's status and the clouds served: pages made per request.

Both answer while the cache is cold or unreachable too: that is when an
operator wants to know why.
"""

from flavor_exporter.api.controllers import base
from flavor_exporter.api import responses
from flavor_exporter.policies import capacity as policies
from flavor_exporter.publication import contract as pub


def _age(view):
    return None if view.age is None else round(view.age, 3)


class StatusController(base.Resource):
    """/v3/status: the worker's last refresh, the generation served here.

    Host names (unreadable_hosts of the refresh) only for callers who
    may see hosts; others get how many.
    """

    @base.expose('getStatus')
    def get_all(self):
        request = base.request()
        data = request.published
        view = data.peek(request.cloud)
        if view.generation is None:
            current = None
            problem = view.trouble or 'no data has been published yet'
        else:
            current = view.generation.pointer
            problem = view.trouble
        refresh = data.status(request.cloud)
        if refresh and pub.UNREADABLE_HOSTS in refresh and \
                not request.caller.may(policies.HOSTS):
            refresh = {k: v for k, v in refresh.items()
                       if k != pub.UNREADABLE_HOSTS}
        return responses.page({
            'current': current,
            'age_seconds': _age(view),
            'stale': view.stale,
            'stale_after_seconds': data.stale_after,
            'problem': problem,
            'refresh': refresh,
            'projects': data.project_status(request.cloud),
            'demand': _demand(data.demand(request.cloud),
                              request.caller.may(policies.HOSTS)),
        })


def _demand(demand, with_projects):
    """The requests Nova placed nowhere, by flavor of the flavor list.

    Their projects (the most failing ones, worker/demand.py) for those
    who may see hosts (an operator), counts for others; failures of ids
    the flavor list lacks as one "unknown" total.
    """
    if not demand:
        return None
    flavors = {}
    for flavor_id, entry in demand.get(pub.DEMAND_FLAVORS, {}).items():
        shown = {pub.NAME: entry[pub.NAME],
                 pub.TURNED_AWAY: entry[pub.TURNED_AWAY],
                 pub.LAST_AT: entry[pub.LAST_AT]}
        if with_projects:
            shown[pub.PROJECTS] = entry[pub.PROJECTS]
            shown[pub.OTHER_PROJECTS] = entry.get(pub.OTHER_PROJECTS, 0)
        flavors[flavor_id] = shown
    unknown = demand.get(pub.DEMAND_UNKNOWN) or {}
    return {pub.DEMAND_FLAVORS: flavors,
            pub.DEMAND_UNKNOWN: {
                pub.TURNED_AWAY: unknown.get(pub.TURNED_AWAY, 0),
                pub.LAST_AT: unknown.get(pub.LAST_AT)},
            pub.TURNED_AWAY_LOST: demand.get(pub.TURNED_AWAY_LOST, 0)}


def clouds_page(request):
    """/v3/clouds/: each cloud served, whether default, freshness, links."""
    data = request.published
    listed = []
    for name in data.names():
        view = data.peek(name)
        base_path = '%s/v3/clouds/%s/' % (request.application_url, name)
        listed.append({
            'name': name,
            'default': name == data.default,
            'age_seconds': _age(view),
            'stale': view.stale,
            'links': [
                {'rel': 'flavors', 'href': base_path + 'flavors/'},
                {'rel': 'status', 'href': base_path + 'status'}]})
    return responses.page({'clouds': listed})
