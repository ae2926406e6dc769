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
"""The request log line: the text LOG.info writes, byte for byte.

Each test writes the line with request_log and with oslo.log's own
LOG.info, at the same (frozen) time, through the same handler, and
compares the two texts; where request_log is to write the text itself,
it must do so without making a LogRecord.
"""

import contextlib
import io
import json
import logging
import logging.handlers
import os
import re
import threading
from unittest import mock

import fixtures
from oslo_config import cfg
from oslo_context import context
from oslo_log import formatters
from oslo_log import log

from flavor_exporter.api import request_log
from flavor_exporter.tests import base

# A second and some, with milliseconds that round badly as a float.
NOW = 1796545230.1239996
ENVIRON = {'REMOTE_ADDR': '10.0.0.1', 'REQUEST_METHOD': 'GET',
           'PATH_INFO': '/v3/flavors/', 'QUERY_STRING': 'name=m1'}


class Subcontext(context.RequestContext):
    """A project's own context class: its values are its own."""

    def get_logging_values(self):
        values = super().get_logging_values()
        values['user_name'] = 'sub-' + str(values['user_name'])
        return values


class RequestLogTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.conf = cfg.ConfigOpts()
        log.register_options(self.conf)
        self.conf([], project='flavor-exporter')
        logger = request_log.LOG.logger
        saved = (logger.handlers, logger.propagate, logger.level,
                 logger.filters)
        logger.handlers, logger.propagate, logger.filters = [], False, []
        logger.setLevel(logging.INFO)

        def restore():
            (logger.handlers, logger.propagate, _,
             logger.filters) = saved
            logger.setLevel(saved[2])
        self.addCleanup(restore)
        self.logger = logger
        self.addCleanup(lambda: context._request_store.__dict__.pop(
            'context', None))
        self.now = NOW
        for name, value in (('time', lambda: self.now),
                            ('time_ns', lambda: int(self.now * 1e9))):
            patcher = mock.patch.object(request_log.time, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)

    def formatter(self):
        return formatters.ContextFormatter(
            project='flavor-exporter', version='1.0', config=self.conf,
            datefmt=self.conf.log_date_format)

    def stream(self, formatter=None):
        handler = logging.StreamHandler(io.StringIO())
        handler.setFormatter(formatter or self.formatter())
        return handler

    @staticmethod
    def written(handler):
        request_log.flush()
        if isinstance(handler, logging.FileHandler):
            handler.flush()
            with open(handler.baseFilename) as lines:
                return lines.read().splitlines()
        return handler.stream.getvalue().splitlines()

    def both(self, *handlers, environ=ENVIRON, status='200 OK',
             fast=True):
        """request_log's lines and then LOG.info's, per handler."""
        self.logger.handlers = list(handlers)
        no_record = mock.patch.object(
            logging.Logger, 'makeRecord',
            side_effect=AssertionError('a record on the fast path'))
        with no_record if fast else contextlib.nullcontext():
            request_log.RequestLog().log(environ, status, '1234', 0.000512)
        request_log.LOG.info(
            request_log._MESSAGE, environ.get('REMOTE_ADDR', '-'),
            request_log.loggable(environ.get('REQUEST_METHOD', '-')),
            request_log.uri(environ), status.split(None, 1)[0], '1234',
            0.000512)
        return [self.written(handler) for handler in handlers]

    def assertSame(self, *handlers, fast=True, **kwargs):
        """Both lines alike, for each handler; the line."""
        for lines in self.both(*handlers, fast=fast, **kwargs):
            self.assertEqual(2, len(lines), lines)
            self.assertEqual(lines[1], lines[0])
        return lines[0]


class TestSameText(RequestLogTestCase):

    def test_default_format_without_context(self):
        line = self.assertSame(self.stream())
        self.assertRegex(line, r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.123 %d '
                         r'INFO flavor_exporter.api.request_log \[-\] '
                         r'10.0.0.1 "GET /v3/flavors/\?name=m1" status: 200 '
                         r'len: 1234 time: 0.000512$' % os.getpid())

    def test_request_context(self):
        context.RequestContext(request_id='req-1')
        line = self.assertSame(self.stream())
        self.assertIn(' [None req-1 - - - - - -] 10.0.0.1', line)

    def test_global_id_and_user_identity(self):
        context.RequestContext(
            request_id='req-1', global_request_id='req-g', user_id='u',
            project_id='p', domain_id='d', user_domain_id='ud',
            project_domain_id='pd', system_scope='all')
        line = self.assertSame(self.stream())
        self.assertIn(' [req-g req-1 u p d all ud pd] 10.0.0.1', line)

    def test_user_identity_texts_follow_the_caller(self):
        handler = self.stream()
        self.logger.handlers = [handler]
        log = request_log.RequestLog()
        for user in ('a', 'b', 'a'):
            context.RequestContext(request_id='req-' + user, user_id=user)
            log.log(ENVIRON, '200 OK', '1', 0.1)
        self.assertEqual(
            ['[None req-a a - - - - -]', '[None req-b b - - - - -]',
             '[None req-a a - - - - -]'],
            [re.search(r'\[.*?\]', line).group()
             for line in self.written(handler)])

    def test_context_without_request_id(self):
        context.RequestContext(request_id=None, user_id='u')
        self.assertSame(self.stream())

    def test_resource_uuid_is_the_instance(self):
        context.RequestContext(request_id='req-1', resource_uuid='r-1')
        line = self.assertSame(self.stream())
        self.assertIn('[instance: r-1] 10.0.0.1', line)

    def test_custom_formats(self):
        self.conf.set_override(
            'logging_context_format_string',
            '%(asctime)s,%(msecs)d %(levelno)d %(levelname)-8s '
            '%(name)s %% %(project)s %(version)s %(user_name)s '
            '%(project_name)s %(roles)s %(is_admin)s %(global_request_id)s '
            '%(request_id)s (%(user_identity)s) %(color)s%(resource)s'
            '%(error_summary)s %(created)f %(process)05d: %(message)s')
        self.conf.set_override(
            'logging_default_format_string',
            '%(msecs)03d %(project)s %(version)s %(user_identity)s '
            '[%(global_request_id)s] %(instance)s%(message)s')
        self.conf.set_override('logging_user_identity_format',
                               '%(user)s@%(project_domain)s/%(nothing)s')
        self.conf.set_override('log_date_format', '%d/%m %H.%M.%S')
        self.assertSame(self.stream())
        context.RequestContext(request_id='req-1', user_id='u',
                               user_name='name', project_id='p%s',
                               roles=['reader'], project_domain_id='pd')
        self.assertSame(self.stream())
        context.RequestContext(request_id=None, user_id='u')
        self.assertSame(self.stream())

    def test_another_context_class(self):
        Subcontext(request_id='req-1', user_name='me')
        line = self.assertSame(self.stream())
        self.assertIn('req-1', line)
        self.conf.set_override('logging_context_format_string',
                               '%(user_name)s %(request_id)s %(message)s')
        line = self.assertSame(self.stream())
        self.assertTrue(line.startswith('sub-me req-1 10.0.0.1'), line)

    def test_each_second_its_time(self):
        handler = self.stream()
        for now in (NOW, NOW + 0.5, NOW + 1, NOW + 3601.0):
            self.now = now
            self.assertSame(handler)
            handler.stream = io.StringIO()

    def test_log_file(self):
        path = os.path.join(self.useFixture(
            fixtures.TempDir()).path, 'api.log')
        handler = logging.handlers.WatchedFileHandler(path)
        self.addCleanup(handler.close)
        handler.setFormatter(self.formatter())
        context.RequestContext(request_id='req-1')
        self.assertSame(handler)
        # logrotate moved it: the next line goes to a new file, as ever.
        os.rename(path, path + '.1')
        self.logger.handlers = [handler]
        request_log.log_request(ENVIRON, '200 OK', '1', 0.1)
        request_log.flush()
        with open(path) as new:
            self.assertIn('"GET /v3/flavors/?name=m1" status: 200',
                          new.read())

    def test_oslo_log_setup(self):
        # log_file and use_stderr as oslo.log sets them up, on the root.
        path = os.path.join(self.useFixture(
            fixtures.TempDir()).path, 'api.log')
        self.conf.set_override('log_file', path)
        self.conf.set_override('use_stderr', True)
        root = logging.getLogger()
        saved = root.handlers[:], root.level
        self.addCleanup(setattr, root, 'handlers', saved[0])
        self.addCleanup(root.setLevel, saved[1])
        stderr = self.useFixture(fixtures.MonkeyPatch(
            'sys.stderr', io.StringIO())).new_value
        log.setup(self.conf, 'flavor-exporter', version='1.0')
        handlers = root.handlers[:]
        self.addCleanup(lambda: [handler.close() for handler in handlers])
        self.assertEqual(
            [logging.handlers.WatchedFileHandler, logging.StreamHandler],
            [type(handler) for handler in handlers])
        self.logger.propagate = True
        context.RequestContext(request_id='req-1')
        with mock.patch.object(logging.Logger, 'makeRecord',
                               side_effect=AssertionError('a record')):
            request_log.log_request(ENVIRON, '200 OK', '1234', 0.000512)
        request_log.LOG.info(
            request_log._MESSAGE, '10.0.0.1', 'GET', '/v3/flavors/?name=m1',
            '200', '1234', 0.000512)
        for lines in (self.written(handlers[0]),
                      stderr.getvalue().splitlines()):
            self.assertEqual(2, len(lines), lines)
            self.assertEqual(lines[1], lines[0])


class TestFallsBack(RequestLogTestCase):
    """Where the handler formats the record LOG.info makes."""

    def test_another_formatter(self):
        # As a log_config_append file sets it up.
        handler = self.stream(logging.Formatter(
            '%(asctime)s %(levelname)s %(name)s %(message)s'))
        self.assertSame(handler, fast=False)

    def test_json(self):
        handler = self.stream(formatters.JSONFormatter())
        context.RequestContext(request_id='req-1')
        ours, stock = (json.loads(line)
                       for line in self.both(handler, fast=False)[0])
        # The caller each names: request_log's line, the test's.
        for differs in ('lineno', 'funcname', 'filename', 'module',
                        'pathname'):
            self.assertIsNotNone(ours.pop(differs, None), differs)
            stock.pop(differs, None)
        self.assertEqual(stock, ours)
        self.assertEqual('req-1', ours['context']['request_id'])
        self.assertEqual({'project', 'version'}, set(ours['extra']))

    def test_values_not_made_here(self):
        for fmt in ('%(asctime)s %(isotime)s %(message)s',
                    '%(thread)d %(message)s',
                    '%(msecs).3f %(message)s',
                    '%(request_id)s %(auth_token)s %(message)s'):
            self.conf.set_override('logging_context_format_string', fmt)
            context.RequestContext(request_id='req-1', auth_token='t')
            self.assertSame(self.stream(), fast=False)
        # A format string that is not ContextFormatter's to use.
        self.conf.set_override('logging_context_format_string',
                               '%(message)s %(nothing)s')
        handler = self.stream()
        with mock.patch.object(handler, 'handleError') as failed:
            self.both(handler, fast=False)
        self.assertEqual(2, failed.call_count)

    def test_no_datefmt(self):
        handler = self.stream(formatters.ContextFormatter(config=self.conf))
        self.assertSame(handler, fast=False)

    def test_one_handler_of_another_kind(self):
        # Both get the one record LOG.info makes.
        other = self.stream(logging.Formatter('%(message)s'))
        ours = self.stream()
        context.RequestContext(request_id='req-1')
        for lines in self.both(ours, other, fast=False):
            self.assertEqual(lines[1], lines[0])

    def test_a_filter(self):
        handler = self.stream()
        handler.addFilter(lambda record: record.args[3] != '200')
        self.assertEqual([[]], self.both(handler, fast=False))
        self.logger.addFilter(lambda record: False)
        self.assertEqual([[]], self.both(self.stream(), fast=False))

    def test_rotating_file(self):
        path = os.path.join(self.useFixture(
            fixtures.TempDir()).path, 'api.log')
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=10**6)
        self.addCleanup(handler.close)
        handler.setFormatter(self.formatter())
        self.assertSame(handler, fast=False)

    def test_levels(self):
        handler = self.stream()
        handler.setLevel(logging.WARNING)
        self.assertEqual([[]], self.both(handler))
        self.logger.setLevel(logging.WARNING)
        self.assertEqual([[]], self.both(self.stream()))


class TestLine(RequestLogTestCase):

    def test_a_url_cannot_forge_a_line(self):
        forged = dict(ENVIRON, PATH_INFO='/x\n2026-12-03 12:00:00.000 1 INFO '
                      'x [-] "GET /admin" status: 200', QUERY_STRING='')
        line = self.assertSame(self.stream(), environ=forged)
        self.assertIn('"GET /x%0A2026-12-03%2012:00:00.000%201%20INFO%20x%20'
                      '[-]%20%22GET%20/admin%22%20status:%20200" status: 200',
                      line)
        odd = dict(ENVIRON, REQUEST_METHOD='G"T\n', REQUEST_URI='/y\x1b"\\')
        line = self.assertSame(self.stream(), environ=odd)
        self.assertIn('"G%22T%0A /y%1B%22%5C" status: 200', line)

    def test_errors_only(self):
        handler = self.stream()
        self.logger.handlers = [handler]
        log = request_log.RequestLog(every_request=False)
        for status in ('200 OK', '304 Not Modified', '404 Not Found',
                       '503 Service Unavailable'):
            log.answered(ENVIRON, status, '-', 0.1)
        self.assertEqual(['404', '503'], [
            re.search(r'status: (\d+)', line).group(1)
            for line in self.written(handler)])
        request_log.RequestLog().answered(ENVIRON, '200 OK', '-', 0.1)
        self.assertEqual(3, len(self.written(handler)))

    def test_handlers_changed_within_the_second(self):
        # The handlers found are kept for the second (time is frozen
        # here), but not past a change of the loggers' handlers.
        log = request_log.RequestLog()
        first, second, parent = self.stream(), self.stream(), self.stream()
        self.logger.handlers = [first]
        log.log(ENVIRON, '200 OK', '1', 0.1)
        self.logger.handlers = [second]
        log.log(ENVIRON, '200 OK', '2', 0.1)
        self.logger.addHandler(first)
        log.log(ENVIRON, '200 OK', '3', 0.1)
        self.logger.removeHandler(second)
        log.log(ENVIRON, '200 OK', '4', 0.1)
        self.logger.parent.addHandler(parent)
        self.addCleanup(self.logger.parent.removeHandler, parent)
        self.logger.propagate = True
        log.log(ENVIRON, '200 OK', '5', 0.1)
        self.logger.handlers = []
        self.logger.propagate = False
        with mock.patch.object(logging, 'lastResort', self.stream()) as last:
            log.log(ENVIRON, '200 OK', '6', 0.1)

        def lengths(handler):
            # Sorted: a line the logger handles (the root's handlers are
            # the test runner's here) is written before those queued.
            return sorted(re.search(r'len: (\d+)', line).group(1)
                          for line in self.written(handler))
        self.assertEqual(['1', '3', '4', '5'], lengths(first))
        self.assertEqual(['2', '3'], lengths(second))
        self.assertEqual(['5'], lengths(parent))
        self.assertEqual(['6'], lengths(last))

    def test_a_forked_child_writes_its_own_lines(self):
        # A line queued before a fork is the parent's to write; the child
        # writes its own, with its process id.
        path = os.path.join(self.useFixture(
            fixtures.TempDir()).path, 'api.log')
        handler = logging.FileHandler(path)
        self.addCleanup(handler.close)
        handler.setFormatter(self.formatter())
        self.logger.handlers = [handler]
        log = request_log.RequestLog()
        log.log(dict(ENVIRON, PATH_INFO='/parent'), '200 OK', '1', 0.1)
        child = os.fork()
        if not child:
            try:
                log.log(dict(ENVIRON, PATH_INFO='/child'), '200 OK', '2', 0.1)
                request_log.flush()
                handler.flush()
            finally:
                os._exit(0)
        os.waitpid(child, 0)
        lines = self.written(handler)
        self.assertEqual(
            sorted([(str(os.getpid()), '/parent'), (str(child), '/child')]),
            sorted(re.search(r'\.\d{3} (\d+) INFO .*"GET ([^?]+)', line)
                   .groups() for line in lines), lines)

    def test_threads_write_whole_lines(self):
        path = os.path.join(self.useFixture(
            fixtures.TempDir()).path, 'api.log')
        handler = logging.handlers.WatchedFileHandler(path)
        self.addCleanup(handler.close)
        handler.setFormatter(self.formatter())
        self.logger.handlers = [handler]
        log = request_log.RequestLog()
        start = threading.Barrier(8)

        def serve(number):
            start.wait()
            for request in range(200):
                context.RequestContext(request_id='req-%d-%d' % (
                    number, request), user_id='u%d' % number)
                log.answered(dict(ENVIRON, PATH_INFO='/%d/%d' % (
                    number, request)), '200 OK', str(request), 0.001)
        threads = [threading.Thread(target=serve, args=(number,))
                   for number in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        lines = self.written(handler)
        self.assertEqual(1600, len(lines))
        seen = set()
        for line in lines:
            found = re.search(
                r' \[None req-(\d)-(\d+) u(\d) - - - - -\] 10.0.0.1 "GET '
                r'/(\d)/(\d+)\?name=m1" status: 200 len: (\d+) time: '
                r'0.001000$', line)
            self.assertIsNotNone(found, line)
            number, request, user, path_number, path_request, length = (
                found.groups())
            self.assertEqual({number}, {user, path_number})
            self.assertEqual({request}, {path_request, length})
            seen.add((number, request))
        self.assertEqual(1600, len(seen))


class TestContextValues(base.BaseTestCase):

    def test_read_as_get_logging_values_gives_them(self):
        # request_log reads a RequestContext's attributes where oslo.context
        # would make the whole dict; the installed oslo.context must agree.
        names = ('user_id', 'project_id', 'domain_id', 'user_domain_id',
                 'project_domain_id', 'user_name', 'project_name',
                 'domain_name', 'user_domain_name', 'project_domain_name',
                 'request_id', 'global_request_id', 'resource_uuid',
                 'system_scope')
        made = context.RequestContext(
            overwrite=False, roles=['r'], is_admin=True, read_only=True,
            show_deleted=True, is_admin_project=False,
            **{name: 'v-' + name for name in names})
        values = made.get_logging_values()
        self.assertEqual(set(values) - {'auth_token', 'user_identity'},
                         set(request_log._CONTEXT))
        for key, attribute in request_log._CONTEXT.items():
            self.assertEqual(values[key], getattr(made, attribute), key)
