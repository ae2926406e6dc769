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
"""Who may read which capacity data.

Any authenticated user reads the numbers of the flavors their project may
use: public flavors, and private ones shared with their project; and how
many GPU devices of each type the cloud has, uses and leaves free. Per-host
breakdowns name compute nodes and how full each is, the refresh status
shows how the cloud is read, and private flavors are other projects'
business: those need an administrator or a system reader.
"""

from oslo_policy import policy

from flavor_exporter.policies import base

PREFIX = 'capacity:'
FLAVOR_LIST = PREFIX + 'flavor:list'
FLAVOR_GET = PREFIX + 'flavor:get'
ALL_FLAVORS = PREFIX + 'flavor:all_projects'
HOSTS = PREFIX + 'flavor:hosts'
GPU_LIST = PREFIX + 'gpu:list'
GPU_GET = PREFIX + 'gpu:get'
STATUS = PREFIX + 'status:get'
METRICS = PREFIX + 'metrics:get'
PROJECT_FLAVOR_LIST = PREFIX + 'project:flavor:list'
PROJECT_FLAVOR_GET = PREFIX + 'project:flavor:get'
CHECK_CREATE = PREFIX + 'check:create'
WHATIF_CREATE = PREFIX + 'whatif:create'
DEFRAG_CREATE = PREFIX + 'defrag:create'

_SCOPES = ['system', 'project']

rules = [
    policy.DocumentedRuleDefault(
        name=FLAVOR_LIST,
        check_str=base.ANY_AUTHENTICATED,
        description='List the capacity of the flavors the caller may see.',
        operations=[{'method': 'GET', 'path': '/v3/flavors'},
                    {'method': 'GET', 'path': '/v2/flavors'},
                    {'method': 'GET', 'path': '/gpus/flavors'},
                    {'method': 'GET', 'path': '/v3/clouds'},
                    {'method': 'GET', 'path': '/v3/clouds/{cloud}/flavors'}],
        scope_types=_SCOPES),
    policy.DocumentedRuleDefault(
        name=FLAVOR_GET,
        check_str=base.ANY_AUTHENTICATED,
        description='Show the capacity of one flavor the caller may see.',
        operations=[{'method': 'GET', 'path': '/v3/flavors/{flavor}'},
                    {'method': 'GET', 'path': '/gpus/flavors/{flavor_id}'},
                    {'method': 'GET',
                     'path': '/v3/clouds/{cloud}/flavors/{flavor}'}],
        scope_types=_SCOPES),
    policy.DocumentedRuleDefault(
        name=ALL_FLAVORS,
        check_str=base.ADMIN_OR_SYSTEM_READER,
        description='See every private flavor, not only those shared with '
                    'the caller\'s project.',
        operations=[{'method': 'GET', 'path': '/v3/flavors'},
                    {'method': 'GET', 'path': '/v3/flavors/{flavor}'},
                    {'method': 'GET', 'path': '/v2/flavors'},
                    {'method': 'GET', 'path': '/gpus/flavors'},
                    {'method': 'GET', 'path': '/gpus/flavors/{flavor_id}'}],
        scope_types=_SCOPES),
    policy.DocumentedRuleDefault(
        name=HOSTS,
        check_str=base.ADMIN_OR_SYSTEM_READER,
        description='See per-host breakdowns: of a flavor, with the hosts '
                    'excluded from it, and of a GPU type (compute node '
                    'names and how full they are); and which hosts could '
                    'not be read, and why (others see how many). One rule '
                    'for all: where a GPU flavor fits tells where its GPUs '
                    'are free.',
        operations=[{'method': 'GET', 'path': '/v3/flavors'},
                    {'method': 'GET', 'path': '/v3/flavors/{flavor}'},
                    {'method': 'GET', 'path': '/v3/gpus'},
                    {'method': 'GET', 'path': '/v3/gpus/{gpu_type}'},
                    {'method': 'GET', 'path': '/v3/status'}],
        scope_types=_SCOPES),
    policy.DocumentedRuleDefault(
        name=GPU_LIST,
        check_str=base.ANY_AUTHENTICATED,
        description='List GPU devices by type: how many exist, are used, '
                    'are free and are stranded, per availability zone.',
        operations=[{'method': 'GET', 'path': '/v3/gpus'},
                    {'method': 'GET', 'path': '/gpus'},
                    {'method': 'GET', 'path': '/v3/clouds/{cloud}/gpus'}],
        scope_types=_SCOPES),
    policy.DocumentedRuleDefault(
        name=GPU_GET,
        check_str=base.ANY_AUTHENTICATED,
        description='Show the GPU devices of one type.',
        operations=[{'method': 'GET', 'path': '/v3/gpus/{gpu_type}'},
                    {'method': 'GET', 'path': '/gpus/{gpu_type}'},
                    {'method': 'GET',
                     'path': '/v3/clouds/{cloud}/gpus/{gpu_type}'}],
        scope_types=_SCOPES),
    policy.DocumentedRuleDefault(
        name=STATUS,
        check_str=base.ADMIN_OR_SYSTEM_READER,
        description='Show how the worker last read the cloud: errors, '
                    'problems, API calls.',
        operations=[{'method': 'GET', 'path': '/v3/status'},
                    {'method': 'GET', 'path': '/v3/clouds/{cloud}/status'}],
        scope_types=_SCOPES),
    policy.DocumentedRuleDefault(
        name=PROJECT_FLAVOR_LIST,
        check_str='%s or %s' % (base.ADMIN_OR_SYSTEM_READER,
                                base.PROJECT_READER),
        description='List what one project can start: per flavor it may '
                    'use, the capacity on the hosts it may use, its quota '
                    'headroom and the smaller of the two. Its own readers '
                    'and members, administrators and system readers.',
        operations=[{'method': 'GET',
                     'path': '/v3/projects/{project_id}/flavors'},
                    {'method': 'GET', 'path': '/v3/clouds/{cloud}/'
                     'projects/{project_id}/flavors'}],
        scope_types=_SCOPES),
    policy.DocumentedRuleDefault(
        name=PROJECT_FLAVOR_GET,
        check_str='%s or %s' % (base.ADMIN_OR_SYSTEM_READER,
                                base.PROJECT_READER),
        description='Show what one project can start of one flavor.',
        operations=[{'method': 'GET',
                     'path': '/v3/projects/{project_id}/flavors/{flavor}'},
                    {'method': 'GET', 'path': '/v3/clouds/{cloud}/'
                     'projects/{project_id}/flavors/{flavor}'}],
        scope_types=_SCOPES),
    policy.DocumentedRuleDefault(
        name=CHECK_CREATE,
        check_str='%s or %s' % (base.ADMIN_OR_SYSTEM_READER,
                                base.PROJECT_MEMBER),
        description='Check whether a set of servers can start together '
                    'for a project, and why not: its own members, '
                    'administrators and system readers. The project is '
                    'the body\'s project_id, by default the token\'s; a '
                    'check without a project (quotas not checked) needs '
                    'an administrator or a system reader. Host names '
                    'are in the answer only for capacity:flavor:hosts.',
        operations=[{'method': 'POST', 'path': '/v3/checks'},
                    {'method': 'POST', 'path': '/v3/clouds/{cloud}/checks'}],
        scope_types=_SCOPES),
    policy.DocumentedRuleDefault(
        name=WHATIF_CREATE,
        check_str=base.ADMIN_OR_SYSTEM_READER,
        description='Ask what capacity the cloud would have after changes '
                    '(hosts drained, evacuated, added or removed, '
                    'allocation ratios or reservations, flavors): '
                    'administrators and system readers. Not project '
                    'members: an answer tells the whole cloud\'s figures '
                    'and the servers of other projects evacuated. Host '
                    'names the caller did not give are in the answer only '
                    'for capacity:flavor:hosts.',
        operations=[{'method': 'POST', 'path': '/v3/whatif'},
                    {'method': 'POST', 'path': '/v3/clouds/{cloud}/whatif'}],
        scope_types=_SCOPES),
    policy.DocumentedRuleDefault(
        name=DEFRAG_CREATE,
        check_str=base.ADMIN_OR_SYSTEM_READER,
        description='Ask for the fewest live migrations after which more '
                    'servers of a flavor start: administrators and system '
                    'readers. Not project members: a plan names hosts and '
                    'the servers of every project.',
        operations=[{'method': 'POST', 'path': '/v3/defrag'},
                    {'method': 'POST', 'path': '/v3/clouds/{cloud}/defrag'}],
        scope_types=_SCOPES),
    policy.DocumentedRuleDefault(
        name=METRICS,
        check_str=base.ADMIN_OR_SYSTEM_READER,
        description='Scrape the Prometheus metrics (every flavor, private '
                    'ones included).',
        operations=[{'method': 'GET', 'path': '/metrics'}],
        scope_types=_SCOPES),
]


def list_rules():
    return rules
