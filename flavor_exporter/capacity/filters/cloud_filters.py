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
"""What Nova's scheduler adds to every request of a cloud, by its release.

Most request filters (nova.scheduler.request_filter) turn a flavor's extra
specs into traits the same way on every release; request.py and
flavor_features.py model those. Two came later, and whether a cloud's
scheduler runs them is read from the traits its compute nodes report (no
API shows a service's version; computes are never newer than the
scheduler, as Nova's upgrade order requires):

owner_nova_filter (Nova 34, 2026.2) requires OWNER_NOVA on the compute
node (root) provider and on every PCI device group, but only once the
oldest nova-compute service not forced down reports service version 73
(_should_filter_by_owner), the version that puts OWNER_NOVA on every
compute node provider it reports (ResourceTracker._get_traits). Nova 29
(2024.1) to 33 neither set nor ask for it. So the trait is required
exactly when every compute node read carries it; during an upgrade to
2026.2, while one compute is older, no request asks for it and the older
computes' devices still count. (A compute whose trait was removed by hand
is refused by Nova until its next resource update puts it back; this
counts it meanwhile.) On roots it changes no number (every root has it
when it is required); on PCI groups it keeps devices to Nova's own
providers, which fit.py does on every release (PciPassthroughFilter).

The vTPM traits grew the same way. Nova 29 asks a vTPM guest's compute
node for the TPM version trait alone (ResourceRequest
._translate_vtpm_request) and its libvirt driver reports no other. Nova 30
(2024.2) also asks for the model's (COMPUTE_SECURITY_TPM_TIS, or _CRB),
which its computes report with [libvirt] swtpm_enabled; Nova 33 (2026.1)
adds tpm_secret_security_filter, which asks for
COMPUTE_SECURITY_TPM_SECRET_SECURITY_<policy> (``user`` by default),
reported from then on for the policies of [libvirt]
supported_tpm_secret_security (all three by default). Each is modelled
when some compute node reports a trait of its kind: where none does,
either the release is older, or no host could take a vTPM guest anyway.
Requiring them on 2024.1 would count every vTPM flavor as 0.
"""

import dataclasses

OWNER_NOVA = 'OWNER_NOVA'
_TPM_MODEL_TRAITS = frozenset(('COMPUTE_SECURITY_TPM_TIS',
                               'COMPUTE_SECURITY_TPM_CRB'))
_TPM_SECRET_PREFIX = 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_'


@dataclasses.dataclass(frozen=True)
class CloudFilters:
    """What the cloud's scheduler adds to requests besides the flavor's."""

    #: Traits every compute node (root) provider must have.
    root_required: frozenset = frozenset()
    #: Traits every PCI device group asks of its provider.
    pci_required: frozenset = frozenset()
    #: Whether a vTPM asks for its model's trait (Nova 30 and later).
    tpm_model: bool = True
    #: Whether a vTPM asks for a secret-security trait (Nova 33 and later).
    tpm_secret_security: bool = True


#: The rules of a snapshot made by hand, as before this module: no
#: OWNER_NOVA, every vTPM trait of the newest release required.
DEFAULT = CloudFilters()


def read(hosts):
    """The CloudFilters of a snapshot's hosts (model.Host).

    Hosts whose providers could not be read say nothing either way; with
    none read at all there is no compute to be new enough (Nova's minimum
    service version is then 0).
    """
    roots = [host.root for host in hosts if host.root is not None]
    owner = bool(roots) and all(OWNER_NOVA in root.traits for root in roots)
    required = frozenset((OWNER_NOVA,)) if owner else frozenset()
    traits = frozenset().union(*(root.traits for root in roots))
    return CloudFilters(
        root_required=required, pci_required=required,
        tpm_model=bool(traits & _TPM_MODEL_TRAITS),
        tpm_secret_security=any(trait.startswith(_TPM_SECRET_PREFIX)
                                for trait in traits))
