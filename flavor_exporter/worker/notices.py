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
"""Conditions a worker reports once: a WARNING when one starts, then DEBUG.

A refresh every 150 s that repeats the same WARNING (a Placement without
allocation candidates, a host whose provider stays unreadable) buries the
line that is new. What lasts is in /v2/status and the metrics; the log
says when it started, and when it ended.
"""

from oslo_log import log


class Notices:
    """The conditions of one worker's last refresh, by topic.

    logger: the module's logger the lines are logged by; prefix: what
    they start with (clouds.Cloud's log_prefix).
    """

    def __init__(self, logger, prefix=''):
        self._logger = logger
        self._prefix = prefix
        self._said = {}  # topic -> the lines of its last say()

    def say(self, topic, lines, ended=None):
        """Log this refresh's lines of topic, each at WARNING once.

        A line said at the previous say() of the topic is logged at DEBUG;
        ended (a line) is logged at INFO when the topic had lines and has
        none now.
        """
        before = self._said.get(topic, ())
        lines = list(lines)
        for line in lines:
            self._logger.log(log.DEBUG if line in before else log.WARNING,
                             '%s%s', self._prefix, line)
        if before and not lines and ended:
            self._logger.info('%s%s', self._prefix, ended)
        self._said[topic] = frozenset(lines)
