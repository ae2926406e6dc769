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
"""The documentation's API examples are what the demo's cloud answers.

doc/source/api-ref/samples/ (included by the API reference and the user
guide) was written by tools/doc_examples.py; the same requests are asked
again here, of flavor-exporter-all serving the demo's scenario with the
demo's configuration, and every answer must equal its committed file
once times, ages and Nova's UUIDs are made stable. A change of an answer
fails this test until the samples are written again
(``.tox/functional/bin/python -m tools.doc_examples``) and read.
"""

import json
import os

import fixtures

from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from tools import api_ref
from tools import doc_examples


class TestDocExamples(base.BaseTestCase):

    def test_samples_are_the_demo_clouds_answers(self):
        # Read-only: the examples only ask (the set check computes).
        cloud = self.useFixture(fe_fixtures.Cloud(
            doc_examples.SCENARIO, shared=True)).cloud
        workdir = self.useFixture(fixtures.TempDir()).path
        samples = doc_examples.samples_of(cloud, workdir)
        committed = doc_examples.committed()
        self.assertEqual('', doc_examples.differences(samples, committed))
        # Every request of the tool has its file, and what the docs show
        # is the answer, not an error (but for the error examples).
        self.assertEqual(len(doc_examples.EXAMPLES), len(committed))
        flavors = json.loads(committed['flavors-list.json'])['flavors']
        self.assertIn(doc_examples.FLAVOR, [f['name'] for f in flavors])

    def test_every_sample_is_shown(self):
        # A sample no page shows is an example nobody reads: a page
        # includes it, or the API reference (generated at each build by
        # tools/api_ref.py) shows it for its route.
        docs = os.path.join(doc_examples.ROOT, 'doc', 'source')
        text = ''
        for folder, _dirs, files in os.walk(docs):
            for name in files:
                if name.endswith('.rst'):
                    with open(os.path.join(folder, name)) as page:
                        text += page.read()
        shown = set(api_ref.SAMPLES.values()) | set(
            api_ref.REQUEST_SAMPLES.values()) | {
            sample for samples in api_ref.ERROR_SAMPLES.values()
            for _title, sample in samples}
        for name in doc_examples.committed():
            if name not in shown:
                self.assertIn('samples/' + name, text)
        # And the API reference shows only samples that exist.
        self.assertLessEqual(shown, set(doc_examples.committed()))
