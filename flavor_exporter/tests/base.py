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
"""Base test cases of every flavor-exporter test.

oslotest's base class makes a test honour what stestr and tox set:
OS_TEST_TIMEOUT (a test that runs longer fails instead of hanging the
run), OS_STDOUT_CAPTURE / OS_STDERR_CAPTURE and OS_LOG_CAPTURE (output and
log lines are kept with the test and shown only if it fails), plus a
temporary directory and HOME of its own.
"""

from oslo_config import fixture as config_fixture
from oslotest import base

from flavor_exporter.common import clouds
from flavor_exporter.common import config
from flavor_exporter.conf import clouds as clouds_conf


class BaseTestCase(base.BaseTestCase):
    """For tests that need no configuration."""


class TestCase(BaseTestCase):
    """With a private copy of CONF per test."""

    def setUp(self):
        super().setUp()
        self.conf_fixture = self.useFixture(config_fixture.Config(config.CONF))
        config.parse_args([], default_config_files=[])
        self.conf = config.CONF
        # The API in process, on loopback; the tests of authentication
        # set their own strategy (and test_auth the default's). A
        # default, not an override: configuration files still win.
        self.conf_fixture.set_default('auth_strategy', 'noauth')
        self.addCleanup(self._forget_cloud_groups)

    def _forget_cloud_groups(self):
        # The groups of [DEFAULT] clouds a test (or a command it ran)
        # registered; oslo.config cannot unregister a group, and later
        # tests must not find them.
        for name in list(self.conf._groups):
            if name.startswith(clouds_conf.GROUP_PREFIX):
                del self.conf._groups[name]

    def flags(self, group=None, **kw):
        """Override config options for this test only."""
        self.conf_fixture.config(group=group, **kw)

    def use_clouds(self, *names, default=None):
        """[DEFAULT] clouds = names for this test; their Cloud list."""
        self.flags(clouds=list(names), default_cloud=default)
        clouds.register_opts(self.conf)
        return clouds.configured(self.conf)
