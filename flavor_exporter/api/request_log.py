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
would put in the line (the options read, the handlers found and the
timestamp text made once a second and kept while the loggers' handlers are
the same; only the context values the format names, read at once; the
message's values written straight into the line) and writes the text as
the handler's emit() does, under its lock, a batch of lines at a time
from a thread of its own (_Writer: up to 50 ms later). Otherwise
(syslog, journal, rotating files, colours, JSON, a log_config_append
formatter, a filter, a format naming another value) it makes the record
LOG.info makes and the logger handles it, as ever.

A URI is logged with every byte that is not printable ASCII, and every
quote and backslash, percent-encoded: a request for ``/x%0A2026-...``
cannot start a line of its own in the log (PATH_INFO holds the decoded
newline).
"""

import atexit
import collections
import logging
import logging.handlers
import math
import operator
import os
import re
import sys
import threading
import time
import types

from oslo_context import context as context_utils
from oslo_log import formatters
from oslo_log import log

LOG = log.getLogger(__name__)

_MESSAGE = '%s "%s %s" status: %s len: %s time: %.6f'
_UNSAFE = re.compile(r'[^\x21-\x7e]|["\\]')
# Methods loggable() leaves as they are: not worth a regex per line.
_METHODS = frozenset(('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE',
                      'OPTIONS'))
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
# A format's named fields (name, conversion spec), and its '%%'.
_FIELDS = re.compile(r'%\((\w+)\)([#0 +-]*\d*(?:\.\d*)?[hlL]?[a-zA-Z%])|%%')

# LogRecord's created, its second and msecs for a record made now; msecs
# an int (the formats made here print it with a 'd' conversion), without
# the float and int conversions a whole request uses nowhere else.
if sys.version_info >= (3, 13):
    def _clock():
        now = time.time_ns()
        created = now / 1e9
        return created, int(created), now % 1_000_000_000 // 1_000_000
else:
    def _clock():
        created = time.time()
        fraction, second = math.modf(created)
        return created, int(second), int(fraction * 1000.0)


def loggable(text):
    """text with what could forge or garble a log line percent-encoded.

    text: an environ string (PEP 3333: the request's bytes as latin-1).
    """
    # Most URIs have nothing to encode: found by str's own scans, no regex.
    if (len(text) <= _LONGEST and text.isascii() and text.isprintable()
            and ' ' not in text and '"' not in text and '\\' not in text):
        return text
    return _UNSAFE.sub(_escaped, text[:_LONGEST])


def _escaped(found):
    return ''.join('%%%02X' % byte for byte in found.group().encode(
        'latin-1', 'backslashreplace'))


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
        self._route = None

    def answered(self, environ, status, length, seconds):
        """Log an answer (status: '200 OK'; length: Content-Length or '-')."""
        if self.every_request or status[:1] in '45':
            self.log(environ, status, length, seconds)

    def log(self, environ, status, length, seconds):
        """Log the answer's line, whatever its status."""
        logger = self._logger
        if not logger.isEnabledFor(logging.INFO):
            return
        method = environ.get('REQUEST_METHOD', '-')
        args = (environ.get('REMOTE_ADDR', '-'),
                method if method in _METHODS else loggable(method),
                uri(environ), status[:3], length, seconds)
        created, second, msecs = _clock()
        route = self._route
        if route is None or not route.holds(logger, second):
            route = self._route = _Route(logger, created)
        if route.outputs is None or not route.queued(
                created, msecs, args, context_utils.get_current()):
            logger.handle(self._record(args))

    def _record(self, args):
        """The record LOG.info(_MESSAGE, *args) makes, called from here."""
        caller = sys._getframe(1)
        logger = self._logger
        return logger.makeRecord(
            logger.name, logging.INFO, caller.f_code.co_filename,
            caller.f_lineno, _MESSAGE, args, None, caller.f_code.co_name,
            self._extra)


class _Route:
    """Where a second's lines of a logger go, while its handlers stay.

    outputs: for each handler the line goes to (found as
    Logger.callHandlers() finds them), its _Lines and the append of its
    queue; None if a handler or a filter is to see the record, or there
    is no handler at all (the logger then handles a record). A handler's
    own level, filters or formatter set anew are followed from the next
    second; a handler added or removed, at once.
    """

    def __init__(self, logger, created):
        self.second = int(created)
        self.process = _PROCESS.id
        self.log_processes = logging.logProcesses
        self.disabled = logger.disabled
        self.filters = list(logger.filters)
        # The handler lists of the logger and the parents it propagates to.
        self.chain = []
        current = logger
        while current:
            self.chain.append(list(current.handlers))
            current = current.parent if current.propagate else None
        self.outputs = self._outputs(logger, created)

    def holds(self, logger, second):
        """Whether the route is the one to take now."""
        if (second != self.second or self.process != _PROCESS.id
                or self.log_processes != logging.logProcesses
                or self.disabled != logger.disabled
                or self.filters != logger.filters):
            return False
        current = logger
        for handlers in self.chain:
            if current is None or current.handlers != handlers:
                return False
            current = current.parent if current.propagate else None
        return current is None

    def _outputs(self, logger, created):
        every = [handler for handlers in self.chain for handler in handlers]
        if logger.disabled or logger.filters or not every:
            return None  # not every: logging's last resort
        outputs, lines_of = [], {}
        for handler in every:
            if logging.INFO < handler.level:
                continue
            formatter = handler.formatter
            if (type(handler) not in _STREAMS or handler.filters
                    or handler.stream is None
                    or type(formatter) is not formatters.ContextFormatter):
                return None
            if formatter not in lines_of:
                try:
                    lines_of[formatter] = _Lines(formatter, logger.name,
                                                 created)
                except Exception:
                    return None  # the formatter says what is wrong
            outputs.append((lines_of[formatter], _WRITER.queue(handler)))
        return outputs

    def queued(self, created, msecs, args, context):
        """Whether the line is queued for every handler (else for none).

        args: _MESSAGE's.
        """
        outputs = self.outputs
        try:
            if len(outputs) == 1:  # as oslo.log sets up: one handler
                lines, queue = outputs[0]
                text = lines.format(created, msecs, args, context)
                if text is None:
                    return False
                queue(text)
            else:
                texts = [lines.format(created, msecs, args, context)
                         for lines, _ in outputs]
                if None in texts:
                    return False
                for (_, queue), text in zip(outputs, texts):
                    queue(text)
        except Exception:
            return False  # the formatter says what is wrong, to the record
        _WRITER.wake()
        return True


class _Writer:
    """Writes the fast path's lines to their handlers, a batch at a time.

    A line costs the request its formatting and an append to its handler's
    queue; a thread of the process writes what gathered within INTERVAL
    seconds, as each handler's emit() would (under its lock, a moved file
    reopened first), in one write and one flush per handler. Per line,
    those system calls (WatchedFileHandler's stat, the write) cost the
    request more than the rest of the line together
    (doc/source/performance.rst). So a request line reaches the log up to
    INTERVAL after the lines the request's own code logged; its time is
    when it was answered, and nothing is lost on a normal exit (atexit) or
    a fork (each process its own thread).
    """

    INTERVAL = 0.05

    def __init__(self):
        self._forked()
        os.register_at_fork(after_in_child=self._forked)
        atexit.register(self.flush)

    def _forked(self):
        # In a forked child: the parent's thread is not here, nor are its
        # queued lines (the parent writes them); routes are found anew.
        self._queues = {}
        self._wake = threading.Event()
        self._woken = False
        self._thread = None  # started by the first wake()
        self._starting = threading.Lock()
        # One flush at a time: a flush returns with every line queued
        # before it written, those another flush took included.
        self._flushing = threading.Lock()

    def queue(self, handler):
        """The append of handler's queue of lines."""
        return self._queues.setdefault(handler, collections.deque()).append

    def wake(self):
        """Have the queued lines written within INTERVAL."""
        # A plain attribute: most lines find the thread woken already.
        if not self._woken:
            self._woken = True
            if self._thread is None:
                self._start()
            self._wake.set()

    def _start(self):
        with self._starting:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name='request-log', daemon=True)
                self._thread.start()

    def _run(self):
        while True:
            self._wake.wait()
            time.sleep(self.INTERVAL)  # the rest of the burst
            # Cleared before _woken: a line queued once the flush below has
            # begun sets both again (set the other way round, its wake()
            # could be cleared and the thread wait with lines queued).
            self._wake.clear()
            self._woken = False
            self.flush()

    def flush(self):
        """Write every queued line now."""
        with self._flushing:
            for handler, queue in list(self._queues.items()):
                texts = [queue.popleft() for _ in range(len(queue))]
                if texts:
                    _write(handler, texts)


def _write(handler, texts):
    """What handler.handle() does with records formatted as texts."""
    with handler.lock:
        try:
            if _STREAMS[type(handler)]:
                handler.reopenIfNeeded()
            stream = handler.stream
            end = handler.terminator
            stream.write(end.join(texts) + end)
            stream.flush()  # StreamHandler.flush(), under the same lock
        except RecursionError:
            raise
        except Exception:
            handler.handleError(logging.makeLogRecord(
                {'msg': texts[0], 'levelno': logging.INFO}))


_WRITER = _Writer()


def flush():
    """Write the request lines not written yet (tests, before exiting)."""
    _WRITER.flush()


class _Format:
    """A format string of ContextFormatter, and what its lines need."""

    def __init__(self, fmt, per_second):
        self.text = fmt
        fields = [found for found in _FIELDS.findall(fmt) if found[0]]
        self.names = {name for name, _ in fields}
        self.instance = 'instance' in self.names
        # Made here: the values of _RECORD, _ADDED and _CONTEXT; msecs as
        # an integer (LogRecord's is a fraction in Python 3.10); asctime
        # when it is the strftime() of the second; no '%' but the fields';
        # the message as it is (_Template writes _MESSAGE in its place).
        self.ours = (
            self.names <= _RECORD | _ADDED | _CONTEXT.keys()
            and all(spec[-1] in 'diu' for name, spec in fields
                    if name == 'msecs')
            and (per_second or 'asctime' not in self.names)
            and '%' not in _FIELDS.sub('', fmt)
            and all(spec == 's' for name, spec in fields
                    if name == 'message'))
        # ContextFormatter: '-' when the format names it, '' at INFO.
        self.error_summary = '-' if '%(error_summary)s' in fmt else ''

    def written(self, values, per_line):
        """The format with values written in, but for the names per_line."""
        def field(found):
            name, spec = found.groups()
            if name not in values or name in per_line:
                return found.group()
            return (('%' + spec) % (values[name],)).replace('%', '%%')
        return _FIELDS.sub(field, self.text)


class _Template:
    """A format with its second's values in and positional fields left.

    The fields left are among _PER_LINE, the message's arguments and the
    context's values read (``wanted``, in that order): pick() takes them,
    in the format's order, from the tuple of all three, and
    ``text % pick(line)`` is the line (one '%' operation, no dictionary
    and no message string per line: _MESSAGE stands in the message's
    place, its fields in the line's).
    """

    def __init__(self, fmt, written, wanted):
        self.instance = fmt.instance
        order = _PER_LINE + _MESSAGE_ARGS + wanted
        positions = []

        def field(found):
            name, spec = found.groups()
            if not name:
                return found.group()  # '%%'
            if name == 'message':
                positions.extend(order.index(arg) for arg in _MESSAGE_ARGS)
                return _MESSAGE
            positions.append(order.index(name))
            return '%' + spec
        self.text = _FIELDS.sub(field, written)
        if len(positions) == 1:
            self.pick = lambda line, at=positions[0]: (line[at],)
        elif positions:
            self.pick = operator.itemgetter(*positions)
        else:
            self.pick = lambda line: ()


# The values of a line made per line, in the order _Template reads them,
# then _MESSAGE's arguments.
_PER_LINE = ('created', 'msecs', 'instance', 'user_identity')
_MESSAGE_ARGS = ('-remote', '-method', '-uri', '-status', '-length',
                 '-seconds')


class _Dashes(dict):
    """A falsy value as '-': oslo.log's _ReplaceFalseValue."""

    def __getitem__(self, key):
        return dict.get(self, key) or '-'


class _Lines:
    """ContextFormatter.format() of this module's lines, for one second.

    The values it gives its format string, in its order, made without a
    record (the line is at INFO, of this module's logger, no exception).
    Those the same all second long (the options, the time to the second,
    the process, the logger's name) are written into the format strings
    once, and a user_identity text made once per caller: what is left per
    line is the time's milliseconds, the message and the request's values.
    """

    def __init__(self, formatter, name, created):
        conf = formatter.conf
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
        # The record's values, the formatter's, the blanks (each stays ''
        # unless the context gives a value), the time: in that order.
        self._first = {
            'name': name, 'levelno': logging.INFO,
            'levelname': logging.getLevelName(logging.INFO),
            'process': _PROCESS.id if logging.logProcesses else None,
            'project': formatter.project, 'version': formatter.version,
            'instance': '', **dict.fromkeys(_BLANKS, '')}
        if per_second:
            self._first['asctime'] = formatter.formatTime(
                types.SimpleNamespace(created=created), formatter.datefmt)
        # The context's values read per line, in one attrgetter call: those
        # the formats name, and the ids (request_id chooses the format);
        # then those user_identity names, which key its texts.
        # get_logging_values()' other two keys are no plain attributes.
        self._wanted = tuple(sorted(
            (self._with_context.names | self._without.names
             | {'request_id', 'global_request_id'}) & _CONTEXT.keys()))
        identity = {name for name, _ in _FIELDS.findall(self._identity)}
        self._readable = not identity & {'auth_token', 'user_identity'}
        self._identity_names = tuple(sorted(identity & _CONTEXT.keys()))
        self._read = operator.attrgetter(
            *(_CONTEXT[key] for key in self._wanted + self._identity_names))
        self._identity_at = len(self._wanted)
        self._identities = {}
        # The formats with this second's values written in: without a
        # context; with a RequestContext, whose values are the request's.
        per_line = {'created', 'msecs', 'message'}
        self._plain = self._without.written(
            {**self._first, 'error_summary': self._without.error_summary},
            per_line)
        per_line |= {*self._wanted, 'instance', 'user_identity'}
        # A request's formats (with its request id, or without one) as
        # _Templates; None if the handler is to format the record.
        self._templates = [
            _Template(fmt, fmt.written({**self._first,
                                        'error_summary': fmt.error_summary},
                                       per_line), self._wanted)
            if fmt.ours else None
            for fmt in (self._without, self._with_context)]
        self._request_id_at = self._wanted.index('request_id')

    def format(self, created, msecs, args, context):
        """The line's text, or None: the handler is to format the record.

        args: _MESSAGE's.
        """
        if not context:
            if not self._without.ours:
                return None
            return self._plain % {
                'created': created, 'msecs': msecs,
                'message': _MESSAGE % args}
        if type(context) is not context_utils.RequestContext or (
                not self._readable):
            return self._any_context(created, msecs, _MESSAGE % args,
                                     context)
        read = self._read(context)
        template = self._templates[bool(read[self._request_id_at])]
        if template is None:
            return None
        key = read[self._identity_at:]
        identity = self._identities.get(key)
        if identity is None:
            identity = self._identities[key] = self._identity % _Dashes(
                zip(self._identity_names, key))
        instance = self._instance_of(context) if template.instance else ''
        return template.text % template.pick(
            (created, msecs, instance, identity) + args + read)

    def _any_context(self, created, msecs, message, context):
        # Another class of context, or a user_identity naming a value that
        # is no attribute: all of get_logging_values(), as ContextFormatter.
        found = formatters._dictify_context(context)
        values = {**self._first, 'created': created, 'msecs': msecs,
                  **found}
        fmt = (self._with_context if values.get('request_id')
               else self._without)
        if not fmt.ours:
            return None
        values['instance'] = self._instance_of(context)
        values['user_identity'] = self._identity % _Dashes(found)
        values['error_summary'] = fmt.error_summary
        values['message'] = message
        if 'asctime' in self._first:
            values['asctime'] = self._first['asctime']
        return fmt.text % values

    def _instance_of(self, context):
        # ContextFormatter's nova-isms: an instance the context names.
        for name, fmt in (('instance', self._instance),
                          ('instance_uuid', self._instance_uuid),
                          ('resource_uuid', self._instance_uuid)):
            uuid = getattr(context, name, None)
            if uuid:
                return fmt % {'uuid': uuid}
        return ''


class _Process:
    """os.getpid() as LogRecord asks it, asked again in a forked child."""

    def __init__(self):
        self.id = os.getpid()
        os.register_at_fork(after_in_child=self._forked)

    def _forked(self):
        self.id = os.getpid()


_PROCESS = _Process()
_EVERY = RequestLog()


def log_request(environ, status, length, seconds):
    """Log an answer's line, whatever [api] log_requests says."""
    _EVERY.log(environ, status, length, seconds)
