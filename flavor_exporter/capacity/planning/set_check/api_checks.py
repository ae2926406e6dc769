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
"""What Nova's API refuses before a request reaches the scheduler.

The flavor (an id, else a name; one the API would refuse; a private one
not shared with the project) and the availability zone (one no enabled
compute service is in). Nothing of the request is tried then.
"""

from flavor_exporter.capacity.planning.set_check import answer


def lookup(report, key):
    """The FlavorCapacity of an id, else of a name (ids win), or None."""
    by_name = None
    for result in report.flavors:
        if result.flavor.id == key:
            return result
        if by_name is None and result.flavor.name == key:
            by_name = result
    return by_name


def usable_by(flavor, project_id):
    if flavor.is_public:
        return True
    return project_id is not None and project_id in (flavor.projects or ())


def zone_stop(report, zone):
    if zone is None:
        return None
    offered = set(report.unrestricted_zones) | {
        host.availability_zone for host in report.hosts
        if host.enabled and host.availability_zone}
    if zone in offered:
        return None
    return answer.Stop(answer.ZONE, 'Nova offers no availability zone %s '
                       '(no enabled compute service is in it): it refuses '
                       'the request' % zone)


def flavor_stop(result, wanted, request):
    if result is None:
        return answer.Stop(answer.FLAVOR, 'no flavor with the id or name %s'
                           % wanted.flavor)
    if result.request is None:
        return answer.Stop(answer.FLAVOR, 'Nova refuses flavor %s: %s'
                           % (result.flavor.name, result.error))
    if request.project_id is not None and \
            not usable_by(result.flavor, request.project_id):
        return answer.Stop(answer.FLAVOR, 'flavor %s is private and not '
                           'shared with project %s'
                           % (result.flavor.name, request.project_id))
    return None
