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

A bus that goes away is one warning, and one line when it is back:
oslo.messaging reconnects by itself, and polling carries on meanwhile. A
notification that cannot be read is one line too, and is dropped.
"""

import logging
import time

from oslo_log import log
import oslo_messaging

from flavor_exporter.publication import cache
from flavor_exporter.worker import nova_events

LOG = log.getLogger(__name__)
# How long the cache keeps what a listener noted for the leader.
NOTED_TTL = 3600
# oslo.messaging's RabbitMQ driver logs every reconnection attempt.
_DRIVER_LOGGERS = ('oslo.messaging._drivers.impl_rabbit',
                   'oslo_messaging._drivers.impl_rabbit')


class Endpoint:
    """What oslo.messaging calls for each notification, by priority."""

    def __init__(self, publisher, log_prefix='', clock=time.time):
        self._publisher = publisher
        self._log_prefix = log_prefix
        self._clock = clock
        #: Events read, for /v3/status and the tests.
        self.heard = 0

    def _note(self, ctxt, event_type, payload):
        try:
            event = nova_events.read(event_type, payload)
        except Exception as exc:  # a malformed payload: drop it
            LOG.debug('The unreadable notification', exc_info=True)
            LOG.warning('%sA %s notification could not be read and was '
                        'dropped: %s', self._log_prefix, event_type, exc)
            return None
        if event is None:
            return None
        now = self._clock()
        try:
            if event.turned_away:
                flavor_id, name, project_id, instance = event.turned_away
                # With notification_format = both Nova says it twice, in
                # each format, within one request: counted once.
                once = '%s/%s' % ((ctxt or {}).get('request_id'), instance)
                self._publisher.turned_away.note(
                    flavor_id, name, project_id, now, NOTED_TTL, once=once)
            self._publisher.changes.note(event.reads, now, NOTED_TTL,
                                         hosts=event.hosts)
        except cache.CacheError as exc:
            # The next refresh reads the change anyway; a failure is lost.
            LOG.warning('%sNova announced %s, but the cache could not '
                        'take it (%s); the next refresh reads it',
                        self._log_prefix, event_type, exc)
            return None
        self.heard += 1
        LOG.debug('%sNova announced %s', self._log_prefix, event_type)
        return None

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        return self._note(ctxt, event_type, payload)

    def error(self, ctxt, publisher_id, event_type, payload, metadata):
        return self._note(ctxt, event_type, payload)


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


class Listener:
    """One worker's listener for one cloud, started and stopped."""

    def __init__(self, conf, url, publisher, log_prefix=''):
        self._conf = conf
        self.endpoint = Endpoint(publisher, log_prefix)
        options = conf.notifications
        self._transport = oslo_messaging.get_notification_transport(
            conf, url=url)
        targets = [oslo_messaging.Target(topic=topic,
                                         exchange=options.exchange)
                   for topic in options.topics]
        self._listener = oslo_messaging.get_notification_listener(
            self._transport, targets, [self.endpoint], executor='threading',
            pool=options.pool)
        for name in _DRIVER_LOGGERS:
            logging.getLogger(name).addFilter(_FILTER)

    def start(self):
        self._listener.start()

    def stop(self):
        self._listener.stop()
        self._listener.wait()
        self._transport.cleanup()
