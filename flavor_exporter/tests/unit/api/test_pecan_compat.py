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

import functools
import inspect
from unittest import mock

import pecan.compat
import pecan.routing
import pecan.util

from flavor_exporter.api import pecan_compat
from flavor_exporter.tests import base


class Controller:

    def method(self, a, b=1, *args, **kwargs):
        pass


def function(x, y=2):
    pass


class TestGetargspec(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.addCleanup(pecan_compat._specs.clear)
        pecan_compat._specs.clear()

    def test_same_answer_as_pecan(self):
        for func in (Controller().method, Controller.method, function):
            ours = pecan_compat.getargspec(func)
            theirs = pecan_compat._original(func)
            self.assertEqual(tuple(theirs), tuple(ours))
            self.assertEqual(theirs.keywords, ours.keywords)

    def test_computed_once_per_function(self):
        with mock.patch.object(inspect, 'getfullargspec',
                               wraps=inspect.getfullargspec) as spy:
            for _ in range(5):
                # A new bound method object per call, as Pecan sees them.
                pecan_compat.getargspec(Controller().method)
                pecan_compat.getargspec(function)
        self.assertEqual(2, spy.call_count)

    def test_bound_method_keeps_self(self):
        spec = pecan_compat.getargspec(Controller().method)
        self.assertEqual(['self', 'a', 'b'], spec.args)
        self.assertEqual('args', spec.varargs)
        self.assertEqual('kwargs', spec.keywords)
        self.assertEqual((1,), spec.defaults)

    def test_callers_cannot_change_the_memo(self):
        pecan_compat.getargspec(function).args.append('oops')
        self.assertEqual(['x', 'y'], pecan_compat.getargspec(function).args)

    def test_other_callables_go_to_pecan(self):
        partial = functools.partial(function, 1)
        with mock.patch.object(pecan_compat, '_original') as original:
            pecan_compat.getargspec(partial)
        original.assert_called_once_with(partial)

    def test_controller_classes_scanned_once(self):
        class Scanned:
            pass

        listed = []

        def counting_dir(obj):
            listed.append(obj)
            return []

        obj = Scanned()
        with mock.patch.object(pecan.routing, 'dir', counting_dir,
                               create=True):
            pecan_compat.detect_custom_path_segments(obj)
            pecan_compat.detect_custom_path_segments(obj)
            pecan_compat.detect_custom_path_segments(Scanned())
        self.assertEqual([obj], listed)

    def test_install_and_uninstall(self):
        self.addCleanup(pecan_compat.install)
        pecan_compat.uninstall()
        self.assertFalse(pecan_compat.installed())
        self.assertIs(pecan_compat._original, pecan.util._getargspec)
        self.assertIs(pecan_compat._original_detect,
                      pecan.routing._detect_custom_path_segments)
        pecan_compat.install()
        self.assertTrue(pecan_compat.installed())
        self.assertIs(pecan_compat.getargspec, pecan.compat.getargspec)
        self.assertIs(pecan_compat.detect_custom_path_segments,
                      pecan.routing._detect_custom_path_segments)
        # What Pecan's routing and invocation call.
        self.assertEqual(['self', 'a', 'b'],
                         pecan.util.getargspec(Controller().method).args)

    def test_pecan_still_needs_the_argspec_fix(self):
        # When this fails, Pecan no longer builds a namedtuple class per
        # call: drop getargspec from pecan_compat.
        first = type(pecan_compat._original(function))
        second = type(pecan_compat._original(function))
        self.assertIsNot(first, second)

    def test_pecan_still_needs_the_scan_fix(self):
        # When this fails, Pecan no longer lists the attributes of a
        # controller it has scanned: drop detect_custom_path_segments.
        class Scanned:
            pass

        obj = Scanned()
        pecan_compat._original_detect(obj)
        with mock.patch.object(pecan.routing, 'dir', create=True,
                               return_value=[]) as listing:
            pecan_compat._original_detect(obj)
        listing.assert_called_once_with(obj)
