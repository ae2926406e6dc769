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
"""Fixtures of the functional tests: the test cloud, commands run for real.

The test cloud itself (real Nova + Placement + Keystone, memcached) is the
top-level ``testcloud`` package, which is not part of flavor-exporter.
"""

import os
import signal
import subprocess
import sys

import fixtures

from flavor_exporter.common import nova_conf
from testcloud import cloud_venv
from testcloud import launcher


def console_script(name):
    """argv of a console script: installed (tox), else its module."""
    script = os.path.join(os.path.dirname(sys.executable), name)
    if os.access(script, os.X_OK):
        return [script]
    return [sys.executable, '-m',
            name.replace('flavor-exporter-', 'flavor_exporter.cmd.')]


def mirrored_options(spec):
    """{group: {option: value}} an operator mirrors from spec's cloud.

    Its nova.conf options of the same meaning (nova_conf.py), its
    enabled filters and the release it runs.
    """
    groups = {'capacity': {'nova_release': cloud_venv.selected()}}
    for (section, name), (group, ours) in nova_conf.MIRRORED.items():
        if name in spec.config.get(section, {}):
            groups.setdefault(group, {})[ours] = spec.config[section][name]
    for name, ours in nova_conf.FILTERS.items():
        groups['capacity'][ours] = name in spec.enabled_filters
    return groups


def stop_process_group(process):
    """SIGTERM a process started with start_new_session, then SIGKILL."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


class Cloud(fixtures.Fixture):
    """A test cloud (``testcloud.launcher``) of a scenario for one test.

    shared: use the cloud of that scenario already running in this test
    process (start it if needed) and leave it running for the next test;
    only for tests that leave the cloud as they found it. Otherwise the
    test gets a cloud of its own, stopped when it ends.

    After setUp: ``cloud``, the ``testcloud.launcher.TestCloud`` (its
    ``clouds_yaml``, ``cloud_name``, ``compute_url``, ``placement_url``,
    ``env()``, ``connection()``...).
    """

    def __init__(self, scenario, keystone=False, shared=False):
        super().__init__()
        self.scenario = scenario
        self.keystone = keystone
        self.shared = shared
        self.cloud = None

    def setUp(self):
        try:
            super().setUp()
        except fixtures.MultipleExceptions as exc:
            # The cloud's own error (with the server's stderr tail) is what
            # a reader needs, not the SetupError fixtures wraps it in.
            first = exc.args[0][1]
            if isinstance(first, launcher.CloudStartError):
                raise first from None
            raise

    def _setUp(self):
        if self.shared:
            self.cloud = launcher.shared_cloud(self.scenario,
                                               keystone=self.keystone)
        else:
            self.cloud = launcher.TestCloud(self.scenario,
                                            keystone=self.keystone)
            self.cloud.setUp()
            self.addCleanup(self.cloud.cleanUp)
