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
"""What Nova's scheduler adds to every request of a cloud, whatever flavor.

Most request filters (nova.scheduler.request_filter) turn a flavor's extra
specs into traits; request.py and flavor_features.py model those. One adds
traits because of the cloud alone, and only on some releases:

owner_nova_filter (Nova 34, 2026.2) requires OWNER_NOVA on the compute
node (root) provider and on every PCI device group, but only once the
oldest nova-compute service (not forced down) reports service version 73,
the version that puts OWNER_NOVA on its providers
(_should_filter_by_owner). Nova 29 (2024.1) to 33 neither set nor ask for
the trait. No API shows service versions; the traits show them: a compute
at version 73 or later always puts OWNER_NOVA on its compute node provider
(ResourceTracker._get_traits), an older one never does, and computes are
never newer than the scheduler that would add the filter. So the
requirement is modelled exactly when every compute node read carries
OWNER_NOVA. During an upgrade to 2026.2, while one compute is older, no
request asks for it and the older computes' devices still count.

The trait on roots changes no number by itself (every root has it when it
is required); on PCI groups it keeps devices to Nova's own providers,
which fit.py also does on every release (PciPassthroughFilter's pools).
"""

import dataclasses

OWNER_NOVA = 'OWNER_NOVA'


@dataclasses.dataclass(frozen=True)
class CloudFilters:
    """Traits every request of the cloud carries besides the flavor's."""

    root_required: frozenset = frozenset()
    pci_required: frozenset = frozenset()


NONE = CloudFilters()


def read(hosts):
    """The CloudFilters of a snapshot's hosts (model.Host).

    Hosts whose providers could not be read say nothing either way; with
    none read at all there is no compute to be new enough (Nova's minimum
    service version is then 0).
    """
    roots = [host.root for host in hosts if host.root is not None]
    if roots and all(OWNER_NOVA in root.traits for root in roots):
        return CloudFilters(root_required=frozenset((OWNER_NOVA,)),
                            pci_required=frozenset((OWNER_NOVA,)))
    return NONE
