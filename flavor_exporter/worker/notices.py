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

Tally is for what happens too often to log each time (notifications a
hostile or broken publisher floods the bus with): the first is a line,
the rest a count, one line per interval.
"""

import logging
import threading


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


class Tally:
    """Occurrences of one kind: the first logged, then one line a minute.

    A flood of bad notifications is a line per interval, never a line
    per message: the first of a quiet spell is a WARNING at once, those
    after it are counted, and when interval seconds are over one WARNING
    says how many and what the first of them was. An interval without
    any ends the spell. Safe to call from the listener's threads.

    what: the occurrences' plural ("malformed notifications"). timer:
    threading.Timer's signature, for tests.
    """

    def __init__(self, logger, what, prefix='', interval=60.0,
                 timer=threading.Timer):
        self._logger = logger
        self._what = what
        self._prefix = prefix
        self._interval = interval
        self._timer = timer
        self._lock = threading.Lock()
        self._spell = False  # a line was logged less than interval ago
        self._count = 0
        self._first = None
        #: All occurrences, for /v3/status and the tests.
        self.total = 0

    def add(self, detail):
        """One occurrence; detail: what it was, for the line."""
        with self._lock:
            self.total += 1
            if self._spell:
                self._count += 1
                if self._first is None:
                    self._first = detail
                return
            self._spell = True
            self._start()
        self._logger.warning('%s%s: %s (more are counted, one line per '
                             '%d s)', self._prefix, self._what.capitalize(),
                             detail, self._interval)

    def flush(self):
        """The interval is over: say how many came, if any."""
        with self._lock:
            count, first = self._count, self._first
            self._count, self._first = 0, None
            self._spell = bool(count)
            if count:
                self._start()
        if count:
            self._logger.warning('%s%d %s in the last %d s, first: %s',
                                 self._prefix, count, self._what,
                                 self._interval, first)

    def _start(self):
        timer = self._timer(self._interval, self.flush)
        # A tally pending must not keep a stopping worker alive.
        timer.daemon = True
        timer.start()
