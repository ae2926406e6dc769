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
"""The capacity engine: a snapshot (model.py) in, a report out; no I/O.

Grouped as Nova's scheduler is: what a flavor asks for (request/),
which hosts may take it (filters/), how many fit on each (fit/, with
Placement's and NUMATopologyFilter's rules), where a server goes
(weights/); what a project may start (quota/), GPU devices by type
(gpus/), and the operators' questions asked of a report (planning/).
engine.py counts every flavor of a snapshot with them.
"""
