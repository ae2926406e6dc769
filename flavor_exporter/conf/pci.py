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
from oslo_config import cfg

pci_group = cfg.OptGroup(
    'pci', title='PCI passthrough options',
    help='The PCI aliases of the Nova deployment, so that flavors with '
         'pci_passthrough:alias are translated exactly as Nova does.')

opts = [
    cfg.MultiStrOpt('alias',
                    default=[],
                    help='''A PCI alias, in the JSON form of nova.conf's [pci]
alias; repeat the option for several aliases. Keys: name (required),
vendor_id, product_id, device_type, numa_policy, resource_class, traits.
Copy the values from nova.conf. Example::

    alias = {"name": "V100", "vendor_id": "10de", "product_id": "1db4"}

With PCI devices reported to Placement an alias maps to its resource_class,
or CUSTOM_PCI_<VENDOR_ID>_<PRODUCT_ID>. An alias name that is not listed
here is still matched against the gpu_type metadata of GPU host
aggregates.'''),
]


def register_opts(conf):
    conf.register_group(pci_group)
    conf.register_opts(opts, group=pci_group)


def list_opts():
    return {pci_group: opts}
