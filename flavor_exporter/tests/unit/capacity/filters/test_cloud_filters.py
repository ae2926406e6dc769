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
"""OWNER_NOVA as Nova 34's owner_nova_filter adds it, read from the roots.

The same on real Nova 29 and 34: functional/test_releases.py.
"""

import json

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.filters import cloud_filters
from flavor_exporter.capacity.fit import fit
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.tests import base

Inv = model.Inventory
OWNER = cloud_filters.OWNER_NOVA
RC = 'CUSTOM_PCI_10DE_20B0'
ALIASES = pci_alias.parse_aliases([json.dumps(
    {'name': 'A100', 'vendor_id': '10de', 'product_id': '20b0'})])


def gpu_host(name, root_traits=(OWNER,), device_traits=(OWNER,), devices=2):
    """A compute node with PCI devices as Nova's tracker reports them."""
    root = model.Provider('rp-' + name, name, traits=frozenset(root_traits),
                          inventories={'VCPU': Inv(32, max_unit=32),
                                       'MEMORY_MB': Inv(65536),
                                       'DISK_GB': Inv(1000)})
    children = [model.Provider(
        '%s-dev%d' % (name, i), '%s_0000:%02x:00.0' % (name, 0x81 + i),
        parent_uuid=root.uuid, inventories={RC: Inv(1)},
        traits=frozenset({fit.MANAGED_PCI_TRAIT, *device_traits}))
        for i in range(devices)]
    return model.Host(name, name, providers=[root] + children)


def unreadable(name):
    return model.Host(name, name, providers=[], unreadable='500')


GPU = model.Flavor('id-gpu', 'gpu', vcpus=4, ram=4096, disk=10,
                   extra_specs={'pci_passthrough:alias': 'A100:1'})


def counts(hosts):
    snapshot = model.Snapshot('placement', [GPU], hosts)
    result = engine.compute(snapshot, engine.Options(aliases=ALIASES))
    reference = engine.reference_compute(snapshot,
                                         engine.Options(aliases=ALIASES))
    [gpu] = result.flavors
    [same] = reference.flavors
    self_check = (gpu.total, gpu.available) == (same.total, same.available)
    return gpu, self_check


NO_OWNER = cloud_filters.CloudFilters(tpm_model=False,
                                      tpm_secret_security=False)


class ReadTest(base.BaseTestCase):

    def test_every_root_owned_by_nova_requires_it(self):
        filters = cloud_filters.read([gpu_host('a'), gpu_host('b')])
        self.assertEqual(frozenset({OWNER}), filters.root_required)
        self.assertEqual(frozenset({OWNER}), filters.pci_required)

    def test_one_compute_older_than_2026_2_requires_nothing(self):
        # While one compute has not reported OWNER_NOVA (older than
        # service version 73) Nova adds it to no request.
        hosts = [gpu_host('new'), gpu_host('old', root_traits=())]
        self.assertEqual(NO_OWNER, cloud_filters.read(hosts))

    def test_2024_1_requires_nothing(self):
        hosts = [gpu_host('a', root_traits=(), device_traits=())]
        self.assertEqual(NO_OWNER, cloud_filters.read(hosts))

    def test_unreadable_hosts_say_nothing(self):
        self.assertEqual(frozenset({OWNER}), cloud_filters.read(
            [gpu_host('a'), unreadable('b')]).root_required)
        self.assertEqual(NO_OWNER,
                         cloud_filters.read([unreadable('b')]))
        self.assertEqual(NO_OWNER, cloud_filters.read([]))


class EngineTest(base.BaseTestCase):

    def test_requests_carry_what_the_cloud_adds(self):
        gpu, same = counts([gpu_host('a')])
        self.assertTrue(same)
        self.assertIn(OWNER, gpu.request.root_required)
        [demand] = gpu.request.pci
        self.assertEqual(frozenset({OWNER}), demand.traits)

    def test_devices_without_the_trait_do_not_count_when_required(self):
        # A device provider Nova did not mark (made on another release's
        # compute, or by hand) cannot serve a PCI group asking OWNER_NOVA.
        gpu, same = counts([gpu_host('a'),
                            gpu_host('b', device_traits=())])
        self.assertTrue(same)
        self.assertEqual(2, gpu.total)

    def test_nothing_required_while_a_compute_is_old(self):
        old = gpu_host('old', root_traits=(), device_traits=())
        gpu, same = counts([gpu_host('new'), old])
        self.assertTrue(same)
        self.assertEqual(4, gpu.total)
        self.assertNotIn(OWNER, gpu.request.root_required)
        self.assertEqual(frozenset(), gpu.request.pci[0].traits)


def tpm_host(name, *release_traits):
    """A vTPM host: Nova 29 reports the version traits only."""
    root = model.Provider('rp-' + name, name, traits=frozenset(
        {'COMPUTE_SECURITY_TPM_2_0', 'COMPUTE_SECURITY_TPM_1_2',
         *release_traits}),
        inventories={'VCPU': Inv(32, max_unit=32), 'MEMORY_MB': Inv(65536),
                     'DISK_GB': Inv(1000)})
    return model.Host(name, name, providers=[root])


def vtpm(**specs):
    return model.Flavor('id-tpm', 'tpm', vcpus=16, ram=4096, disk=10,
                        extra_specs=dict({'hw:tpm_version': '2.0'}, **specs))


def tpm_totals(flavors, hosts):
    snapshot = model.Snapshot('placement', flavors, hosts)
    fast = engine.compute(snapshot, engine.Options())
    reference = engine.reference_compute(snapshot, engine.Options())
    return ([f.total for f in fast.flavors],
            [f.total for f in reference.flavors])


TIS = 'COMPUTE_SECURITY_TPM_TIS'
USER = 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER'


class VtpmTest(base.BaseTestCase):

    def test_2024_1_vtpm_hosts_count_by_their_version_trait(self):
        # Nova 29 asks for the version trait only, and reports no other.
        hosts = [tpm_host('a')]
        filters = cloud_filters.read(hosts)
        self.assertEqual((False, False), (filters.tpm_model,
                                          filters.tpm_secret_security))
        self.assertEqual(([2], [2]), tpm_totals(
            [vtpm(**{'hw:tpm_model': 'tpm-crb'})], hosts))

    def test_2024_2_to_2025_2_the_model_trait_is_required(self):
        hosts = [tpm_host('tis', TIS),
                 tpm_host('crb', 'COMPUTE_SECURITY_TPM_CRB')]
        self.assertEqual(([2], [2]), tpm_totals([vtpm()], hosts))

    def test_2026_x_the_default_user_policy_is_required(self):
        hosts = [tpm_host('a', TIS, USER), tpm_host('b', TIS)]
        filters = cloud_filters.read(hosts)
        self.assertEqual((True, True), (filters.tpm_model,
                                        filters.tpm_secret_security))
        self.assertEqual(([2], [2]), tpm_totals([vtpm()], hosts))

    def test_an_explicit_policy_is_required_on_any_cloud(self):
        # hw:tpm_secret_security exists only where the filter does.
        flavors = [vtpm(**{'hw:tpm_secret_security': 'host'})]
        self.assertEqual(([0], [0]), tpm_totals(flavors, [tpm_host('a')]))
        self.assertEqual(([2], [2]), tpm_totals(flavors, [tpm_host(
            'a', 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST')]))
