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
"""How many servers of a request fit on a host, and on a group of hosts.

Placement's allocation candidates (fit, vector_fit for a host group
at once with numpy), NUMATopologyFilter (numa_fit, as
nova.virt.hardware.numa_fit_instance_to_host; numa_bounds), the host
groups the engine counts together and the per-host numbers it keeps,
and what the free resources of a zone would start if pooled
(fragmentation).
"""
