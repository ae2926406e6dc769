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
"""One line per request, as Placement's request log writes it, cheaply.

``REMOTE_ADDR "METHOD URI" status: 200 len: 1234 time: 0.000512`` at
INFO, with the request's context (oslo.context's thread-local, set by
request_id.py and access.py) in the line: an operator follows any request
from its id. With ``[api] log_requests = false`` only answers of 400 and
more are logged.

The line is the one ``LOG.info(...)`` would write, byte for byte, to the
same handlers. LOG.info cost 75-110 us of CPU per request, most of the
API's CPU: the adapter, findCaller(), a LogRecord, and ContextFormatter
reading five options, copying the whole context, parsing its format string
and converting the time, per line. When every handler the line goes to is
one oslo.log sets up by default (log_file, use_stderr, stdout: a plain
stream or file handler with a ContextFormatter, no filter) and its format
names only values made here, this module makes the values ContextFormatter
would put in the line (the options read and the timestamp text made once a
second, only the context values the format names) and writes the text as
the handler's emit() does, under its lock. Otherwise (syslog, journal,
rotating files, colours, JSON, a log_config_append formatter, a filter, a
format naming another value) it makes the record LOG.info makes and the
logger handles it, as ever.

A URI is logged with every byte that is not printable ASCII, and every
quote and backslash, percent-encoded: a request for ``/x%0A2026-...``
cannot start a line of its own in the log (PATH_INFO holds the decoded
newline).
"""

import logging
import logging.handlers
import operator
import os
import re
import sys
import time
import types

from oslo_context import context as context_utils
from oslo_log import formatters
from oslo_log import log

LOG = log.getLogger(__name__)

_MESSAGE = '%s "%s %s" status: %s len: %s time: %.6f'
_UNSAFE = re.compile(r'[^\x21-\x7e]|["\\]')
_LONGEST = 4096

# The handlers whose emit() _write() repeats, and whether it first reopens
# a file logrotate moved. Exact types: a subclass may emit otherwise.
_STREAMS = {logging.StreamHandler: False, logging.FileHandler: False,
            logging.handlers.WatchedFileHandler: True}

# What oslo.context's RequestContext.get_logging_values() holds: each key
# and the attribute it is read from (test_request_log compares them with
# the installed oslo.context). Its other keys, auth_token (hidden) and
# user_identity (replaced by ContextFormatter), are not read from here.
_CONTEXT = {
    'user': 'user_id', 'project': 'project_id', 'project_id': 'project_id',
    'domain': 'domain_id', 'user_domain': 'user_domain_id',
    'project_domain': 'project_domain_id', 'system_scope': 'system_scope',
    'user_name': 'user_name', 'project_name': 'project_name',
    'domain_name': 'domain_name', 'user_domain_name': 'user_domain_name',
    'project_domain_name': 'project_domain_name',
    'request_id': 'request_id', 'global_request_id': 'global_request_id',
    'resource_uuid': 'resource_uuid', 'roles': 'roles',
    'is_admin': 'is_admin', 'is_admin_project': 'is_admin_project',
    'read_only': 'read_only', 'show_deleted': 'show_deleted'}
# The record's own values the lines are made with here (Formatter.format
# adds message and asctime); a format naming any other (pathname, thread,
# isotime, ...) has its lines formatted by the handler, as LOG.info's.
_RECORD = {'name', 'levelname', 'levelno', 'created', 'msecs', 'process',
           'message', 'asctime'}
# What ContextFormatter.format adds: the formatter's project and version,
# and what it sets to '' if the context gives no value.
_ADDED = {'project', 'version', 'instance', 'error_summary', 'color',
          'user_identity', 'resource', 'user_name', 'project_name',
          'global_request_id'}
_BLANKS = ('color', 'user_identity', 'resource', 'user_name',
           'project_name', 'global_request_id')
# A format's fields: (name, conversion).
_FIELDS = re.compile(
    r'%\((\w+)\)[#0 +-]*\d*(?:\.\d*)?[hlL]?([a-zA-Z%])')

if sys.version_info >= (3, 13):
    def _clock():
        """LogRecord's created and msecs for a record made now."""
        now = time.time_ns()
        return now / 1e9, (now % 1_000_000_000) // 1_000_000 + 0.0
else:
    def _clock():
        """LogRecord's created and msecs for a record made now."""
        now = time.time()
        return now, int((now - int(now)) * 1000) + 0.0


def loggable(text):
    """text with what could forge or garble a log line percent-encoded.

    text: an environ string (PEP 3333: the request's bytes as latin-1).
    """
    return _UNSAFE.sub(lambda found: ''.join(
        '%%%02X' % byte for byte in found.group().encode(
            'latin-1', 'backslashreplace')), text[:_LONGEST])


def uri(environ):
    """The request's URI as logged."""
    raw = environ.get('REQUEST_URI')
    if raw is None:
        raw = environ.get('SCRIPT_NAME', '') + environ.get('PATH_INFO', '')
        if environ.get('QUERY_STRING'):
            raw += '?' + environ['QUERY_STRING']
    return loggable(raw)


class RequestLog:
    """Logs answers: every one, or (every_request false) 400 and more."""

    def __init__(self, every_request=True):
        self.every_request = every_request
        self._logger = LOG.logger
        # What oslo.log's adapter puts in each record of LOG.info() (project,
        # version, extra_keys): JSONFormatter, for one, reads it.
        self._extra = LOG.process(_MESSAGE, {})[1]['extra']
        # ContextFormatter -> its _Lines, made again each second: a changed
        # option or formatter is followed as LOG.info follows it.
        self._lines = {}
        self._second = None

    def answered(self, environ, status, length, seconds):
        """Log an answer (status: '200 OK'; length: Content-Length or '-')."""
        if self.every_request or status[:1] in '45':
            self.log(environ, status, length, seconds)

    def log(self, environ, status, length, seconds):
        """Log the answer's line, whatever its status."""
        if not self._logger.isEnabledFor(logging.INFO):
            return
        args = (environ.get('REMOTE_ADDR', '-'),
                loggable(environ.get('REQUEST_METHOD', '-')), uri(environ),
                status.split(None, 1)[0], length, seconds)
        created, msecs = _clock()
        handlers = self._handlers(created)
        if handlers:
            message = _MESSAGE % args
            context = context_utils.get_current()
            try:
                texts = [lines.format(created, msecs, message, context)
                         for _, lines in handlers]
            except Exception:
                texts = [None]  # the formatter says what is wrong, below
            if None not in texts:
                for (handler, _), text in zip(handlers, texts):
                    self._write(handler, text, args)
                return
        self._logger.handle(self._record(args))

    def _record(self, args):
        """The record LOG.info(_MESSAGE, *args) makes, called from here."""
        caller = sys._getframe(1)
        logger = self._logger
        return logger.makeRecord(
            logger.name, logging.INFO, caller.f_code.co_filename,
            caller.f_lineno, _MESSAGE, args, None, caller.f_code.co_name,
            self._extra)

    def _write(self, handler, text, args):
        """What handler.handle() does with the record, formatted as text."""
        handler.acquire()
        try:
            if _STREAMS[type(handler)]:
                handler.reopenIfNeeded()
            handler.stream.write(text + handler.terminator)
            handler.flush()
        except RecursionError:
            raise
        except Exception:
            handler.handleError(self._record(args))
        finally:
            handler.release()

    def _handlers(self, created):
        """[(handler, _Lines)] the line goes to, or None.

        Found as Logger.callHandlers() finds them; None if a handler or a
        filter is to see the record.
        """
        logger = self._logger
        if logger.disabled or logger.filters:
            return None
        second = int(created)
        if second != self._second:
            self._lines, self._second = {}, second
        found = []
        current = logger
        while current:
            for handler in current.handlers:
                if logging.INFO < handler.level:
                    continue
                formatter = handler.formatter
                if (type(handler) not in _STREAMS or handler.filters
                        or handler.stream is None
                        or type(formatter) is not formatters.ContextFormatter):
                    return None
                lines = self._lines.get(formatter)
                if lines is None:
                    lines = self._lines[formatter] = _Lines(formatter, logger)
                found.append((handler, lines))
            current = current.parent if current.propagate else None
        return found


class _Format:
    """A format string of ContextFormatter, and what its lines need."""

    def __init__(self, fmt, per_second):
        self.text = fmt
        fields = _FIELDS.findall(fmt)
        self.names = {name for name, _ in fields}
        self.asctime = 'asctime' in self.names
        self.instance = 'instance' in self.names
        self.process = 'process' in self.names
        # Made here: the values of _RECORD, _ADDED and _CONTEXT; msecs as
        # an integer (LogRecord's is a fraction in Python 3.10); asctime
        # when it is the strftime() of the second.
        self.ours = (
            self.names <= _RECORD | _ADDED | _CONTEXT.keys()
            and all(kind in 'diu' for name, kind in fields
                    if name == 'msecs')
            and (per_second or not self.asctime))
        # ContextFormatter: '-' when the format names it, '' at INFO.
        self.error_summary = '-' if '%(error_summary)s' in fmt else ''


class _Dashes(dict):
    """A falsy value as '-': oslo.log's _ReplaceFalseValue."""

    def __getitem__(self, key):
        return dict.get(self, key) or '-'


class _Lines:
    """ContextFormatter.format() of this module's records, for a formatter.

    The values it gives its format string, in its order, made without a
    record: the line is at INFO, of this module's logger, no exception.
    Made again each second (RequestLog._handlers): what it keeps (the
    options, the asctime text, user_identity texts) is a second's.
    """

    def __init__(self, formatter, logger):
        conf = formatter.conf
        self._formatter = formatter
        # Formatter.formatTime() with a datefmt is strftime() of the second.
        per_second = bool(formatter.datefmt) and (
            formatter.converter in (time.localtime, time.gmtime))
        self._with_context = _Format(conf.logging_context_format_string,
                                     per_second)
        self._without = _Format(conf.logging_default_format_string,
                                per_second)
        self._identity = conf.logging_user_identity_format
        self._instance = conf.instance_format
        self._instance_uuid = conf.instance_uuid_format
        # The record's values and the formatter's; then the blanks, which
        # stay '' unless the context gives a value.
        self._first = {'name': logger.name, 'levelno': logging.INFO,
                       'levelname': logging.getLevelName(logging.INFO),
                       'project': formatter.project,
                       'version': formatter.version, 'instance': '',
                       **dict.fromkeys(_BLANKS, '')}
        # The context's values read: those user_identity names (first: they
        # key its texts), those the formats name, and both ids (request_id
        # chooses the format). get_logging_values()' other two keys are no
        # plain attributes.
        identity = {name for name, _ in _FIELDS.findall(self._identity)}
        self._readable = not identity & {'auth_token', 'user_identity'}
        first = sorted(identity & _CONTEXT.keys())
        self._wanted = tuple(first) + tuple(sorted(
            (self._with_context.names | self._without.names
             | {'request_id', 'global_request_id'})
            & _CONTEXT.keys() - identity))
        self._read = operator.attrgetter(
            *(_CONTEXT[key] for key in self._wanted))
        self._identity_values = len(first)
        # user_identity texts by the values they are made of: the same few
        # callers again and again.
        self._identities = {}
        self._asctime = (None, None)

    def format(self, created, msecs, message, context):
        """The line's text, or None: the handler is to format the record."""
        if not context:
            found = {}
        elif type(context) is context_utils.RequestContext and self._readable:
            read = self._read(context)
            found = dict(zip(self._wanted, read))
        else:
            read = None
            found = formatters._dictify_context(context)
        fmt = self._with_context if found.get('request_id') else self._without
        if not fmt.ours:
            return None
        values = {**self._first, 'created': created, 'msecs': msecs,
                  **found}
        if fmt.process:
            values['process'] = os.getpid() if logging.logProcesses else None
        if context:
            if fmt.instance:
                values['instance'] = self._instance_of(context)
            values['user_identity'] = self._user_identity(read, found)
        values['error_summary'] = fmt.error_summary
        values['message'] = message
        if fmt.asctime:
            values['asctime'] = self._time(created)
        return fmt.text % values

    def _user_identity(self, read, found):
        if read is None:
            return self._identity % _Dashes(found)
        key = read[:self._identity_values]
        text = self._identities.get(key)
        if text is None:
            text = self._identities[key] = self._identity % _Dashes(found)
        return text

    def _instance_of(self, context):
        # ContextFormatter's nova-isms: an instance the context names.
        for name, fmt in (('instance', self._instance),
                          ('instance_uuid', self._instance_uuid),
                          ('resource_uuid', self._instance_uuid)):
            uuid = getattr(context, name, None)
            if uuid:
                return fmt % {'uuid': uuid}
        return ''

    def _time(self, created):
        second = int(created)
        cached = self._asctime
        if cached[0] != second:
            cached = self._asctime = (second, self._formatter.formatTime(
                types.SimpleNamespace(created=created),
                self._formatter.datefmt))
        return cached[1]


_EVERY = RequestLog()


def log_request(environ, status, length, seconds):
    """Log an answer's line, whatever [api] log_requests says."""
    _EVERY.log(environ, status, length, seconds)
