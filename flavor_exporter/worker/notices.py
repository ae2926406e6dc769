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
"""What a worker logs once: a WARNING when a condition starts, then DEBUG.

A refresh every 150 s that repeats the same WARNING (a Placement without
allocation candidates, a host whose provider stays unreadable) buries the
line that is new. What lasts is in /v3/status and the metrics; the log
says when a condition started and when it ended. The memory of what was
said is this process's own, as its log is.
"""

import logging


class Notices:
    """The conditions one worker's refreshes have logged, by topic.

    logger: the logger the lines go to; prefix: what they start with
    (clouds.Cloud's log_prefix).
    """

    def __init__(self, logger, prefix=''):
        self._logger = logger
        self._prefix = prefix
        self._said = {}  # topic -> the lines it holds now

    def lines(self, topic, lines, ended=None):
        """Log this refresh's lines of topic: WARNING for a line not held.

        A line the topic already holds is logged at DEBUG. ended: a line
        logged at INFO when the topic held lines and has none now.
        """
        lines = list(lines)
        before = self._said.get(topic, frozenset())
        for line in lines:
            self._log(logging.DEBUG if line in before else logging.WARNING,
                      line)
        if before and not lines and ended:
            self._log(logging.INFO, ended)
        self._said[topic] = frozenset(lines)

    def started(self, topic, line):
        """A condition of topic holds: WARNING unless it already held.

        For conditions whose wording changes from one refresh to the
        next (an error with a request id): the topic, not the line, says
        whether it is new.
        """
        self._log(logging.DEBUG if self._said.get(topic) else logging.WARNING,
                  line)
        self._said[topic] = frozenset([topic])

    def ended(self, topic, line):
        """The condition of topic no longer holds: INFO if it did."""
        if self._said.pop(topic, None):
            self._log(logging.INFO, line)

    def _log(self, level, line):
        self._logger.log(level, '%s%s', self._prefix, line)
