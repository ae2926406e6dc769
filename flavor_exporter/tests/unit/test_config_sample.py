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

import os

import fixtures
from oslo_config import generator

from flavor_exporter.conf import opts
from flavor_exporter.tests import base

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..')
GENERATOR_CONF = 'etc/flavor-exporter/flavor-exporter-config-generator.conf'
SAMPLE = 'etc/flavor-exporter/flavor-exporter.conf.sample'


class TestConfigSample(base.BaseTestCase):
    """The checked-in sample must be what oslo-config-generator makes."""

    def test_sample_is_up_to_date(self):
        output = os.path.join(self.useFixture(fixtures.TempDir()).path,
                              'sample.conf')
        generator.main(['--config-file', os.path.join(ROOT, GENERATOR_CONF),
                        '--output-file', output])
        with open(output) as fresh, open(os.path.join(ROOT, SAMPLE)) as old:
            self.assertEqual(fresh.read(), old.read(),
                             'Run "tox -e genconfig" and commit %s' % SAMPLE)

    def test_sample_documents_every_group(self):
        with open(os.path.join(ROOT, SAMPLE)) as sample:
            text = sample.read()
        for group in ('[api]', '[worker]', '[document_cache]',
                      '[openstack]', '[capacity]', '[pci]',
                      '[keystone_authtoken]'):
            self.assertIn(group, text)

    def test_sample_has_no_live_cloud_group(self):
        # A copied sample must start the commands: a live [cloud:NAME]
        # names a cloud that [DEFAULT] clouds does not list.
        with open(os.path.join(ROOT, SAMPLE)) as sample:
            sections = [line for line in sample if line.startswith('[')]
        self.assertEqual([], [s for s in sections if s.startswith('[cloud:')])
        with open(os.path.join(ROOT, SAMPLE)) as sample:
            self.assertIn('#     [cloud:regiontwo]\n', sample.read())

    def test_config_check_knows_the_namespaces_of_the_sample(self):
        # namespace is repeated, which configparser would not keep.
        with open(os.path.join(ROOT, GENERATOR_CONF)) as conf:
            lines = conf.read().splitlines()
        namespaces = [line.split('=', 1)[1].strip() for line in lines
                      if line.split('=', 1)[0].strip() == 'namespace']
        self.assertEqual(list(opts.SAMPLE_NAMESPACES), namespaces)
