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
"""Rules the capacity policies are made of."""

from oslo_policy import policy

ADMIN_OR_SYSTEM_READER = 'rule:admin_or_system_reader'
ANY_AUTHENTICATED = '@'
PROJECT_READER = 'rule:project_reader'
PROJECT_MEMBER = 'rule:project_member'

rules = [
    policy.RuleDefault(
        name='admin_or_system_reader',
        check_str='role:admin or (role:reader and system_scope:all)',
        description='An administrator, or a reader of the whole '
                    'deployment (a system-scoped token).'),
    policy.RuleDefault(
        name='project_reader',
        check_str='(role:reader or role:member) and '
                  'project_id:%(project_id)s',
        description='A reader or member of the project the route names.'),
    policy.RuleDefault(
        name='project_member',
        check_str='role:member and project_id:%(project_id)s',
        description='A member of the project the request names.'),
]


def list_rules():
    return rules
