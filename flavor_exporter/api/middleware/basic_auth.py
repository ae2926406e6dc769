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

Ironic's ``http_basic`` strategy, with oslo.middleware's basic_auth doing
the protocol: parsing the Authorization header, finding the user in the
file, checking the bcrypt digest. What this module adds:

- the answers in the API's JSON shape, with the ``WWW-Authenticate``
  challenge RFC 7235 asks of a 401 (oslo.middleware's has neither);
- the identity headers a client sent removed before the request goes on,
  so that ``X-Roles: admin`` beside valid credentials grants nothing;
- credentials already verified are remembered for CACHE_SECONDS, while
  the file is unchanged. bcrypt is slow on purpose: one check costs
  1.9 ms at htpasswd's default cost of 5 and 250 ms at cost 12
  (doc/source/performance.rst), against well under a millisecond for
  the rest of a request, and the de.NBI portal sends the same
  credentials with every request of its users.
"""

import hashlib
import hmac
import os
import re
import threading
import time

from oslo_log import log
from oslo_middleware import basic_auth
import webob.exc

from flavor_exporter.api import errors

LOG = log.getLogger(__name__)

#: How long verified credentials are trusted without bcrypt, seconds (as
#: keystonemiddleware's token_cache_time); a change to the file ends it.
CACHE_SECONDS = 300
#: Credentials remembered at most; then the memory starts again.
CACHE_ENTRIES = 1024
CHALLENGE = ('WWW-Authenticate', 'Basic realm="flavor-exporter", '
             'charset="UTF-8"')
# Headers that say who a caller is, as keystonemiddleware sets them for
# the application (and removes them from what a client sends).
_IDENTITY = re.compile(r'HTTP_(X_(USER|PROJECT|TENANT|DOMAIN|ROLE|SERVICE|'
                       r'IDENTITY|IS_ADMIN|SYSTEM|AUTH|STORAGE)|'
                       r'OPENSTACK_SYSTEM_SCOPE)')


def check_user_file(path):
    """ValueError with a one-line reason if path is not a usable file."""
    try:
        basic_auth.validate_auth_file(path)
    except Exception as exc:
        reason = getattr(exc, 'error_msg', None) or \
            getattr(exc, 'detail', None) or str(exc)
        raise ValueError(reason) from None


def _file_version(path):
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


class _Verified:
    """Credentials bcrypt has accepted, while the file is unchanged.

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
    """The application, behind HTTP Basic credentials of user_file."""

    def __init__(self, app, user_file, clock=time.monotonic):
        self._app = app
        self._file = user_file
        self._verified = _Verified(clock)

    def __call__(self, environ, start_response):
        for name in [n for n in environ if _IDENTITY.match(n)]:
            del environ[name]
        if 'HTTP_AUTHORIZATION' not in environ:
            return self._refuse(environ, start_response,
                                'This API needs HTTP Basic credentials.')
        try:
            username, password = basic_auth.parse_token(
                basic_auth.parse_header(environ))
        except webob.exc.HTTPException as exc:
            return self._refuse(environ, start_response,
                                '%s.' % (exc.detail or exc.title))
        version = _file_version(self._file)
        if not self._verified.holds(version, username, password):
            try:
                basic_auth.authenticate(self._file, username, password)
            except webob.exc.HTTPUnauthorized:
                return self._refuse(environ, start_response,
                                    'The user name or password is wrong.')
            except webob.exc.HTTPException:
                LOG.error('Cannot read [DEFAULT] http_basic_auth_user_file '
                          '%s; make it readable by the API\'s user.',
                          self._file)
                return errors.answer(
                    environ, start_response, 503,
                    'The API cannot check credentials now; its log says '
                    'why.')
            self._verified.add(version, username, password)
        environ['HTTP_X_USER_ID'] = environ['HTTP_X_USER_NAME'] = username
        return self._app(environ, start_response)

    @staticmethod
    def _refuse(environ, start_response, message):
        # In keystonemiddleware's shape on every route, /gpus included: a
        # client meets one 401 whichever way the API authenticates.
        return errors.answer(environ, start_response, 401, message,
                             [CHALLENGE], shape_of='/')
