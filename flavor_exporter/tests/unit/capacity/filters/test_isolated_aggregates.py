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

from flavor_exporter.capacity import engine
from flavor_exporter.capacity import model
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.tests import base
from flavor_exporter.tests.unit.capacity import test_engine

compute_host = test_engine.compute_host
flavor = test_engine.flavor


def compute(flavors, hosts, **options):
    options.setdefault('isolate_aggregates', True)
    return test_engine.compute(flavors, hosts, **options)


class TestIsolateAggregates(base.BaseTestCase):
    """nova.scheduler.request_filter.isolate_aggregates."""

    def hosts(self, metadata):
        return [compute_host('a', traits={'CUSTOM_T', 'CUSTOM_U'},
                             aggregates=[('gpu', metadata)]),
                compute_host('b', traits={'CUSTOM_T', 'CUSTOM_U'})]

    def test_kept_for_flavors_requiring_the_trait(self):
        hosts = self.hosts({'trait:CUSTOM_T': 'required'})
        found = compute([flavor('plain'),
                         flavor('t', trait__CUSTOM_T='required')], hosts)
        self.assertEqual(4, found['plain'].total)
        self.assertEqual({engine.ISOLATED: 1}, found['plain'].excluded)
        self.assertEqual(8, found['t'].total)

    def test_off_by_default_as_in_nova(self):
        hosts = self.hosts({'trait:CUSTOM_T': 'required'})
        self.assertFalse(engine.Options().isolate_aggregates)
        self.assertEqual(8, compute([flavor('plain')], hosts,
                                    isolate_aggregates=False)['plain'].total)

    def test_every_required_trait_of_the_aggregate(self):
        hosts = self.hosts({'trait:CUSTOM_T': 'required',
                            'trait:CUSTOM_U': 'required'})
        found = compute([flavor('t', trait__CUSTOM_T='required'),
                         flavor('tu', trait__CUSTOM_T='required',
                                trait__CUSTOM_U='required')], hosts)
        self.assertEqual(4, found['t'].total)
        self.assertEqual(8, found['tu'].total)

    def test_only_the_value_required(self):
        hosts = self.hosts({'trait:CUSTOM_T': 'preferred', 'T': 'required'})
        self.assertEqual(8, compute([flavor('plain')], hosts)['plain'].total)

    def test_traits_of_numbered_groups_count(self):
        hosts = self.hosts({'trait:CUSTOM_T': 'required'})
        flavors = [flavor('t', resources1__VCPU='1',
                          trait1__CUSTOM_T='required')]
        self.assertEqual({}, compute(flavors, hosts)['t'].excluded)
        self.assertEqual(
            compute(flavors, hosts, isolate_aggregates=False)['t'].total,
            compute(flavors, hosts)['t'].total)

    def test_forbidden_or_root_traits_do_not(self):
        # hw:virtio_packed_ring is a root_required trait of a request
        # filter: not in all_required_traits.
        hosts = self.hosts({'trait:COMPUTE_NET_VIRTIO_PACKED': 'required',
                            'trait:CUSTOM_U': 'required'})
        hosts[0].providers[0].traits |= {'COMPUTE_NET_VIRTIO_PACKED'}
        hosts[1].providers[0].traits |= {'COMPUTE_NET_VIRTIO_PACKED'}
        found = compute([flavor('packed', hw__virtio_packed_ring='true',
                                trait__CUSTOM_U='required')], hosts)
        self.assertEqual(4, found['packed'].total)

    def test_pci_alias_traits_count_not_owner_nova(self):
        aliases = pci_alias.parse_aliases([
            '{"name": "X", "resource_class": "CUSTOM_PCI_X", '
            '"traits": "CUSTOM_T"}'])
        hosts = self.hosts({'trait:CUSTOM_T': 'required'})
        for host in hosts:
            host.providers.append(model.Provider(
                'pf-' + host.name, 'pf', parent_uuid=host.root.uuid,
                inventories={'CUSTOM_PCI_X': model.Inventory(2)},
                traits=frozenset({'COMPUTE_MANAGED_PCI_DEVICE', 'CUSTOM_T'})))
        found = compute([flavor('x', pci_passthrough__alias='X:1')], hosts,
                        aliases=aliases)
        self.assertEqual(4, found['x'].total)
        request = found['x'].request
        self.assertEqual({'CUSTOM_T'}, request.all_required_traits)
        # owner_nova_filter runs after isolate_aggregates.
        for host in hosts:
            for provider in host.providers:
                provider.traits |= {'OWNER_NOVA'}
        hosts[0].aggregates.append(model.Aggregate(
            'owner', {'trait:OWNER_NOVA': 'required'}))
        found = compute([flavor('x', pci_passthrough__alias='X:1')], hosts,
                        aliases=aliases)
        self.assertEqual(2, found['x'].total)
        self.assertEqual({engine.ISOLATED: 1}, found['x'].excluded)
