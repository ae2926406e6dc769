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
"""Base test case: a private copy of CONF per test."""

from oslo_config import fixture as config_fixture
import testtools

from flavor_exporter.common import config


class TestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.conf_fixture = self.useFixture(config_fixture.Config(config.CONF))
        config.parse_args([], default_config_files=[])
        self.conf = config.CONF

    def flags(self, group=None, **kw):
        """Override config options for this test only."""
        self.conf_fixture.config(group=group, **kw)
