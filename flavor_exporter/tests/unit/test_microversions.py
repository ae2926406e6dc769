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
"""No call asks for a microversion the oldest supported release lacks.

2024.1's Nova answers up to compute 2.96 and its Placement up to 1.39; a
call asking for more gets a 406 there, on the clouds the predecessor's
users run. The functional tests run on 2024.1 only in part, so this reads
every microversion written in the service's code: a constant whose name
says MICROVERSION, a ``microversion=`` argument, or a version literal
passed to a client's get/get_all.
"""

import ast
import os
import re

import flavor_exporter
from flavor_exporter.tests import base
from flavor_exporter.tests import releases

PACKAGE_DIR = os.path.dirname(os.path.abspath(flavor_exporter.__file__))
_VERSION = re.compile(r'\d+\.\d+')
# Compute microversions are 2.N, Placement's 1.N.
_SERVICE = {2: 'compute', 1: 'placement'}


def _literal(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _versions_in(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if any('MICROVERSION' in name for name in names):
                yield node.lineno, _literal(node.value)
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == 'microversion':
                    yield node.lineno, _literal(keyword.value)
            method = getattr(node.func, 'attr', None)
            if method in ('get', 'get_all'):
                for arg in node.args[2:]:
                    value = _literal(arg)
                    if value and _VERSION.fullmatch(value):
                        yield node.lineno, value


def microversions():
    """{(path, line): version} of the service's code, tests excluded."""
    found = {}
    for root, dirs, files in os.walk(PACKAGE_DIR):
        dirs[:] = [d for d in dirs if d != 'tests']
        for name in files:
            if not name.endswith('.py'):
                continue
            path = os.path.join(root, name)
            with open(path) as f:
                tree = ast.parse(f.read(), path)
            for line, value in _versions_in(tree):
                if value is not None:
                    found[(os.path.relpath(path, PACKAGE_DIR), line)] = value
    return found


class MicroversionsTest(base.BaseTestCase):

    def test_the_scan_finds_the_calls_it_guards(self):
        # The hypervisors source's 2.87 and the usage query's 1.29: if the
        # scan stopped seeing them it would guard nothing.
        self.assertLessEqual({'2.87', '1.29', '2.53', '1.14'},
                             set(microversions().values()))

    def test_nothing_newer_than_the_oldest_release_offers(self):
        oldest = releases.OLDEST
        limits = {'compute': oldest.compute_max,
                  'placement': oldest.placement_max}
        too_new = []
        for (path, line), value in sorted(microversions().items()):
            major = releases.version_tuple(value)[0]
            service = _SERVICE.get(major)
            if service is None or (releases.version_tuple(value)
                                   > releases.version_tuple(
                                       limits[service])):
                too_new.append('%s:%d asks for %s %s, %s offers %s' % (
                    path, line, service or 'unknown service', value,
                    oldest.name, limits.get(service)))
        self.assertEqual([], too_new)

    def test_a_newer_microversion_would_be_caught(self):
        tree = ast.parse("HYPERVISOR_MICROVERSION = '2.97'\n"
                         "client.get('placement', '/x', '1.40')\n")
        self.assertEqual(['2.97', '1.40'],
                         [value for _, value in _versions_in(tree)])
