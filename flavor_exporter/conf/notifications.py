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
"""How the worker hears Nova's notifications.

Where the cloud's message bus is, is the cloud's: [openstack]
notification_transport_url (and each [cloud:NAME]'s). These options say
how to listen there.
"""

from oslo_config import cfg

notifications_group = cfg.OptGroup(
    'notifications', title="Nova's notifications",
    help="The worker refreshes within seconds of what Nova announces on "
         "its message bus when [openstack] notification_transport_url is "
         "set; polling every [worker] refresh_interval stays.")

opts = [
    cfg.ListOpt('topics',
                default=['versioned_notifications', 'notifications'],
                help="Topics Nova sends notifications on: nova.conf's "
                     "[notifications] versioned_notifications_topics and "
                     "[oslo_messaging_notifications] topics. Listening to "
                     "both serves every [notifications] "
                     "notification_format."),
    cfg.StrOpt('exchange', default='nova',
               help="The exchange Nova sends on: nova.conf's "
                    "[DEFAULT] control_exchange."),
    cfg.StrOpt('pool', default='flavor-exporter',
               help='The listener pool of the workers: each notification '
                    'reaches one worker of the pool, and other consumers '
                    '(Ceilometer, Watcher, Masakari) still get their own '
                    'copies.'),
    cfg.FloatOpt('settle', default=1.0, min=0,
                 help='Seconds the leading worker waits after the first '
                      'notification of a change before it refreshes, so '
                      'that a burst is one refresh.'),
    cfg.FloatOpt('check_interval', default=0.5, min=0.1,
                 help='Seconds between two looks of the leading worker '
                      'for notified changes.'),
]


def register_opts(conf):
    conf.register_group(notifications_group)
    conf.register_opts(opts, group=notifications_group)


def list_opts():
    return {notifications_group: opts}
