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
"""HTTP Basic authentication against an Apache htpasswd file.

Ironic's ``http_basic`` strategy, with what oslo.middleware's basic_auth
leaves open closed (it logs the user name a client sent as it is, lets
bcrypt raise on a password over 72 bytes, answers an unknown user faster
than a wrong password and reads the file on every request):

- the answers in the API's JSON shape, with the ``WWW-Authenticate``
  challenge RFC 7235 asks of a 401; the same 401 for an unknown user, a
  wrong password and a password over bcrypt's 72 bytes, after one bcrypt
  check of the same cost each (an unknown user's against a digest of the
  file's largest cost), so that neither answer nor time says which;
- the identity headers a client sent removed before the request goes on,
  so that ``X-Roles: admin`` beside valid credentials grants nothing;
- credentials already verified are remembered for CACHE_SECONDS, while
  the file's content is the same (basic_users.UserFile): bcrypt is slow
  on purpose (doc/source/performance.rst) and the de.NBI portal sends the
  same credentials with every request of its users;
- failed verifications limited per client address and per user name
  (failure_limits.py; 429 with Retry-After past the limit), and at most
  ``[api] threads - 1`` bcrypt checks at a time in a process (a 503 with
  Retry-After beyond): guessing costs bounded CPU and always leaves a
  thread for the callers whose credentials are remembered;
- user names written to the log escaped (request_log.loggable).
"""

import base64
import binascii
import hashlib
import hmac
import os
import re
import threading
import time

import bcrypt
from oslo_log import log

from flavor_exporter.api import basic_users
from flavor_exporter.api import errors
from flavor_exporter.api import failure_limits
from flavor_exporter.api import request_log

LOG = log.getLogger(__name__)

#: How long verified credentials are trusted without bcrypt, seconds (as
#: keystonemiddleware's token_cache_time); a change to the file ends it.
CACHE_SECONDS = 300
#: Credentials remembered at most; then the memory starts again.
CACHE_ENTRIES = 1024
#: Failed verifications a client address may have at once, and how many
#: a minute after that; the same for a user name, whoever tries it.
CLIENT_BURST = 10
CLIENT_PER_MINUTE = 10
USER_BURST = 10
USER_PER_MINUTE = 10
#: The longest password bcrypt reads; a longer one is never accepted.
PASSWORD_LIMIT = 72
# Longest user name kept as a key of the per-user limit.
_NAME_KEY = 256
CHALLENGE = ('WWW-Authenticate', 'Basic realm="flavor-exporter", '
             'charset="UTF-8"')
WRONG = 'The user name or password is wrong.'
# Headers that say who a caller is, as keystonemiddleware sets them for
# the application (and removes them from what a client sends).
_IDENTITY = re.compile(r'HTTP_(X_(USER|PROJECT|TENANT|DOMAIN|ROLE|SERVICE|'
                       r'IDENTITY|IS_ADMIN|SYSTEM|AUTH|STORAGE)|'
                       r'OPENSTACK_SYSTEM_SCOPE)')


def check_user_file(path):
    """ValueError with a one-line reason if path is not a usable file."""
    basic_users.check(path)


def loggable_name(name):
    """A user name a client sent, as a log line may hold it."""
    return request_log.loggable(
        name.encode('utf-8', 'backslashreplace').decode('latin-1'))


class Malformed(ValueError):
    """The Authorization header is no Basic credentials; str() says why."""


def credentials(environ):
    """(user name, password bytes) of the request's Basic credentials.

    The header is removed from the environ, so that nothing after this
    layer sees the password. The messages are oslo.middleware's.
    """
    parts = environ.pop('HTTP_AUTHORIZATION').strip().split(maxsplit=1)
    if len(parts) != 2:
        raise Malformed('Could not parse Authorization header.')
    if parts[0].lower() != 'basic':
        raise Malformed('Unsupported authorization type "%s".'
                        % parts[0][:40])
    try:
        pair = base64.b64decode(parts[1].encode('latin-1'), validate=True)
        username, password = pair.split(b':', maxsplit=1)
        return username.decode('utf-8'), password
    except (binascii.Error, ValueError):
        raise Malformed('Could not decode authorization token.') from None


def verify(users, username, password):
    """(accepted, why not) after exactly one bcrypt check.

    Of the cost of the user's own digest, or of the file's largest for an
    unknown user; a password over PASSWORD_LIMIT bytes is checked by its
    first 72 and refused whatever the result.
    """
    digest = users.digest_of(username)
    try:
        matched = bcrypt.checkpw(password[:PASSWORD_LIMIT],
                                 digest if digest is not None
                                 else users.dummy)
    except ValueError as exc:
        # The file's digests were checked when it was read: not expected.
        return False, 'bcrypt refused the entry (%s)' % exc
    if digest is None:
        return False, 'unknown user'
    if len(password) > PASSWORD_LIMIT:
        return False, 'a password over %d bytes' % PASSWORD_LIMIT
    return matched, 'wrong password'


class _Verified:
    """Credentials bcrypt has accepted, while the file's content is the same.

    Keyed by the user and an HMAC of the password with a key of this
    process: what is held here is no digest an attacker could check
    guesses against without the key.
    """

    def __init__(self, clock=time.monotonic):
        self._key = os.urandom(32)
        self._clock = clock
        self._until = {}
        self._version = None
        self._lock = threading.Lock()

    def _name(self, username, password):
        return username, hmac.new(self._key, password,
                                  hashlib.sha256).digest()

    def holds(self, version, username, password):
        with self._lock:
            if version != self._version:
                self._version = version
                self._until.clear()
                return False
            until = self._until.get(self._name(username, password))
        return until is not None and self._clock() < until

    def add(self, version, username, password):
        with self._lock:
            if version != self._version:
                return
            if len(self._until) >= CACHE_ENTRIES:
                self._until.clear()
            self._until[self._name(username, password)] = \
                self._clock() + CACHE_SECONDS


class BasicAuth:
    """The application, behind HTTP Basic credentials of user_file.

    threads: the process's request threads ([api] threads); bcrypt may
    take all but one.
    """

    def __init__(self, app, user_file, threads=2, clock=time.monotonic):
        self._app = app
        self._users = basic_users.UserFile(user_file, clock)
        self._verified = _Verified(clock)
        self._by_client = failure_limits.FailureLimit(
            CLIENT_BURST, CLIENT_PER_MINUTE, clock)
        self._by_user = failure_limits.FailureLimit(
            USER_BURST, USER_PER_MINUTE, clock)
        self._checking = threading.BoundedSemaphore(max(1, threads - 1))
        self._unusable = False

    def __call__(self, environ, start_response):
        for name in [n for n in environ if _IDENTITY.match(n)]:
            del environ[name]
        if 'HTTP_AUTHORIZATION' not in environ:
            return self._refuse(environ, start_response,
                                'This API needs HTTP Basic credentials.')
        try:
            username, password = credentials(environ)
        except Malformed as exc:
            return self._refuse(environ, start_response, str(exc))
        users = self._current_users()
        if users is None:
            return errors.answer(
                environ, start_response, 503,
                'The API cannot check credentials now; its log says why.')
        if not self._verified.holds(users.version, username, password):
            refused = self._check(environ, users, username, password)
            if refused is not None:
                return refused(environ, start_response)
            self._verified.add(users.version, username, password)
        environ['HTTP_X_USER_ID'] = environ['HTTP_X_USER_NAME'] = username
        return self._app(environ, start_response)

    def _current_users(self):
        """The file's basic_users.Users, or None (logged once) if none."""
        try:
            users = self._users.users()
        except (basic_users.Unreadable, basic_users.InvalidUserFile) as exc:
            if not self._unusable:
                LOG.error('Cannot read [DEFAULT] http_basic_auth_user_file '
                          '%s (%s); make it readable by the API\'s user.',
                          self._users.path, exc)
            self._unusable = True
            return None
        self._unusable = False
        return users

    def _check(self, environ, users, username, password):
        """None if bcrypt accepts the credentials, else the answer to give.

        Charged to the client's address and the user name before bcrypt
        runs, refunded when it accepts them.
        """
        client = environ.get('REMOTE_ADDR') or '-'
        name = username[:_NAME_KEY]
        wait = self._by_client.take(client)
        if not wait:
            wait = self._by_user.take(name)
            if wait:
                self._by_client.refund(client)
        if wait:
            return _answer(429, 'Too many failed logins from this address '
                           'or for this user name; retry in %d seconds.'
                           % wait, wait)
        if not self._checking.acquire(blocking=False):
            self._by_client.refund(client)
            self._by_user.refund(name)
            return _answer(503, 'Too many logins are being checked at '
                           'once; retry in a second.', 1)
        try:
            accepted, why = verify(users, username, password)
        finally:
            self._checking.release()
        if not accepted:
            LOG.info('HTTP Basic: %s for user %s from %s', why,
                     loggable_name(username), request_log.loggable(client))
            return lambda environ, start_response: self._refuse(
                environ, start_response, WRONG)
        self._by_client.refund(client)
        self._by_user.refund(name)
        return None

    @staticmethod
    def _refuse(environ, start_response, message):
        # In keystonemiddleware's shape on every route, /gpus included: a
        # client meets one 401 whichever way the API authenticates.
        return errors.answer(environ, start_response, 401, message,
                             [CHALLENGE], shape_of='/')


def _answer(code, message, retry_after):
    """A WSGI application answering a JSON error with Retry-After."""
    def answer(environ, start_response):
        return errors.answer(environ, start_response, code, message,
                             [('Retry-After', str(retry_after))],
                             shape_of='/')
    return answer
