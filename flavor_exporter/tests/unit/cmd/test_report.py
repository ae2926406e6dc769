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
"""flavor-exporter-report's table, progress line and choice of cloud."""

import collections
import io
import json
import logging
import os
import threading

import fixtures
from oslo_config import cfg

from flavor_exporter.cmd import report
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import render
from flavor_exporter.tests import base
from flavor_exporter.tests import sample_cloud as sample
from flavor_exporter.tests.unit.cmd import test_start


def listed(flavors=None):
    """The /v3/flavors/ flavors of the sample cloud, as the report has."""
    documents, _pointer = sample.documents(flavors)
    return json.loads(documents[pub.v3_list()])[pub.FLAVORS]


class TestTable(base.BaseTestCase):

    def test_gpu_first_and_zone_columns(self):
        lines = report.format_table(listed()).splitlines()
        self.assertEqual(
            ['name            gpu      available  total  az1    az2    '
             'limited_by',
             '--------------  -------  ---------  -----  -----  -----  '
             '-------------',
             'gpu.a100        a100 x1          2      4    2/4      -  '
             'GPU_AGGREGATE',
             'GPU.V100-small  v100 x1          2      2      -    2/2  '
             'GPU_AGGREGATE',
             'broken          -            ERROR  ERROR  ERROR  ERROR  -',
             'collection      -               28     32  12/16  16/16  '
             'MEMORY_MB',
             'm1.large        -                7      8    3/4    4/4  '
             'MEMORY_MB',
             'zone cells: available/total'], lines)

    def test_gpu_types(self):
        document = json.loads(render.gpu_list_document(sample.report()))
        self.assertEqual(
            ['type  total  used  free  stranded  az1  az2  stranded_by',
             '----  -----  ----  ----  --------  ---  ---  '
             '--------------------------',
             'a100      4     2     2         0  2/4    -  -',
             'v100      4     0     4         2    -  4/4  compute service '
             'disabled 2',
             'zone cells: free/total'],
            report.format_gpu_table(document[pub.GPUS]).splitlines())

    def test_what_strands_most_comes_first(self):
        gpu = {pub.TYPE: 'A100', pub.TOTAL: 9, pub.USED: 0, pub.FREE: 9,
               pub.STRANDED: 9, pub.ZONES: {},
               pub.STRANDED_BY: {'MEMORY_MB': 2, 'VCPU': 4,
                                 'compute service down': 3}}
        self.assertTrue(report.format_gpu_table([gpu]).splitlines()[2]
                        .endswith('VCPU 4, compute service down 3, '
                                  'MEMORY_MB 2'))

    def test_200_flavors_stay_aligned(self):
        flavors = listed(sample.many_flavors(200))
        self.assertEqual(200, len(flavors))
        lines = report.format_table(flavors).splitlines()
        self.assertEqual(203, len(lines))
        self.assertEqual('zone cells: available/total', lines.pop())
        # Every column starts where its header does, on every line.
        header = lines[0]
        starts = [header.index(' ' + word) + 1
                  for word in ('gpu', 'available', 'total', 'az1')]
        for line in lines[2:]:
            for start in starts:
                self.assertEqual(' ', line[start - 1], line)
        # Not wider than a terminal that shows 200 lines.
        self.assertLessEqual(max(map(len, lines)), 120)
        gpu_rows = [line for line in lines[2:] if ' x' in line]
        self.assertEqual(lines[2:2 + len(gpu_rows)], gpu_rows)


class FakeClient:

    def __init__(self):
        self.calls = collections.Counter()
        self.asked = []

    def get(self, service, path, microversion=None, params=None):
        """Nova's os-quota-sets/{project}/detail: 4 instances, 1 used."""
        self.asked.append((service, path, microversion))
        return {'quota_set': {
            'instances': {'limit': 4, 'in_use': 1, 'reserved': 0},
            'cores': {'limit': -1, 'in_use': 8, 'reserved': 0},
            'ram': {'limit': -1, 'in_use': 16384, 'reserved': 0}}}


class ReadsSlowly:
    """A stream that lets the test wait for the first redraw."""

    def __init__(self):
        self.text = io.StringIO()
        self.drawn = threading.Event()

    def write(self, text):
        self.text.write(text)
        if 'API calls' in text:
            self.drawn.set()

    def flush(self):
        pass


class TestProgress(base.TestCase):

    def test_counts_calls_and_clears_its_line(self):
        client = FakeClient()
        client.calls.update({'compute': 3, 'placement': 40})
        stream = ReadsSlowly()
        with report.Progress(client, stream):
            stream.drawn.wait(30)
        written = stream.text.getvalue()
        line = ('reading the cloud: 43 API calls (compute 3, '
                'placement 40)')
        self.assertTrue(written.startswith('\r' + line), written)
        # Cleared on exit: the report is not printed after a stale line.
        self.assertTrue(written.endswith('\r' + ' ' * len(line) + '\r'),
                        repr(written))

    def test_wanted(self):
        class Tty(io.StringIO):
            def isatty(self):
                return True
        conf = cfg.ConfigOpts()
        conf.register_cli_opts(report.CLI_OPTS)
        conf([])
        self.assertTrue(report.progress_wanted(conf, Tty()))
        self.assertFalse(report.progress_wanted(conf, io.StringIO()))
        conf(['--noprogress'])
        self.assertFalse(report.progress_wanted(conf, Tty()))
        conf(['--progress'])
        self.assertTrue(report.progress_wanted(conf, io.StringIO()))


class TestChosenCloud(test_start.StartTestCase):
    """--cloud picks the cloud read, and its connection group.

    The report runs whole, over the sample cloud's snapshot: only the
    connection (CloudClient.from_conf) and the collection are stand-ins.
    Unknown names: test_start.TestUnknownCloud.
    """

    def setUp(self):
        super().setUp()
        # The report quietens the project's loggers for its process; in
        # this one the tests after it need them as they were.
        logger = logging.getLogger('flavor_exporter')
        self.addCleanup(logger.setLevel, logger.level)
        self.stdout = self.useFixture(fixtures.StringStream('stdout')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', self.stdout))
        self.connect = self.useFixture(fixtures.MockPatch(
            'flavor_exporter.worker.openstack.CloudClient.from_conf',
            return_value=FakeClient())).mock
        self.source = sample.Source()
        self.useFixture(fixtures.MockPatch(
            'flavor_exporter.worker.refresh.make_source',
            return_value=self.source))

    def report(self, conf_text, *args, status=0):
        """(group connected through, stdout lines) of one run."""
        path = self.config_file(conf_text)
        self.assertEqual(status, report.main(['--config-file', path]
                                             + list(args)))
        self.stdout.seek(0)
        self.connect.assert_called_once()
        return self.connect.call_args[0][1], self.stdout.read().splitlines()

    def test_default_cloud_without_the_option(self):
        group, lines = self.report('[DEFAULT]\nclouds = east,west\n'
                                   'default_cloud = west\n')
        self.assertEqual('cloud:west', group)
        self.assertTrue(lines[-1].startswith('cloud west, source: '),
                        lines[-1])

    def test_first_cloud_without_default_cloud(self):
        group, _lines = self.report('[DEFAULT]\nclouds = east,west\n')
        self.assertEqual('cloud:east', group)

    def test_named_cloud(self):
        group, lines = self.report('[DEFAULT]\nclouds = east,west\n'
                                   'default_cloud = west\n',
                                   '--cloud', 'east')
        self.assertEqual('cloud:east', group)
        self.assertTrue(lines[-1].startswith('cloud east, source: '),
                        lines[-1])
        # The report itself: the sample cloud's flavors.
        self.assertTrue(lines[0].startswith('name '), lines[0])
        self.assertIn('gpu.a100', lines[2])

    def test_json_is_the_list_document_of_the_cloud(self):
        group, lines = self.report('[DEFAULT]\nclouds = east,west\n',
                                   '--cloud=west', '--format', 'json')
        self.assertEqual('cloud:west', group)
        document = json.loads('\n'.join(lines))
        self.assertEqual(sorted(f[pub.ID] for f in listed()),
                         sorted(f[pub.ID] for f in document[pub.FLAVORS]))

    def test_project_json(self):
        _group, lines = self.report('', '--project', 'p1', '--format',
                                    'json')
        document = json.loads('\n'.join(lines))
        self.assertEqual('p1', document[pub.PROJECT_ID])
        self.assertEqual([('compute', '/os-quota-sets/p1/detail', '2.57')],
                         self.connect.return_value.asked)
        flavors = {f[pub.NAME]: f for f in document[pub.FLAVORS]}
        large = flavors['m1.large']
        # 7 fit; the quota allows 3 more instances.
        self.assertEqual((7, 3, 3, 'quota'),
                         (large[pub.AVAILABLE], large[pub.QUOTA]['headroom'],
                          large[pub.STARTABLE],
                          large['startable_limited_by']))
        self.assertEqual('instances', large[pub.QUOTA]['limited_by'])
        self.assertEqual(2, flavors['gpu.a100'][pub.STARTABLE])

    def test_project_table(self):
        _group, lines = self.report('', '--project', 'p1')
        self.assertEqual(['name', 'gpu', 'startable', 'available', 'quota',
                          'az1', 'az2', 'limited_by'], lines[0].split())
        large = [line for line in lines if line.startswith('m1.large')]
        self.assertEqual(['m1.large', '-', '3', '7', '3', '(instances)',
                          '3/3', '3/4', 'quota'], large[0].split())

    def check_file(self, body):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'set.json')
        with open(path, 'w') as stream:
            stream.write(body if isinstance(body, str) else json.dumps(body))
        return path

    SET = {'servers': [{'flavor': 'gpu.a100', 'count': 3},
                       {'flavor': 'm1.large', 'count': 1}],
           'project_id': 'p1'}

    def test_check_json(self):
        # Exit status 1: the set does not start whole.
        _group, lines = self.report('', '--check', self.check_file(self.SET),
                                    '--format', 'json', status=1)
        check = json.loads('\n'.join(lines))['check']
        # The quota read now, as for --project.
        self.assertEqual([('compute', '/os-quota-sets/p1/detail', '2.57')],
                         self.connect.return_value.asked)
        self.assertEqual((False, 2, ['cmp000', 'cmp000']),
                         (check['fits'], check['started'],
                          [s['host'] for s in
                           check['requests'][0]['servers']]))

    def test_check_table(self):
        _group, lines = self.report('', '--check', self.check_file(self.SET),
                                    status=1)
        self.assertEqual(['#', 'flavor', 'request', 'count', 'started',
                          'stopped_by'], lines[0].split())
        self.assertEqual(['2', 'm1.large', 'successive', '1', 'not', 'tried',
                          '-'], lines[3].split())
        # The words of openstack capacity check (common/phrases.py).
        self.assertIn('1: hosts: cmp000, cmp000', lines)
        self.assertIn('the set does not start whole: 2 of 4 servers', lines)

    def test_check_that_fits(self):
        one = {'servers': [{'flavor': 'm1.large', 'count': 1}],
               'project_id': 'p1'}
        _group, lines = self.report('', '--check', self.check_file(one))
        self.assertIn('the set starts: 1 server', lines)

    def test_check_file_refused(self):
        stderr = self.useFixture(fixtures.StringStream('stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr))
        self.assertEqual(2, report.main([
            '--config-file', self.config_file(''), '--check',
            self.check_file({'servers': []})]))
        stderr.seek(0)
        self.assertIn('--check ', stderr.read())

    def test_whatif_table(self):
        body = {'drain': [{'hosts': ['cmp001']}],
                'add': [{'like': 'cmp000', 'names': ['cmp009']}]}
        _group, lines = self.report('', '--whatif', self.check_file(body))
        self.assertEqual(['flavor', 'gpu', 'available', 'after', 'change',
                          'total', 'total', 'after', 'limited', 'by', 'after'],
                         lines[0].split())
        # m1.large: 7 free, cmp001's 4 gone, an empty cmp000 brings 4.
        large = [line for line in lines if line.startswith('m1.large')]
        self.assertEqual(['m1.large', '-', '7', '7', '0', '8', '8'],
                         large[0].split()[:7])
        self.assertIn('hosts: drained 1, added 1', lines)

    def test_whatif_refused(self):
        stderr = self.useFixture(fixtures.StringStream('stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr))
        # A host the cloud lacks: the file is wrong (the API's 400).
        self.assertEqual(2, report.main([
            '--config-file', self.config_file(''), '--whatif',
            self.check_file({'drain': [{'hosts': ['nope']}]})]))
        stderr.seek(0)
        self.assertIn('no compute host nope', stderr.read())

    def test_project_and_gpus_refused(self):
        path = self.config_file('')
        self.assertEqual(2, report.main(['--config-file', path,
                                         '--project', 'p1', '--gpus']))

    def test_gpus_json_is_the_gpu_list_document(self):
        _group, lines = self.report('', '--gpus', '--format', 'json')
        document = json.loads('\n'.join(lines))
        self.assertEqual(['a100', 'v100'], [gpu[pub.TYPE] for gpu in
                                            document[pub.GPUS]])
        self.assertNotIn(pub.FLAVORS, document)

    def test_gpus_table(self):
        _group, lines = self.report('', '--gpus')
        self.assertTrue(lines[0].startswith('type  total  used  free'),
                        lines[0])
        self.assertTrue(lines[-1].startswith('source: placement, '),
                        lines[-1])

    def test_single_cloud_reads_openstack(self):
        for args in ((), ('--cloud', 'default')):
            self.connect.reset_mock()
            self.stdout.seek(0)
            self.stdout.truncate()
            group, lines = self.report('', *args)
            self.assertEqual('openstack', group)
            # One cloud: the line is as it always was.
            self.assertTrue(lines[-1].startswith('source: placement, '),
                            lines[-1])
            self._unregister_cli_opts()

    def test_failure_names_the_cloud(self):
        self.source.failing = True
        self.report('[DEFAULT]\nclouds = east,west\n', '--cloud', 'west',
                    status=1)
        self.stderr.seek(0)
        lines = self.stderr.read().splitlines()
        self.assertEqual(1, len(lines), lines)
        self.assertTrue(lines[0].startswith(
            'flavor-exporter-report: Cloud west: RuntimeError: the cloud '
            'did not answer'), lines[0])
