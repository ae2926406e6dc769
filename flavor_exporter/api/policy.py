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
"""The policy enforcer of the API (oslo.policy)."""

from oslo_policy import policy

from flavor_exporter.common import config
from flavor_exporter import policies


def make_enforcer(conf):
    enforcer = policy.Enforcer(conf)
    enforcer.register_defaults(policies.list_rules())
    return enforcer


def get_enforcer():
    """The enforcer of this deployment, for the oslopolicy-* commands."""
    config.parse_args([])
    return make_enforcer(config.CONF)
