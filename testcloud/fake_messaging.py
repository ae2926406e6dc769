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

"""Wake the fake RPC driver's listeners on delivery instead of polling.

oslo.messaging's fake driver makes every listener scan its queues every
50 ms. A cloud has a few listeners per service, so an idle 50-host cloud
spends whole CPU cores polling, and several clouds side by side slow every
test on a 2-core machine. Here a listener sleeps until something is
delivered (or a second has passed), which also delivers sooner.
"""

import threading
import time

from oslo_messaging._drivers import base
from oslo_messaging._drivers import impl_fake

# Counts deliveries, so that a listener never sleeps through a message
# delivered between its scan and its wait.
_delivered = threading.Condition()
_count = [0]
IDLE_WAIT = 1.0


def _deliver_and_wake(original):
    def deliver_message(self, *args, **kwargs):
        original(self, *args, **kwargs)
        with _delivered:
            _count[0] += 1
            _delivered.notify_all()
    return deliver_message


@base.batch_poll_helper
def _poll(self, timeout=None):
    deadline = None if timeout is None else time.monotonic() + timeout
    while not self._stopped.is_set():
        with _delivered:
            seen = _count[0]
        for target in self._targets:
            exchange = self._exchange_manager.get_exchange(target.exchange)
            ctxt, message, reply_q, requeue = exchange.poll(target,
                                                            self._pool)
            if message is not None:
                return impl_fake.FakeIncomingMessage(ctxt, message, reply_q,
                                                     requeue)
        wait = IDLE_WAIT
        if deadline is not None:
            wait = min(wait, deadline - time.monotonic())
            if wait <= 0:
                return None
        with _delivered:
            if _count[0] == seen:
                _delivered.wait(wait)
    return None


def install():
    impl_fake.FakeExchange.deliver_message = _deliver_and_wake(
        impl_fake.FakeExchange.deliver_message)
    impl_fake.FakeListener.poll = _poll
