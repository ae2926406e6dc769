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
"""Hearing Nova's notifications: an oslo.messaging listener of a pool.

Each worker of a cloud with [openstack] notification_transport_url runs
one listener in the [notifications] pool: the pool gets its own copy of
every notification, and each copy reaches one worker of it, so other
consumers (Ceilometer, Watcher, Masakari) lose nothing and no two workers
count one failure twice. A listener does no refresh itself: the worker
that leads may be another one. It notes in the cache which parts of the
cloud changed, and which requests Nova placed nowhere
(publication/mailboxes.py); the leader reads them every [notifications]
check_interval (service.py).

Notifications come in batches (oslo.messaging's batch listener), each
noted with a few cache operations, and only a few batches at once: a
burst waits on the bus, unacknowledged, instead of failing on the cache
client's pool. A bus that goes away is one warning, and one line when it
is back: oslo.messaging reconnects by itself, and polling carries on
meanwhile. Notifications that cannot be read are dropped and counted:
the first is a line, the rest one line a minute (notices.Tally).
"""

import collections
import logging
import threading
import time

from oslo_log import log
import oslo_messaging

from flavor_exporter.worker import notices
from flavor_exporter.worker import nova_events

LOG = log.getLogger(__name__)
# How long the cache keeps what a listener noted for the leader.
NOTED_TTL = 3600
# oslo.messaging's RabbitMQ driver logs every reconnection attempt.
_DRIVER_LOGGERS = ('oslo.messaging._drivers.impl_rabbit',
                   'oslo_messaging._drivers.impl_rabbit')
# oslo.messaging's dispatcher logs each message of an unknown priority.
_DISPATCHER_LOGGER = 'oslo_messaging.notify.dispatcher'
# Notifications handed over together: a burst of 20,000 is ~80 batches,
# each a handful of cache operations instead of four per notification.
# A lone one waits at most BATCH_TIMEOUT: the first of a burst is
# refreshed at once (manager.py), so this is part of what a change takes
# to be served. A trickle costs at most 1 / BATCH_TIMEOUT batches a
# second.
BATCH_SIZE = 256
BATCH_TIMEOUT = 0.05
# Batches written to the cache at once. oslo.messaging runs up to
# executor_thread_pool_size (64) batches in parallel; each write holds a
# connection of the cache client's pool ([document_cache] pool_maxsize),
# which refuses the 17th outright. The others wait here, their messages
# unacknowledged: back-pressure, and the refresh keeps its connections.
MAX_WRITERS = 4


def writers_for(pool_maxsize):
    """Batches written at once: at most half the cache's pool."""
    return max(1, min(MAX_WRITERS, pool_maxsize // 2))


class _Batch:
    """What a batch of notifications asks of the leader, added up."""

    def __init__(self):
        self.events = 0
        self.counts = collections.Counter()  # part -> notifications
        self.hosts = set()
        self.anywhere = 0
        self.failures = []  # (flavor id, name, project, once key)

    def add(self, event, ctxt):
        self.events += 1
        self.counts.update(event.reads)
        if nova_events.USAGES in event.reads:
            if event.hosts is None:
                self.anywhere += 1
            else:
                self.hosts |= event.hosts
        if event.turned_away:
            flavor_id, name, project_id, instance = event.turned_away
            request = ctxt.get('request_id') if isinstance(
                ctxt, dict) else None
            # With notification_format = both Nova says it twice, in
            # each format, within one request: counted once.
            self.failures.append((flavor_id, name, project_id,
                                  '%s/%s' % (request, instance)))

    def write(self, publisher, now, ttl):
        if self.failures:
            publisher.turned_away.note_many(self.failures, now, ttl)
        publisher.changes.note_many(self.counts, self.hosts, self.anywhere,
                                    now, ttl)


class Endpoint:
    """What oslo.messaging calls with each batch, by priority."""

    def __init__(self, publisher, log_prefix='', clock=time.time,
                 writers=MAX_WRITERS, timer=threading.Timer):
        self._publisher = publisher
        self._log_prefix = log_prefix
        self._clock = clock
        self._writers = threading.BoundedSemaphore(writers)
        self._lock = threading.Lock()
        #: Events noted, for the tests.
        self.heard = 0
        self.malformed = notices.Tally(
            LOG, 'malformed notifications dropped', log_prefix,
            timer=timer)
        self.unnoted = notices.Tally(
            LOG, 'batches of notifications the cache could not take (the '
            'next refresh reads the cloud anyway)', log_prefix, timer=timer)

    def _note(self, messages):
        batch = _Batch()
        for message in messages:
            event_type = message.get('event_type')
            try:
                event = nova_events.read(event_type, message.get('payload'))
            except Exception as exc:
                # Hostile or broken: counted, one line a minute.
                self.malformed.add('%.100r: %.200s' % (event_type, exc))
                continue
            if event is not None:
                batch.add(event, message.get('ctxt'))
        if not batch.events:
            return None
        try:
            with self._writers:
                batch.write(self._publisher, self._clock(), NOTED_TTL)
        except Exception as exc:
            # A cache outage: dropped, not requeued (the bus would hand
            # them back at once, for ever); a refresh reads the cloud.
            LOG.debug('The batch not noted', exc_info=True)
            self.unnoted.add('%d notifications: %s' % (batch.events, exc))
            return None
        with self._lock:
            self.heard += batch.events
        LOG.debug('%sNova announced %d changes', self._log_prefix,
                  batch.events)
        return None

    def info(self, messages):
        return self._note(messages)

    def error(self, messages):
        return self._note(messages)


class _OnceUntilBack(logging.Filter):
    """The driver's reconnection errors: the first, then debug until back.

    oslo.messaging retries for ever and logs each try as an error; one
    line says the bus is gone, another that it is back.
    """

    def __init__(self):
        super().__init__()
        self.down = False

    def filter(self, record):
        if record.levelno >= logging.ERROR:
            if self.down:
                record.levelno, record.levelname = (logging.DEBUG,
                                                    'DEBUG')
                return logging.getLogger(record.name).isEnabledFor(
                    logging.DEBUG)
            self.down = True
            record.msg = ('%s (polling carries on; further attempts at '
                          'debug level)' % record.msg)
            return True
        if 'connected' in str(record.msg).lower():
            self.down = False
        return True


_FILTER = _OnceUntilBack()


class _Counted(logging.Filter):
    """oslo.messaging's line per bad message, counted into a Tally."""

    def __init__(self, tally):
        super().__init__()
        self._tally = tally

    def filter(self, record):
        if record.levelno < logging.WARNING:
            return True
        self._tally.add(record.getMessage()[:200])
        return False


class Listener:
    """One worker's listener for one cloud, started and stopped."""

    def __init__(self, conf, url, publisher, log_prefix=''):
        self._conf = conf
        self.endpoint = Endpoint(
            publisher, log_prefix,
            writers=writers_for(conf.document_cache.pool_maxsize))
        options = conf.notifications
        self._transport = oslo_messaging.get_notification_transport(
            conf, url=url)
        targets = [oslo_messaging.Target(topic=topic,
                                         exchange=options.exchange)
                   for topic in options.topics]
        self._listener = oslo_messaging.get_batch_notification_listener(
            self._transport, targets, [self.endpoint], executor='threading',
            pool=options.pool, batch_size=BATCH_SIZE,
            batch_timeout=BATCH_TIMEOUT)
        for name in _DRIVER_LOGGERS:
            logging.getLogger(name).addFilter(_FILTER)
        self._dispatcher_filter = _Counted(self.endpoint.malformed)
        logging.getLogger(_DISPATCHER_LOGGER).addFilter(
            self._dispatcher_filter)

    def start(self):
        self._listener.start()

    def stop(self):
        self._listener.stop()
        self._listener.wait()
        self._transport.cleanup()
        logging.getLogger(_DISPATCHER_LOGGER).removeFilter(
            self._dispatcher_filter)
