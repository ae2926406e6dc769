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
"""Horizon plugin: the capacity service's answers in the dashboard.

Installed with the ``dashboard`` extra; Horizon loads it through the
files of enabled/ copied into openstack_dashboard/local/enabled (the
devstack plugin does so). Every figure is read from the capacity API
with the logged-in user's token, found in the user's service catalog.
"""
