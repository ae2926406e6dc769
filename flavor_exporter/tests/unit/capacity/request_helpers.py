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
"""Flavors, aliases and short assertions shared by the flavor request tests.

Expected values in those tests come from nova.scheduler.utils
.ResourceRequest.from_request_spec, nova.virt.hardware.numa_get_constraints,
nova.pci.request and nova.objects.request_spec (Nova 34).
"""

import json

from flavor_exporter.capacity import model
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.capacity.request import request

A100 = json.dumps({'name': 'a100', 'vendor_id': '10de',
                   'product_id': '20b5'})
L4 = json.dumps({'name': 'l4', 'resource_class': 'nvidia-l4',
                 'traits': 'gpu-fast,HW_GPU_API_VULKAN'})


def make_flavor(extra_specs=None, vcpus=4, ram=8192, disk=20, ephemeral=0,
                swap=0, name='f1'):
    return model.Flavor(id='id-' + name, name=name, vcpus=vcpus, ram=ram,
                        disk=disk, ephemeral=ephemeral, swap=swap,
                        extra_specs=dict(extra_specs or {}))


def build(extra_specs=None, aliases=(), **kwargs):
    return request.build_request(make_flavor(extra_specs, **kwargs),
                                 pci_alias.parse_aliases(list(aliases)))


def groups_of(req):
    """{suffix: (resources, required, forbidden)} for short assertions."""
    return {g.suffix: (g.resources, set(g.required_traits),
                       set(g.forbidden_traits)) for g in req.groups}


def resources_of(req, suffix=''):
    return groups_of(req)[suffix][0]


class InvalidMixin:

    def assertInvalid(self, key, extra_specs, aliases=(), **kwargs):
        exc = self.assertRaises(request.InvalidExtraSpec, build, extra_specs,
                                aliases, **kwargs)
        self.assertEqual(key, exc.key)
        self.assertEqual(kwargs.get('name', 'f1'), exc.flavor_name)
        self.assertIn(key, str(exc))
        return exc
