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

"""What differs between the supported releases, on each real release.

tox -e functional runs these on the newest release, tox -e
functional-2024.1 on Caracal. The oracle tests (test_oracle) prove the
numbers there; these prove the facts the README states per release.
"""

import requests

from flavor_exporter.capacity.filters import cloud_filters
from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests import releases
from flavor_exporter.worker import openstack
from flavor_exporter.worker import placement_source
from testcloud import cloud_venv
from testcloud import oracle
from testcloud import placement_view

OWNER_NOVA = cloud_filters.OWNER_NOVA


def _release():
    return releases.by_name(cloud_venv.selected())


class ReleaseFactsTest(base.BaseTestCase):
    """The recorded versions are those of the running cloud."""

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(fe_fixtures.Cloud(
            'predecessor', shared=True)).cloud

    def _version_document(self, url):
        resp = requests.get(url, headers={'X-Auth-Token': self.cloud.token},
                            timeout=30)
        resp.raise_for_status()
        return resp.json()

    def test_the_cloud_runs_the_release_asked_for(self):
        release = _release()
        self.assertEqual({'nova': release.nova,
                          'placement': release.placement},
                         self.cloud.versions)

    def test_maximum_microversions_are_as_recorded(self):
        # unit/test_microversions.py keeps the service's calls within
        # the oldest release's figures: they must be the real ones.
        release = _release()
        compute = self._version_document(self.cloud.compute_url)['version']
        placement = self._version_document(
            self.cloud.placement_url + '/')['versions'][0]
        self.assertEqual((release.compute_max, release.placement_max),
                         (compute['version'], placement['max_version']))


class OwnerNovaTest(base.TestCase):
    """OWNER_NOVA on roots: required on 2026.2, unknown to 2024.1.

    The engine reads it from the cloud (cloud_filters); Nova's scheduler
    decides: a host whose compute node lacks the trait gets a server
    exactly when the engine says the cloud does not require it.
    """

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(fe_fixtures.Cloud('pci_placement')).cloud
        self.conn = self.cloud.connection()

    def _cloud_filters(self):
        client = openstack.CloudClient(self.conn)
        source = placement_source.PlacementSource(self.conf)
        return cloud_filters.read(source.collect(client).hosts)

    def _drop_root_trait(self, name, trait):
        rp = placement_view.providers(self.conn)[name]
        path = '/resource_providers/%s' % rp['uuid']
        generation = self.conn.placement.get(
            path, microversion='1.6').json()['generation']
        resp = self.conn.placement.put(path + '/traits', json={
            'resource_provider_generation': generation,
            'traits': sorted(rp['traits'] - {trait})}, microversion='1.6')
        self.assertEqual(200, resp.status_code, resp.text)

    def test_as_nova_schedules_on_each_release(self):
        filters = self._cloud_filters()
        required = OWNER_NOVA in filters.root_required
        # Nova 34 added owner_nova_filter and the trait; Nova 29 has
        # neither. The engine saw it in what the computes report.
        nova_major = int(self.cloud.versions['nova'].split('.')[0])
        self.assertEqual(nova_major >= 34, required)
        self.assertEqual(filters.root_required, filters.pci_required)

        self._drop_root_trait('cpu-1', OWNER_NOVA)
        server = oracle.boot(self.conn, 'cpu.large', host='cpu-1')
        self.addCleanup(oracle.delete_servers, self.conn, [server])
        refused = (server['status'] == 'ERROR'
                   and oracle.NO_VALID_HOST in server['fault']['message'])
        self.assertEqual(required, refused, server.get('fault'))
