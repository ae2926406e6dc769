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
"""The API's resources, one module per route family.

Each route of the table (api/routes.py) names a function of these
modules: it takes the dispatch.Request (the published data, the route's
parameters, the caller, the parsed query) and returns what to serve, a
published.Answer (a document, served with its validators) or a
responses.Page (made per request), or raises an errors.ApiError.
"""
