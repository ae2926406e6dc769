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
"""The hw:* and os:* features of a flavor that add resources or traits.

Mirrors what nova.scheduler.utils.ResourceRequest.from_request_spec adds
for memory encryption, vPMEM, vTPM, PCI NUMA affinity, secure boot and
maxphysaddr, the traits the request filters of nova.scheduler
.request_filter require on the compute node, and the memory half of
nova.virt.hardware.numa_get_constraints (hw:numa_nodes, hw:mem_page_size,
hw:locked_memory), which adds nothing but can fail a flavor. CPU policies
are in cpu_policy, PCI devices in pci_alias.
"""

import dataclasses

from oslo_utils import strutils

from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.capacity.request import vocabulary

# hw:mem_encryption_model -> trait; amd-sev is the model when unset.
MEM_ENCRYPTION_TRAITS = {
    'amd-sev': 'HW_CPU_X86_AMD_SEV',
    'amd-sev-es': 'HW_CPU_X86_AMD_SEV_ES',
    'amd-sev-snp': 'HW_CPU_X86_AMD_SEV_SNP',
    'intel-tdx': 'HW_CPU_X86_INTEL_TDX',
}
DEFAULT_MEM_ENCRYPTION_MODEL = 'amd-sev'
_TPM_VERSION_TRAITS = {'1.2': 'COMPUTE_SECURITY_TPM_1_2',
                       '2.0': 'COMPUTE_SECURITY_TPM_2_0'}
_TPM_MODEL_TRAITS = {'tpm-tis': 'COMPUTE_SECURITY_TPM_TIS',
                     'tpm-crb': 'COMPUTE_SECURITY_TPM_CRB'}
_TPM_SECRET_TRAITS = {
    'user': 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER',
    'host': 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST',
    'deployment': 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT',
}
_MAXPHYSADDR_TRAITS = {'passthrough': 'COMPUTE_ADDRESS_SPACE_PASSTHROUGH',
                       'emulate': 'COMPUTE_ADDRESS_SPACE_EMULATED'}
_SECURE_BOOT_POLICIES = ('required', 'disabled', 'optional')
_EPHEMERAL_FORMATS = ('plain', 'luks', 'luksv2')
_SOUND_MODELS = ('sb16', 'es1370', 'pcspk', 'ac97', 'ich6', 'ich9', 'usb',
                 'virtio')


@dataclasses.dataclass(frozen=True)
class Features:
    """What a flavor's features add to the query."""

    resources: dict  # unnumbered group: resource class -> amount
    traits: dict  # unnumbered group: trait -> 'required' or 'forbidden'
    root_required: frozenset  # traits the compute node provider must have


def mem_encryption_model(specs):
    """The hw:mem_encryption_model in force, None without encryption."""
    if not strutils.bool_from_string(specs.get('hw:mem_encryption')):
        return None
    return specs.get('hw:mem_encryption_model') or (
        DEFAULT_MEM_ENCRYPTION_MODEL)


def check_memory_specs(specs, fail):
    """The rest of numa_get_constraints that a flavor alone can fail."""
    nodes = specs.get('hw:numa_nodes')
    if nodes is not None and (not strutils.is_int_like(nodes)
                              or int(nodes) < 1):
        fail('hw:numa_nodes', '%r is not a positive integer' % (nodes,))
    page_size = specs.get('hw:mem_page_size')
    if page_size and page_size not in ('any', 'large', 'small') and (
            not page_size.isdigit()):
        try:
            strutils.string_to_bytes(page_size, return_int=True)
        except ValueError:
            fail('hw:mem_page_size', 'invalid page size %r' % page_size)
    if (strutils.bool_from_string(specs.get('hw:locked_memory'))
            and not page_size):
        fail('hw:locked_memory', 'needs hw:mem_page_size')


def features(specs, fail, tpm_model=True, tpm_secret_security=True):
    """Other flavor-only translations of from_request_spec and the filters.

    :param specs: a flavor's extra specs.
    :param fail: fail(key, reason), called on what Nova would refuse.
    :param tpm_model: whether the cloud's Nova asks a vTPM's host for its
        model's trait (Nova 30 and later; see cloud_filters).
    :param tpm_secret_security: whether the cloud's scheduler has
        tpm_secret_security_filter (Nova 33, 2026.1, and later). Without it
        a vTPM asks no secret-security trait; hw:tpm_secret_security
        itself only exists where it has.
    :returns: Features.
    """
    resources, traits, root = {}, {}, set()

    model = mem_encryption_model(specs)
    if model:
        if model not in MEM_ENCRYPTION_TRAITS:
            fail('hw:mem_encryption_model', 'unknown model %r' % model)
        resources['MEM_ENCRYPTION_CONTEXT'] = 1
        traits[MEM_ENCRYPTION_TRAITS[model]] = 'required'

    labels = [label.strip() for label in
              (specs.get('hw:pmem') or '').split(',') if label.strip()]
    for label in labels:
        rc = vocabulary.custom_resource_class('PMEM_NAMESPACE_' + label)
        resources[rc] = resources.get(rc, 0) + 1

    # Nova reads these with "flavor value or image value": '' is unset.
    version = specs.get('hw:tpm_version')
    if version:
        if version not in _TPM_VERSION_TRAITS:
            fail('hw:tpm_version', 'unknown TPM version %r' % version)
        model = specs.get('hw:tpm_model') or 'tpm-tis'
        if model not in _TPM_MODEL_TRAITS:
            fail('hw:tpm_model', 'unknown TPM model %r' % model)
        if model == 'tpm-crb' and version != '2.0':
            fail('hw:tpm_model', 'tpm-crb needs hw:tpm_version=2.0')
        if tpm_model:
            traits[_TPM_MODEL_TRAITS[model]] = 'required'
        traits[_TPM_VERSION_TRAITS[version]] = 'required'
        secret = specs.get('hw:tpm_secret_security')
        if secret and secret not in _TPM_SECRET_TRAITS:
            fail('hw:tpm_secret_security', 'unknown policy %r' % secret)
        if secret or tpm_secret_security:
            root.add(_TPM_SECRET_TRAITS[secret or 'user'])

    policy = vocabulary.choice(specs, 'hw:pci_numa_affinity_policy',
                               pci_alias.NUMA_POLICIES, fail)
    if policy == 'socket':
        traits['COMPUTE_SOCKET_PCI_NUMA_AFFINITY'] = 'required'

    if vocabulary.choice(specs, 'os:secure_boot', _SECURE_BOOT_POLICIES,
                         fail) == 'required':
        traits['COMPUTE_SECURITY_UEFI_SECURE_BOOT'] = 'required'

    mode = specs.get('hw:maxphysaddr_mode')
    if mode:
        if mode not in _MAXPHYSADDR_TRAITS:
            fail('hw:maxphysaddr_mode', 'unknown mode %r' % mode)
        traits[_MAXPHYSADDR_TRAITS[mode]] = 'required'

    # nova.scheduler.request_filter: traits on the root provider.
    if specs.get('accel:device_profile'):
        root.add('COMPUTE_ACCELERATORS')
    if strutils.bool_from_string(specs.get('hw:virtio_packed_ring')):
        root.add('COMPUTE_NET_VIRTIO_PACKED')
    if strutils.bool_from_string(specs.get('hw:ephemeral_encryption')):
        root.add('COMPUTE_EPHEMERAL_ENCRYPTION')
        fmt = vocabulary.choice(specs, 'hw:ephemeral_encryption_format',
                                _EPHEMERAL_FORMATS, fail)
        if fmt:
            root.add('COMPUTE_EPHEMERAL_ENCRYPTION_' + fmt.upper())
    if vocabulary.choice(specs, 'hw:sound_model', _SOUND_MODELS,
                         fail) == 'virtio':
        root.add('COMPUTE_SOUND_MODEL_VIRTIO')
    return Features(resources, traits, frozenset(root))
