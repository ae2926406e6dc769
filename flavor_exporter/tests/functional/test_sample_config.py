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
"""Every command from the generated sample, as README's Installation says.

The sample is generated anew (oslo-config-generator, as ``tox -e
genconfig``), copied, and only what an operator must set is uncommented:
the credentials ([openstack], against the test cloud's real Keystone),
[document_cache] memcache_servers and the API's address. The report and
the worker's --run-once read the cloud; the API and flavor-exporter-all
serve it. (That the committed sample is the generated one is
tests/unit/test_config_sample.py.)
"""

import json
import os
import subprocess

from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests.functional import test_api_uwsgi
from flavor_exporter.tests.functional import test_keystone_auth as ka
from testcloud import loopback

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..')
GENERATOR_CONF = os.path.join(
    ROOT, 'etc', 'flavor-exporter', 'flavor-exporter-config-generator.conf')


def set_option(text, group, option, value):
    """text with "#option = default" of [group] made "option = value".

    As an operator edits the sample: the option's commented line in its
    own section, uncommented. AssertionError when the sample has none.
    """
    lines = text.split('\n')
    start = lines.index('[%s]' % group)
    for number in range(start + 1, len(lines)):
        line = lines[number]
        if line.startswith('['):
            break
        if line.startswith('#%s = ' % option):
            lines[number] = '%s = %s' % (option, value)
            return '\n'.join(lines)
    raise AssertionError('the sample has no "#%s = " in [%s]'
                         % (option, group))


class TestSampleConfiguration(ka.WorkerCredentialsBase):

    def setUp(self):
        super().setUp()
        self.sample = self.generate()

    def generate(self):
        path = os.path.join(self.workdir, 'generated.conf.sample')
        done = subprocess.run(
            [fe_fixtures.console_script('oslo-config-generator')[0],
             '--config-file', GENERATOR_CONF, '--output-file', path],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, timeout=120)
        self.assertEqual(0, done.returncode, done.stderr)
        # Neither an eventlet deprecation banner nor a renamed group.
        self.assertEqual('', done.stderr)
        with open(path) as sample:
            return sample.read()

    def filled(self, name, port, memcached=None):
        """The sample with credentials, memcached and the API's address.

        memcached: its fixture; by default the test's.
        """
        text = self.sample
        keystone = self.keystone
        for option, value in (
                ('auth_type', 'password'),
                ('auth_url', keystone['url'] + '/v3'),
                ('username', keystone['admin_user']),
                ('password', keystone['admin_password']),
                ('project_name', keystone['admin_project']),
                ('user_domain_name', 'Default'),
                ('project_domain_name', 'Default')):
            text = set_option(text, 'openstack', option, value)
        text = set_option(text, 'document_cache', 'memcache_servers',
                          (memcached or self.memcached).servers[0])
        # On loopback the test reads the API without a token.
        text = set_option(text, 'DEFAULT', 'auth_strategy', 'noauth')
        text = set_option(text, 'api', 'host_ip', '127.0.0.1')
        text = set_option(text, 'api', 'port', str(port))
        path = os.path.join(self.workdir, name)
        with open(path, 'w') as conf:
            conf.write(text)
        return path

    def serve(self, command, config, port):
        log = open(os.path.join(self.workdir, command + '.log'), 'w')
        self.addCleanup(log.close)
        process = subprocess.Popen(
            fe_fixtures.console_script(command) + ['--config-file', config],
            env=ka.clean_env(self.workdir), stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True)
        self.addCleanup(fe_fixtures.stop_process_group, process)
        loopback.wait_for_port(port, timeout=120, process=process)
        answer = test_api_uwsgi.fetch_ok(port, '/v3/flavors/', timeout=180)
        self.assertEqual(200, answer[0], answer)
        return json.loads(answer[2])

    def test_report_and_worker(self):
        config = self.filled('flavor-exporter.conf', loopback.free_port())
        report = self.report(config)
        self.assertCloudNumbers(report)
        # The sample has no [pci] alias: the GPU host aggregates count the
        # GPUs, exactly, and say so as a note, not as a limitation.
        medium = [f for f in report['flavors']
                  if f['name'] == ka.GPU_MEDIUM][0]
        self.assertEqual([], medium['unsupported'])
        self.assertEqual(1, len(medium['notes']), medium)
        self.assertIn('counted from GPU host aggregates', medium['notes'][0])

        self.assertPublishedFromCatalog(self.run_once(config))

    def test_api_and_all(self):
        api_port = loopback.free_port()
        self.run_once(self.filled('worker.conf', api_port))
        served = self.serve('flavor-exporter-api',
                            self.filled('api.conf', api_port), api_port)
        self.assertCloudNumbers(served)

        # flavor-exporter-all with a memcached of its own: what it serves,
        # its worker published.
        all_port = loopback.free_port()
        own = self.useFixture(loopback.MemcachedFixture())
        served = self.serve('flavor-exporter-all',
                            self.filled('all.conf', all_port, own), all_port)
        self.assertCloudNumbers(served)
