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
"""What a new user sees first: --help of every installed command."""

import os
import subprocess
import sys

from flavor_exporter.cmd import all as cmd_all
from flavor_exporter.cmd import api as cmd_api
from flavor_exporter.cmd import report as cmd_report
from flavor_exporter.cmd import worker as cmd_worker
from flavor_exporter.tests import base

COMMANDS = {'flavor-exporter-api': cmd_api,
            'flavor-exporter-worker': cmd_worker,
            'flavor-exporter-all': cmd_all,
            'flavor-exporter-report': cmd_report}


def console_script(name):
    """The installed script (tox installs them), else its module."""
    script = os.path.join(os.path.dirname(sys.executable), name)
    if os.access(script, os.X_OK):
        return [script]
    return [sys.executable, '-m', COMMANDS[name].__name__]


class TestHelp(base.BaseTestCase):

    def test_every_command_says_what_it_does(self):
        for name, module in COMMANDS.items():
            # The installed console script in a process of its own, as a
            # user runs it: what its imports print shows too.
            done = subprocess.run(
                console_script(name) + ['--help'],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                timeout=60)
            self.assertEqual(0, done.returncode, done.stderr)
            # No deprecation banner (eventlet's, through futurist).
            self.assertEqual('', done.stderr, name)
            lines = done.stdout.splitlines()
            self.assertEqual('usage: %s [options]' % name, lines[0])
            self.assertEqual('', lines[1])
            described = ' '.join(lines[2:lines.index('', 2)])
            self.assertEqual(str(module.DESCRIPTION), described)
            # The epilog: where the rest of the settings are.
            self.assertIn('conf.sample', done.stdout)

    def test_wsgi_module_imports_quietly(self):
        # What uWSGI or mod_wsgi load, with the worker's modules that
        # compute_on_miss uses, and every warning shown.
        done = subprocess.run(
            [sys.executable, '-W', 'always', '-c',
             'import flavor_exporter.wsgi.api, '
             'flavor_exporter.worker.refresh'],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=60)
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertNotIn('Eventlet is deprecated', done.stderr)
