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

tpm_secret_security_filter (Nova 33, 2026.1) requires
COMPUTE_SECURITY_TPM_SECRET_SECURITY_<policy> (``user`` by default) on the
compute node of any vTPM guest. Nova 29 has neither the filter nor the
traits: requiring them there would count every vTPM flavor as 0. From
Nova 33 a compute that offers vTPM reports these traits (libvirt
[libvirt] supported_tpm_secret_security, all three by default); so the
filter is modelled when some compute node carries one of them. Where none
does, no host could take a vTPM guest on Nova 33 either, or the release
is older and vTPM hosts count by their TPM traits alone.
"""

import dataclasses

OWNER_NOVA = 'OWNER_NOVA'
_TPM_SECRET_PREFIX = 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_'


@dataclasses.dataclass(frozen=True)
class CloudFilters:
    """What the cloud's scheduler adds to requests besides the flavor's."""

    #: Traits every compute node (root) provider must have.
    root_required: frozenset = frozenset()
    #: Traits every PCI device group asks of its provider.
    pci_required: frozenset = frozenset()
    #: Whether a vTPM asks for a secret-security trait (Nova 33 and later).
    tpm_secret_security: bool = True


#: The rules of a snapshot made by hand, as before this module: no
#: OWNER_NOVA, the vTPM secret-security trait required.
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
    return CloudFilters(
        root_required=required, pci_required=required,
        tpm_secret_security=any(trait.startswith(_TPM_SECRET_PREFIX)
                                for root in roots for trait in root.traits))
