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

check.check is the entry point (POST /v3/checks, report --check);
moves.place_each moves servers one by one for what-ifs. The parts, one
job each: answer (the shapes answered), api_checks (flavor and zone),
quota_checks (the quota and a multi-create's count), columns (what the
scheduler and its weighers read of every host), scheduler (server by
server: filter, weigh, take), alternatives (flavors that would start
instead).
"""
