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
"""Can a set of servers start together? Nova's API and scheduler, in order.

A set is a list of requests in launch order, each N servers of one
flavor: N successive boot requests, or one multi-create request
(min_count..N). Each request is checked as Nova's API and scheduler
would: the flavor and zone (api_checks), the project's quota
(quota_checks: a multi-create starts as many as the quota allows between
min_count and N), then each server placed by the scheduler
(scheduler.py). The first request Nova would refuse ends the check:
nothing after it is tried, as a client launching the set in order stops
there, and flavors like its own that would start are named
(alternatives).
"""

from flavor_exporter.capacity.planning.set_check import alternatives
from flavor_exporter.capacity.planning.set_check import answer
from flavor_exporter.capacity.planning.set_check import api_checks
from flavor_exporter.capacity.planning.set_check import quota_checks
from flavor_exporter.capacity.planning.set_check import scheduler
from flavor_exporter.capacity.quota import quota as quota_mod
from flavor_exporter.capacity.weights import weighers
from flavor_exporter.common import set_request


def check(report, options, settings, columns, request, quota=None,
          numa_counts=None):
    """The SetAnswer of a SetRequest on a report (engine.compute's).

    columns: columns.Columns(report, settings), kept between checks of a
    report; quota: the project's quota.ProjectQuota, None when not checked.
    """
    state = scheduler.Scheduler(report, options, settings, columns,
                                request, quota, numa_counts)
    notes = weighers.unmodelled(settings)
    if columns.without_figures:
        notes.append('%d host(s) without the compute node figures of '
                     'os-hypervisors: weighed from Placement, with no I/O '
                     'operations' % columns.without_figures)
    if columns.without_stats and weighers.reads_stats(settings):
        notes.append(
            '%d host(s) weighed without their stats (IoOpsWeigher counts '
            'the builds since the compute\'s last audit, '
            'BuildFailureWeigher its failed builds; only the cell '
            'database shows them, [openstack] cell_database_connections): '
            'taken as the builds under way and none failed'
            % columns.without_stats)
    if request.project_id is None:
        notes.append('no project: quotas not checked')
    outcomes = [answer.Outcome(wanted) for wanted in request.servers]
    zone_stop = api_checks.zone_stop(report, request.availability_zone)
    placed_hosts = set()
    members = 0
    results = [api_checks.lookup(report, o.wanted.flavor) for o in outcomes]
    for outcome, result in zip(outcomes, results):
        outcome.flavor = result.flavor if result else None
    for index, (outcome, result) in enumerate(zip(outcomes, results)):
        wanted = outcome.wanted
        outcome.stop = zone_stop or api_checks.flavor_stop(result, wanted,
                                                           request)
        if outcome.stop is None:
            outcome.notes = list(result.request.unsupported)
            outcome.stop = _start(state, outcome, result, placed_hosts,
                                  members)
            members += len(outcome.started)
        if outcome.stop is not None:
            if outcome.stop.kind in (answer.RESOURCES, answer.SERVER_GROUP,
                                     answer.QUOTA) and \
                    result is not None:
                outcome.alternatives = alternatives.find(state, result,
                                                         placed_hosts)
            for later in outcomes[index + 1:]:
                later.reached = False
            break
    guessed = state.guessed_hosts(results)
    if guessed:
        notes.append(
            'on %s a server took from one of several unlike providers of '
            'a class another flavor of the set takes too (a VGPU provider '
            'per physical GPU): which one is Placement\'s order, not known '
            'outside its process; the check took Nova\'s usual choice (the '
            'provider the flavor\'s last server took, else the fullest), '
            'and the servers after may differ' % ', '.join(guessed))
    if state.most_candidates > settings.max_results:
        notes.append(
            'up to %d hosts fit a server; Nova weighs only the %d '
            'Placement offers first (max_placement_results; '
            'randomize_allocation_candidates decides which): the hosts '
            'named are the best of all' % (state.most_candidates,
                                           settings.max_results))
    return answer.SetAnswer(all(o.stop is None for o in outcomes), outcomes,
                            notes)


def _start(state, outcome, result, placed_hosts, members_before):
    """Start outcome's servers on state; the Stop of the rest or None."""
    wanted = outcome.wanted
    fits = state.fits_of(result)
    print_ = quota_mod.footprint_of(state.quota, result.flavor,
                                    result.request)
    group_limit = quota_checks.group_members_limit(state.quota) \
        if state.group else None
    if wanted.mode == set_request.MULTI_CREATE:
        count, stop = quota_checks.multi_create_count(
            state, result, print_, wanted, group_limit, members_before)
        if stop is not None:
            return stop
        saved, hosts_before = state.save(), set(placed_hosts)
        started, stop = state.servers(fits, count, placed_hosts, multi=True)
        if stop is not None:
            # All or nothing: Nova gives back every claim of the request.
            state.undo(saved)
            placed_hosts.clear()
            placed_hosts.update(hosts_before)
            return answer.Stop(stop.kind, 'the multi-create request of %d '
                               'fails whole (%d placed before): %s'
                               % (count, len(started), stop.reason),
                               stop.limit)
        outcome.started = started
        state.quota = quota_mod.consumed(state.quota, print_, count)
        return None
    for _ in range(wanted.count):
        stop = quota_checks.one_more(
            state, print_, group_limit,
            members_before + len(outcome.started))
        if stop is not None:
            return stop
        started, stop = state.servers(fits, 1, placed_hosts, multi=False)
        if stop is not None:
            return stop
        outcome.started += started
        state.quota = quota_mod.consumed(state.quota, print_, 1)
    return None
