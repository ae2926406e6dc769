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
"""What the project's quota lets a request of the set start.

Nova's API checks the quota before the scheduler: a boot of one server
against one more instance of the flavor's footprint (and the group's
server_group_members); a multi-create asks for N and starts as many as
the quota allows between min_count and N, else refuses the request.
"""

from flavor_exporter.capacity.planning.set_check import answer
from flavor_exporter.capacity.quota import quota as quota_mod


def group_members_limit(quota):
    """The project's server_group_members limit, None when unlimited."""
    return None if quota is None else quota.group_members_limit()


def one_more(state, print_, group_limit, members):
    """The quota's Stop of one more server, or None.

    members: the group's servers so far, group_limit its quota (None
    when unlimited or no group), print_ the flavor's footprint.
    """
    if group_limit is not None and members >= group_limit:
        return answer.Stop(
            answer.QUOTA, 'the project\'s server_group_members quota '
            '(%d) is reached' % group_limit, 'server_group_members')
    headroom = quota_mod.footprint_headroom(state.quota, print_)
    if headroom.instances is not None and headroom.instances < 1:
        return answer.Stop(answer.QUOTA, 'the project\'s quota is exhausted '
                           '(%s)' % headroom.limited_by, headroom.limited_by)
    return None


def multi_create_count(state, result, print_, wanted, group_limit, members):
    """(servers a multi-create makes, None) or (0, the quota's Stop)."""
    count = wanted.count
    headroom = quota_mod.footprint_headroom(state.quota, print_)
    if headroom.instances is not None and headroom.instances < count:
        refused = headroom.instances < wanted.min_count
        if print_.system == quota_mod.DB and \
                state.quota.limits.get('instances', -1) < 0:
            # Nova derives the headroom of cores and RAM from that of
            # instances, negative when unlimited: nothing starts.
            refused = True
        if refused:
            return 0, answer.Stop(
                answer.QUOTA, 'the project\'s quota allows %d, fewer '
                'than min_count %d (%s)' % (
                    headroom.instances, wanted.min_count,
                    headroom.limited_by), headroom.limited_by)
        count = headroom.instances
    if group_limit is not None and members + count > group_limit:
        # Checked per server once the count is set: the request fails.
        return 0, answer.Stop(
            answer.QUOTA, 'the project\'s server_group_members quota '
            '(%d) is exceeded by %d more' % (group_limit, count),
            'server_group_members')
    return count, None
