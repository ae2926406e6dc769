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
"""Sample clouds, computed by the real engine and rendered by the real
renderer, for the API's tests.

The API tests serve what the worker would publish for these snapshots, so
a change to what is rendered shows in them. The small cloud's numbers,
worked out by hand (no allocation ratios, no reserved amounts):

- cmp000 (az1): 32 VCPU (8 used), 64 GiB, 1000 GB, 4 a100 GPUs (2 used);
- cmp001 (az2): 32 VCPU, 64 GiB, 1000 GB, 2 v100 GPUs;
- cmp002 (az2): disabled, 2 v100 GPUs (stranded: free on a host no
  flavor can start on).

| id    | name           | needs                  | az1 t/a | az2 t/a |
|-------|----------------|------------------------|---------|---------|
| 1     | m1.large       | 8 VCPU 16 GiB 40 GB    | 4/3     | 4/4     |
| g1    | gpu.a100       | m1.large + 1 a100      | 4/2     | 0/0     |
| g2    | GPU.V100-small | 4 VCPU 8 GiB 20 GB + 1 v100 | 0/0 | 2/2     |
| index | collection     | 2 VCPU 4 GiB 10 GB     | 16/12   | 16/16   |
| bad   | broken         | hw:cpu_policy=bogus    | error   | error   |

"index" and "collection" are names a framework might route to methods.
many_flavors() and many_hosts() make a larger cloud of the same kind.
"""

import datetime
import time

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.filters import tenancy
from flavor_exporter.capacity import model
from flavor_exporter.capacity.quota import projects
from flavor_exporter.capacity.quota import quota
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import projects as project_docs
from flavor_exporter.publication import render
from flavor_exporter.worker import projects as worker_projects
from flavor_exporter.worker import source

ZONES = ('az1', 'az2')


def _host(index, zone, gpus=None, used_vcpus=0, enabled=True):
    name = 'cmp%03d' % index
    root = model.Provider(
        'rp-' + name, name + '.example.org',
        inventories={'VCPU': model.Inventory(32, max_unit=32),
                     'MEMORY_MB': model.Inventory(65536),
                     'DISK_GB': model.Inventory(1000)},
        usages={'VCPU': used_vcpus})
    pools = [model.GpuPool(*gpus)] if gpus else []
    return model.Host(name, root.name, enabled=enabled,
                      availability_zone=zone, providers=[root],
                      gpu_pools=pools)


def hosts():
    return [_host(0, 'az1', gpus=('a100', 4, 2), used_vcpus=8),
            _host(1, 'az2', gpus=('v100', 2, 0)),
            _host(2, 'az2', gpus=('v100', 2, 0), enabled=False)]


def flavors():
    large = dict(vcpus=8, ram=16384, disk=40)
    return [
        model.Flavor('1', 'm1.large', **large),
        model.Flavor('g1', 'gpu.a100', **large, extra_specs={
            'pci_passthrough:alias': 'a100:1'}),
        model.Flavor('g2', 'GPU.V100-small', vcpus=4, ram=8192, disk=20,
                     extra_specs={'pci_passthrough:alias': 'v100:1'}),
        model.Flavor('index', 'collection', vcpus=2, ram=4096, disk=10),
        model.Flavor('bad', 'broken', **large, extra_specs={
            'hw:cpu_policy': 'bogus'}),
    ]


def many_hosts(count):
    """count hosts over az1 and az2, each with 4 a100 GPUs."""
    return [_host(i, ZONES[i % 2], gpus=('a100', 4, i % 5),
                  used_vcpus=i % 32) for i in range(count)]


def many_flavors(count):
    """count flavors named flavor-NNNN; the even ones take an a100."""
    return [model.Flavor(
        '%08d-0000-4000-8000-%012d' % (i, i), 'flavor-%04d' % i,
        vcpus=1 + i % 8, ram=1024 * (1 + i % 16), disk=10 + i % 50,
        extra_specs={'pci_passthrough:alias': 'a100:1'} if i % 2 == 0
        else {}) for i in range(count)]


def snapshot(flavor_list=None, collected_at=None, source='placement',
             host_list=None):
    return model.Snapshot(
        source, flavors() if flavor_list is None else flavor_list,
        hosts() if host_list is None else host_list,
        collected_at=collected_at or datetime.datetime.now(
            datetime.timezone.utc),
        api_calls=12)


def report(flavor_list=None, collected_at=None, source='placement',
           host_list=None):
    """What the engine makes of the snapshot."""
    return engine.compute(
        snapshot(flavor_list, collected_at, source, host_list),
        engine.Options())


def documents(flavor_list=None, collected_at=None, source='placement',
              host_list=None):
    """({name: bytes}, pointer) the worker publishes for the snapshot."""
    computed = report(flavor_list, collected_at, source, host_list)
    docs, pointer = render.documents(computed)
    docs.update(worker_projects.generation_documents(
        quota.Counting(), computed, tenancy.OFF))
    pointer[pub.DURATION] = 1.5
    return docs, pointer


def publish(publisher, flavor_list=None, collected_at=None,
            host_list=None):
    """Publish the documents of a sample cloud as the worker does.

    Returns {document name: bytes the API serves}, read back as the API
    reads them.
    """
    collected_at = collected_at or datetime.datetime.now(
        datetime.timezone.utc)
    docs, pointer = documents(flavor_list, collected_at,
                              host_list=host_list)
    pointer = publisher.publish(docs, pointer, collected_at)
    publisher.write_status(status())
    reader = publisher.reader
    return {name: reader.read(entry)
            for name, entry in reader.manifest(pointer).items()}


#: The project publish_project() publishes, and its quota.
PROJECT = 'p1'


def project_quota(read_at=None):
    """A legacy Nova quota: 10 instances, 20 cores, 50 GiB, 2 cores used."""
    return quota.ProjectQuota(
        quota.DB, limits={'instances': 10, 'cores': 20, 'ram': 51200},
        in_use={'instances': 1, 'cores': 2, 'ram': 2048},
        read_at=time.time() if read_at is None else read_at)


def publish_project(publisher, project_id=PROJECT, read_at=None,
                    ttl=900, flavor_list=None):
    """Publish project_id's quota part as the worker answers it.

    flavor_list: the flavors of the published cloud, if not the sample's.
    """
    quota_reading = project_quota(read_at)
    body, prints, identity = worker_projects.footprints(
        quota.Counting(), report(flavor_list))
    part = project_docs.quota_document(
        project_id, quota_reading, projects.headrooms(quota_reading, prints),
        identity)
    publisher.publish_project(
        project_id, {pub.COMPUTED_AT: time.time(),
                     pub.QUOTA_READ_AT: quota_reading.read_at,
                     project_docs.FOOTPRINTS_IDENTITY: identity}, ttl, part)
    return part


class Source(source.Source):
    """Collects the sample snapshot: the worker's Refresher, no cloud."""

    def __init__(self):
        super().__init__(conf=None)
        self.collections = 0
        self.failing = False

    def collect(self, client, scope=None, hosts=None):
        self.collections += 1
        if self.failing:
            raise RuntimeError('the cloud did not answer')
        return snapshot()


def status(failures=0, error=None):
    """A status entry as the worker writes it."""
    return dict(pub.initial_status(), **{
        pub.LAST_ATTEMPT_AT: '2026-11-29T17:00:00Z',
        pub.LAST_SUCCESS_AT: '2026-11-29T17:00:00Z',
        pub.LAST_ERROR: error, pub.DURATION: 1.5, pub.API_CALLS: 12,
        pub.CONSECUTIVE_FAILURES: failures})
