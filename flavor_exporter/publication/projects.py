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
"""Project documents: the parts the worker publishes, the join the API serves.

What one project can start (/v3/projects/{id}/flavors/) is made of parts
that change at different times (capacity/quota/projects.py):

- in every generation, beside the cloud-wide list: FOOTPRINTS (which
  footprint each flavor has: what one instance counts against the
  quota) and PROJECT_PATTERNS (the tenant filters, and which host
  pattern each project the aggregates name has), plus, when a tenant
  filter runs, a project_capacity() document per pattern (a flavor's
  numbers on the hosts of the pattern);
- per project, written when its quota is read: the quota reading and the
  headroom per footprint (quota_document()), a few kilobytes.

join() makes the served document of them and the cloud-wide list, once
per version of its parts (the API keeps it in its memo); without a
tenant filter a project's capacity is the cloud-wide list's. A project
document is as fresh as the cloud-wide data, whenever its quota was read.
"""

import re

from flavor_exporter.publication import contract as pub

# Keystone ids are 32 hex digits; other identity backends use up to 64
# characters of these. Anything else cannot be a project and must not
# reach a cache key.
_PROJECT_ID = re.compile(r'[A-Za-z0-9_-]{1,64}')

#: Which footprint each flavor has, and the quota system they count for.
FOOTPRINT_OF = 'flavors'
#: Fields of a project's quota document (pub.project()).
HEADROOM = 'headroom'
FOOTPRINTS_IDENTITY = 'footprints'
# Fields of PROJECT_PATTERNS.
ISOLATION = 'isolation'
DEFAULT = 'default'
PROJECTS = 'projects'
PATTERN = 'pattern'


def valid_project_id(project_id):
    """Whether project_id can name a project (and a cache key)."""
    return _PROJECT_ID.fullmatch(project_id) is not None


AGGREGATES = 'aggregates'
QUOTA = 'quota'


def footprints_document(system, of_flavor):
    """pub.FOOTPRINTS: {flavor id: footprint index} of one quota system."""
    return pub.encode({'system': system,
                       FOOTPRINT_OF: dict(sorted(of_flavor.items()))})


def isolation_value(isolation):
    return {'aggregate_multitenancy_isolation': isolation.host_filter,
            'limit_tenants_to_placement_aggregate':
                isolation.request_filter,
            'placement_aggregate_required_for_tenants': isolation.required}


def patterns_document(isolation, default, named):
    """pub.PROJECT_PATTERNS.

    default: the pattern name of projects no aggregate names (None
    without a tenant filter: the cloud-wide numbers are theirs); named:
    {project id: (pattern name, [own aggregate names])}.
    """
    return pub.encode({
        ISOLATION: isolation_value(isolation), DEFAULT: default,
        PROJECTS: {project_id: {PATTERN: pattern, AGGREGATES: aggregates}
                   for project_id, (pattern, aggregates)
                   in sorted(named.items())}})


def capacity_document(numbers):
    """pub.project_capacity() of {flavor id: quota.projects.Numbers}.

    {flavor id: [total, available, {zone: [total, available]}, {why:
    hosts}]}.
    """
    return pub.encode({
        flavor_id: [n.total, n.available, n.zones, dict(sorted(
            n.excluded.items()))]
        for flavor_id, n in sorted(numbers.items())})


def quota_value(quota):
    """The "quota" of a project document: the reading, as Nova counts."""
    if quota is None:
        return None
    body = {'system': quota.system, 'limits': dict(sorted(
        quota.limits.items())), 'in_use': dict(sorted(
            quota.in_use.items()))}
    if quota.registered:
        body['registered_limits'] = dict(sorted(quota.registered.items()))
    if quota.system == 'nova':
        body['count_usage_from_placement'] = \
            quota.count_usage_from_placement
    body['notes'] = []
    return body


def quota_document(project_id, quota, headrooms, footprints_identity):
    """A project's part: its quota reading and headroom per footprint.

    headrooms: [quota.Headroom] by footprint index, of the footprints
    whose document has footprints_identity (pub.identity of its bytes).
    """
    return pub.encode({
        pub.PROJECT_ID: project_id,
        pub.QUOTA_TIMESTAMP: (pub.iso_from_epoch(quota.read_at)
                              if quota and quota.read_at else None),
        QUOTA: quota_value(quota),
        FOOTPRINTS_IDENTITY: footprints_identity,
        HEADROOM: [[h.instances, h.limited_by, list(h.notes)]
                   for h in headrooms]})


def _flavor(listed, headroom, numbers):
    """A flavor as the project sees it, from the cloud-wide list's entry.

    numbers: [total, available, zones, excluded] on the project's hosts,
    None for the cloud-wide numbers (no tenant filter).
    """
    instances, limited_by, notes = headroom
    body = {key: value for key, value in listed.items()
            if key not in ('description', 'limited_by', 'resources',
                           pub.RESERVED)}
    if listed[pub.TOTAL] is None:
        # Nova's API refuses such a flavor: nothing starts.
        total = free = None
        zones, excluded = {}, {}
    elif numbers is None:
        total, free = listed[pub.TOTAL], listed[pub.AVAILABLE]
        zones = {zone: [z[pub.TOTAL], z[pub.AVAILABLE]]
                 for zone, z in listed[pub.ZONES].items()}
        excluded = {}
    else:
        total, free, zones, excluded = numbers
    if free is None:
        startable, startable_by = 0, None
    elif instances is not None and instances <= free:
        startable, startable_by = instances, 'quota'
    else:
        startable, startable_by = free, 'capacity'
    body.update({
        pub.TOTAL: total,
        pub.AVAILABLE: free,
        pub.QUOTA: {'headroom': instances, 'limited_by': limited_by,
                    'notes': notes},
        pub.STARTABLE: startable,
        'startable_limited_by': startable_by,
        pub.ZONES: {
            zone: {pub.TOTAL: t, pub.AVAILABLE: a,
                   pub.STARTABLE: a if instances is None
                   else min(a, instances)}
            for zone, (t, a) in sorted(zones.items())},
        pub.EXCLUDED: excluded,
    })
    return body


def join(pointer, listed, footprints, patterns, capacity, project,
         visible, stale):
    """The /v3/projects/{id}/flavors/ document value.

    pointer: the generation's pointer (timestamp, source, unreadable
    hosts); listed: its decoded v3 list; footprints and patterns: its
    pub.FOOTPRINTS and pub.PROJECT_PATTERNS; capacity: the project's
    pub.project_capacity() document, None for the cloud-wide numbers;
    project: the project's quota_document(); visible(flavor id): whether
    the project may use the flavor (public, or shared with it).
    """
    project_id = project[pub.PROJECT_ID]
    of_flavor = footprints[FOOTPRINT_OF]
    headroom = project[HEADROOM]
    named = patterns[PROJECTS].get(project_id)
    flavors = []
    for listed_flavor in listed[pub.FLAVORS]:
        flavor_id = listed_flavor[pub.ID]
        if not visible(flavor_id):
            continue
        numbers = None
        if capacity is not None:
            numbers = capacity.get(flavor_id, [0, 0, {}, {}])
        flavors.append(_flavor(listed_flavor,
                               headroom[of_flavor[flavor_id]], numbers))
    return {
        pub.PROJECT_ID: project_id,
        pub.TIMESTAMP: pointer[pub.TIMESTAMP],
        pub.STALE: stale,
        pub.QUOTA_TIMESTAMP: project[pub.QUOTA_TIMESTAMP],
        pub.SOURCE: pointer[pub.SOURCE],
        pub.QUOTA: project[QUOTA],
        'tenant_isolation': dict(patterns[ISOLATION], **{
            AGGREGATES: named[AGGREGATES] if named else []}),
        pub.PARTIAL: bool(pointer.get(pub.UNREADABLE_COUNT)),
        pub.UNREADABLE_COUNT: pointer.get(pub.UNREADABLE_COUNT, 0),
        pub.FLAVORS: flavors,
    }


def visible_to(access, project_id):
    """Whether project_id may use a flavor, by its id.

    access: the pub.ACCESS document: {private flavor id: [projects it is
    shared with] or null (unknown: nobody but administrators)}.
    """
    def visible(flavor_id):
        if flavor_id not in access:
            return True
        projects = access[flavor_id]
        return projects is not None and project_id in projects
    return visible


def pattern_of(patterns, project_id):
    """The name of a project's pattern, None for the cloud-wide numbers."""
    named = patterns[PROJECTS].get(project_id)
    return named[PATTERN] if named else patterns[DEFAULT]
