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
"""The HTTP Basic user file: Apache htpasswd, bcrypt entries only.

Read whole and checked whole, so that an entry bcrypt would fail on (MD5,
SHA, crypt, a truncated or mangled digest) is refused with its line and
user when the API starts (auth.check) or when the file is edited while it
runs (the last good file is kept, one log line says why), never as a 500
or a misleading 503 when that user logs in.

UserFile notices an edit on the next request whatever the edit kept: it
stats the file on every request (a microsecond or two) and reads it again
when the stat differs, including the change time no editor can set back;
it also reads it at least once per REREAD_SECONDS and compares a digest of
its content, for the edits a stat cannot see (one within a clock tick of
the previous, a file system without change times).
"""

import hashlib
import os
import re
import threading
import time

import bcrypt
from oslo_log import log

from flavor_exporter.api import request_log

LOG = log.getLogger(__name__)

#: Seconds between reads of an unchanged-looking file, for its digest.
REREAD_SECONDS = 1.0
#: Larger files are refused: an htpasswd of thousands of users is smaller.
SIZE_LIMIT = 1 << 20
# $2a$, $2b$, $2y$; a cost of two digits; 22 characters of salt (whose
# last one carries 2 bits, so only four can end it: bcrypt refuses others
# with "Invalid salt") and 31 of digest, bcrypt's own base64.
_BCRYPT = re.compile(r'\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{21}[.Oeu]'
                     r'[./A-Za-z0-9]{31}\Z')
# What can never be part of a user name a log line names safely.
_CONTROL = re.compile(r'[\x00-\x1f\x7f-\x9f]')


class InvalidUserFile(ValueError):
    """The file cannot be used; the message names the line and user."""


class Unreadable(Exception):
    """The file cannot be read (gone, no permission)."""


class Users:
    """The users of one version of the file: name -> bcrypt digest."""

    def __init__(self, digests, digest):
        self._digests = digests
        #: The content's digest: credentials verified against another
        #: version are not trusted (middleware/basic_auth.py).
        self.version = digest
        costs = [int(d[4:6]) for d in digests.values()]
        # Unknown users are checked against a digest of the largest cost
        # in the file, so that they take as long as a known user does.
        self.dummy = _dummy(max(costs) if costs else 5)

    def digest_of(self, username):
        """The user's bcrypt digest (bytes), or None if unknown."""
        return self._digests.get(username)


_DUMMIES = {}
_DUMMY_LOCK = threading.Lock()


def _dummy(cost):
    """A bcrypt digest of the given cost, of a password nobody knows."""
    with _DUMMY_LOCK:
        if cost not in _DUMMIES:
            _DUMMIES[cost] = bcrypt.hashpw(os.urandom(32).hex().encode(),
                                           bcrypt.gensalt(cost))
        return _DUMMIES[cost]


def parse(data):
    """The Users of a file's bytes; InvalidUserFile naming line and user.

    Blank lines and lines starting with # are skipped, as Apache does.
    """
    digests = {}
    seen = {}
    try:
        text = data.decode('utf-8')
    except UnicodeError:
        raise InvalidUserFile('it is not UTF-8') from None
    for number, line in enumerate(text.split('\n'), 1):
        entry = line.strip()
        if not entry or entry.startswith('#'):
            continue
        user, colon, digest = entry.partition(':')
        where = 'line %d' % number
        if not colon or not user:
            raise InvalidUserFile('%s is not USER:BCRYPT-DIGEST' % where)
        where += ' (user %s)' % request_log.loggable(user)
        if _CONTROL.search(user):
            raise InvalidUserFile('%s: a user name cannot hold control '
                                  'characters' % where)
        if user in seen:
            raise InvalidUserFile('%s: the user is on line %d already'
                                  % (where, seen[user]))
        _check_digest(digest, where)
        seen[user] = number
        digests[user] = digest.encode('ascii')
    return Users(digests, hashlib.sha256(data).hexdigest())


def _check_digest(digest, where):
    if not digest.startswith(('$2a$', '$2b$', '$2y$')):
        raise InvalidUserFile(
            '%s: only bcrypt entries ($2y$, $2b$, $2a$) are accepted, not '
            '%s; set the password again with htpasswd -B'
            % (where, _kind(digest)))
    found = _BCRYPT.match(digest)
    if found is None:
        raise InvalidUserFile('%s: the bcrypt digest is truncated or '
                              'malformed (60 characters expected, %d '
                              'found); set the password again with '
                              'htpasswd -B' % (where, len(digest)))
    if not 4 <= int(found.group(1)) <= 31:
        raise InvalidUserFile('%s: bcrypt cost %s is not between 04 and 31'
                              % (where, found.group(1)))


def _kind(digest):
    """What an htpasswd digest that is not bcrypt is, for the message."""
    if digest.startswith('$apr1$'):
        return 'MD5 ($apr1$)'
    if digest.startswith('{SHA}'):
        return 'SHA-1 ({SHA})'
    if digest.startswith('$'):
        return request_log.loggable(digest[:digest.find('$', 1) + 1])
    return 'crypt or plain text'


def read(path):
    """(bytes, os.stat_result) of path; Unreadable or InvalidUserFile."""
    try:
        with open(path, 'rb') as f:
            found = os.fstat(f.fileno())
            data = f.read(SIZE_LIMIT + 1)
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None
    if len(data) > SIZE_LIMIT:
        raise InvalidUserFile('it is larger than %d bytes' % SIZE_LIMIT)
    return data, found


def check(path):
    """ValueError with a one-line reason if path is no usable user file."""
    try:
        data, _ = read(path)
    except Unreadable as exc:
        raise ValueError('cannot read it (%s); create it with htpasswd -B '
                         '-c %s USER' % (exc, path)) from None
    parse(data)


def _stat_key(found):
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns,
            found.st_ctime_ns)


class UserFile:
    """The file's users, read again when it changes (see the module)."""

    def __init__(self, path, clock=time.monotonic):
        self.path = path
        self._clock = clock
        self._lock = threading.Lock()
        self._users = None
        self._stat = None
        self._next_read = 0.0
        self._refused = None

    def users(self):
        """The current Users; Unreadable if the file cannot be read.

        A file that became invalid keeps the last good users (logged
        once per version); InvalidUserFile only when there never was one.
        """
        try:
            found = _stat_key(os.stat(self.path))
        except OSError as exc:
            raise Unreadable(exc.strerror or str(exc)) from None
        users = self._users
        if found == self._stat and users is not None and \
                self._clock() < self._next_read:
            return users
        with self._lock:
            return self._reread()

    def _reread(self):
        data, found = read(self.path)
        digest = hashlib.sha256(data).hexdigest()
        users = self._users
        if (users is None or digest != users.version) and \
                digest != self._refused:
            try:
                users = parse(data)
                self._refused = None
            except InvalidUserFile as exc:
                self._refused = digest
                LOG.error('[DEFAULT] http_basic_auth_user_file %s: %s; %s',
                          self.path, exc,
                          'the users it had before are kept'
                          if users is not None else 'nobody can log in')
        # The users first, then what says they are current: a request
        # that only stats never gets the users of an older version.
        self._users = users
        self._stat = _stat_key(found)
        self._next_read = self._clock() + REREAD_SECONDS
        if users is None:
            raise InvalidUserFile('no valid version of it was read')
        return users
