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
                 help='Seconds between the end of a refresh of notified '
                      'changes and the start of the next one. The first '
                      'notification after a quiet spell is refreshed at '
                      'once; what Nova announces during a refresh or '
                      'within this many seconds after it waits, and is '
                      'read by one refresh: a burst costs a refresh per '
                      'refresh time plus settle, not one per '
                      'notification.'),
    cfg.FloatOpt('check_interval', default=0.1, min=0.1,
                 help='Seconds between two looks of the leading worker '
                      'for notified changes (one cache read of a few '
                      'counters each): at most this long passes between '
                      'a notification noted by any worker and the refresh '
                      'it starts.'),
]


def register_opts(conf):
    conf.register_group(notifications_group)
    conf.register_opts(opts, group=notifications_group)


def list_opts():
    return {notifications_group: opts}
