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
"""The other hw:*/os:* features, through build_request (flavor_features)."""


from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity import request_helpers as helpers

build = helpers.build
groups_of = helpers.groups_of
resources_of = helpers.resources_of


class TestHardwareFeatures(base.BaseTestCase, helpers.InvalidMixin):

    def test_memory_encryption(self):
        req = build({'hw:mem_encryption': 'true'})
        base, required, _ = groups_of(req)['']
        self.assertEqual(1, base['MEM_ENCRYPTION_CONTEXT'])
        self.assertEqual({'HW_CPU_X86_AMD_SEV'}, required)
        self.assertTrue(any('uefi' in note for note in req.unsupported))

    def test_memory_encryption_model(self):
        req = build({'hw:mem_encryption': 'yes',
                     'hw:mem_encryption_model': 'amd-sev-snp'})
        self.assertEqual({'HW_CPU_X86_AMD_SEV_SNP'}, groups_of(req)[''][1])
        self.assertInvalid('hw:mem_encryption_model', {
            'hw:mem_encryption': 'yes', 'hw:mem_encryption_model': 'x'})

    def test_memory_encryption_off(self):
        req = build({'hw:mem_encryption': 'false',
                     'hw:mem_encryption_model': 'bogus'})
        self.assertNotIn('MEM_ENCRYPTION_CONTEXT', resources_of(req))

    def test_pmem(self):
        req = build({'hw:pmem': 'SMALL, SMALL,big-1,'})
        base = resources_of(req)
        self.assertEqual(2, base['CUSTOM_PMEM_NAMESPACE_SMALL'])
        self.assertEqual(1, base['CUSTOM_PMEM_NAMESPACE_BIG_1'])

    def test_vtpm(self):
        req = build({'hw:tpm_version': '2.0', 'hw:tpm_model': 'tpm-crb'})
        self.assertEqual({'COMPUTE_SECURITY_TPM_2_0',
                          'COMPUTE_SECURITY_TPM_CRB'}, groups_of(req)[''][1])
        self.assertEqual({'COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER'},
                         req.root_required)
        req = build({'hw:tpm_version': '1.2',
                     'hw:tpm_secret_security': 'host'})
        self.assertEqual({'COMPUTE_SECURITY_TPM_1_2',
                          'COMPUTE_SECURITY_TPM_TIS'}, groups_of(req)[''][1])
        self.assertEqual({'COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST'},
                         req.root_required)

    def test_vtpm_invalid(self):
        self.assertInvalid('hw:tpm_version', {'hw:tpm_version': '3.0'})
        self.assertInvalid('hw:tpm_model', {'hw:tpm_version': '1.2',
                                            'hw:tpm_model': 'tpm-crb'})
        self.assertInvalid('hw:tpm_model', {'hw:tpm_version': '2.0',
                                            'hw:tpm_model': 'x'})
        self.assertInvalid('hw:tpm_secret_security', {
            'hw:tpm_version': '2.0', 'hw:tpm_secret_security': 'x'})

    def test_tpm_model_alone_does_nothing(self):
        req = build({'hw:tpm_model': 'tpm-crb'})
        self.assertEqual(set(), groups_of(req)[''][1])

    def test_traits_from_other_specs(self):
        req = build({'os:secure_boot': 'required',
                     'hw:maxphysaddr_mode': 'emulate',
                     'hw:pci_numa_affinity_policy': 'socket'})
        self.assertEqual({'COMPUTE_SECURITY_UEFI_SECURE_BOOT',
                          'COMPUTE_ADDRESS_SPACE_EMULATED',
                          'COMPUTE_SOCKET_PCI_NUMA_AFFINITY'},
                         groups_of(req)[''][1])

    def test_optional_secure_boot_adds_nothing(self):
        self.assertEqual(set(), groups_of(build(
            {'os:secure_boot': 'optional'}))[''][1])

    def test_invalid_feature_values(self):
        self.assertInvalid('os:secure_boot', {'os:secure_boot': 'always'})
        self.assertInvalid('hw:maxphysaddr_mode', {
            'hw:maxphysaddr_mode': 'host'})
        self.assertInvalid('hw:pci_numa_affinity_policy', {
            'hw:pci_numa_affinity_policy': 'strict'})
        self.assertInvalid('hw:sound_model', {'hw:sound_model': 'hda'})
        self.assertInvalid('hw:ephemeral_encryption_format', {
            'hw:ephemeral_encryption': 'true',
            'hw:ephemeral_encryption_format': 'zip'})

    def test_root_required_from_request_filters(self):
        req = build({'hw:virtio_packed_ring': 'true',
                     'hw:ephemeral_encryption': 'true',
                     'hw:ephemeral_encryption_format': 'luks',
                     'hw:sound_model': 'virtio',
                     'accel:device_profile': 'fpga'})
        self.assertEqual({'COMPUTE_NET_VIRTIO_PACKED',
                          'COMPUTE_EPHEMERAL_ENCRYPTION',
                          'COMPUTE_EPHEMERAL_ENCRYPTION_LUKS',
                          'COMPUTE_SOUND_MODEL_VIRTIO',
                          'COMPUTE_ACCELERATORS'}, req.root_required)
        self.assertTrue(any('Cyborg' in note for note in req.unsupported))

    def test_numa_and_memory_checks(self):
        self.assertInvalid('hw:numa_nodes', {'hw:numa_nodes': '0'})
        self.assertInvalid('hw:numa_nodes', {'hw:numa_nodes': 'two'})
        self.assertInvalid('hw:mem_page_size', {'hw:mem_page_size': 'huge'})
        self.assertInvalid('hw:locked_memory', {'hw:locked_memory': 'true'})
        req = build({'hw:numa_nodes': '2', 'hw:mem_page_size': '2MB',
                     'hw:locked_memory': 'true'})
        self.assertEqual(8192, resources_of(req)['MEMORY_MB'])
        for size in ('any', 'large', 'small', '2048', '1GB'):
            build({'hw:mem_page_size': size})
