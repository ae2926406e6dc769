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

"""``openstack capacity cloud list``: the clouds one service serves.

The names are what ``openstack capacity flavor list|show --cloud`` take.
"""

from osc_lib.command import command

from flavor_exporter.osc import plugin

LIST_COLUMNS = ('Name', 'Default', 'Age Seconds', 'Stale')
LIST_FIELDS = ('name', 'default', 'age_seconds', 'stale')


class ListCloud(command.Lister):
    """The clouds the capacity service serves, and how fresh each is.

    Default: the cloud served without --cloud. Age Seconds: how old its
    data is (empty while none is published); Stale: older than the
    service accepts, or unreadable.
    """

    def take_action(self, parsed_args):
        document = getattr(self.app.client_manager,
                           plugin.API_NAME).list_clouds()
        return LIST_COLUMNS, [tuple(cloud[field] for field in LIST_FIELDS)
                              for cloud in document['clouds']]
