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
"""The API's controllers: Pecan's object dispatch, one module per family.

Pecan walks the tree from root.RootController along the path; each
exposed method serves one route of the table (api/routes.py), which it
names with base.expose(). The hooks (api/hooks.py) do what cuts across
before and after it: who the caller is, the route's policy, its query,
the request log, and JSON errors.
"""
