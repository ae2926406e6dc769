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
"""Nova's own answer: how many servers of a flavor fit a host's NUMA cells.

Run with a test cloud's interpreter (cloud_venv), which has that
release's Nova; reads JSON cases on stdin, writes one answer per case::

    {"topology": <compute_nodes.numa_topology>, "cpu_ratio": 4.0,
     "ram_ratio": 1.0, "pack": false, "bound": 50,
     "flavor": {"vcpus": 2, "ram": 1024, "extra_specs": {...}}}
    -> {"count": 3} or {"invalid": "<exception class>"}

Each server is fitted as NUMATopologyFilter fits it (fresh request,
nova.virt.hardware.numa_fit_instance_to_host with the host's ratios as
limits) and then added to the host as the resource tracker adds it
(numa_usage_from_instance_numa), one after the other up to bound. It is
the reference the project's own numa_fit is compared with
(tests/functional/test_numa_fit.py); nothing else runs it.
"""

import json
import sys


def count(case, CONF, objects, hardware, exception):
    CONF.set_override('packing_host_numa_cells_allocation_strategy',
                      case['pack'], group='compute')
    spec = case['flavor']
    flavor = objects.Flavor(vcpus=spec['vcpus'], memory_mb=spec['ram'],
                            extra_specs=spec['extra_specs'], name='f',
                            root_gb=1, ephemeral_gb=0, swap=0)
    image = objects.ImageMeta.from_dict({'properties': {}})
    try:
        wanted = hardware.numa_get_constraints(flavor, image)
    except (exception.Invalid, ValueError) as exc:
        return {'invalid': type(exc).__name__}
    if wanted is None:
        return {'count': None}
    host = objects.NUMATopology.obj_from_db_obj(case['topology'])
    limits = objects.NUMATopologyLimits(
        cpu_allocation_ratio=case['cpu_ratio'],
        ram_allocation_ratio=case['ram_ratio'])
    placed = 0
    while placed < case['bound']:
        fitted = hardware.numa_fit_instance_to_host(
            host, wanted.obj_clone(), provider_mapping=None, limits=limits)
        if fitted is None:
            break
        host = hardware.numa_usage_from_instance_numa(host, fitted)
        placed += 1
    return {'count': placed}


def main():
    import nova.conf
    from nova import exception
    from nova import objects
    from nova.virt import hardware

    objects.register_all()
    for line in sys.stdin:
        answer = count(json.loads(line), nova.conf.CONF, objects, hardware,
                       exception)
        sys.stdout.write(json.dumps(answer) + '\n')


if __name__ == '__main__':
    main()
