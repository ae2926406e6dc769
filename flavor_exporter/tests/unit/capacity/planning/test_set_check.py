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

"""The set check's scheduler, on snapshots made by hand.

Nova itself is the reference in tests/functional/test_set_checks.py;
these pin the rules one by one.
"""

import dataclasses

import numpy

from flavor_exporter.capacity import engine
from flavor_exporter.capacity import model
from flavor_exporter.capacity.planning.set_check import answer as set_answer
from flavor_exporter.capacity.planning.set_check import check as set_check
from flavor_exporter.capacity.planning.set_check import columns as set_columns
from flavor_exporter.capacity.quota import quota
from flavor_exporter.capacity.weights import weighers
from flavor_exporter.common import set_request
from flavor_exporter.tests import base

Inv = model.Inventory
Wanted = set_request.Wanted


def host(name, vcpus=16, ram=32768, zone='nova', used=None, gpus=0,
         aggregates=(), io_ops=0, instances=0):
    """A compute node with its figures as os-hypervisors shows them."""
    used = used or {}
    root = model.Provider('rp-' + name, name, inventories={
        'VCPU': Inv(vcpus, allocation_ratio=4.0),
        'MEMORY_MB': Inv(ram + 512, reserved=512),
        'DISK_GB': Inv(1000)}, usages=dict(used))
    figures = model.SchedulerFigures(
        free_ram_mb=ram - used.get('MEMORY_MB', 0),
        free_disk_gb=1000 - used.get('DISK_GB', 0), disk_available_least=0,
        vcpus=vcpus, vcpus_used=used.get('VCPU', 0), io_ops=io_ops,
        hypervisor_version=1000, from_stats=True)
    pools = [model.GpuPool('A100', gpus)] if gpus else []
    return model.Host(name, name, availability_zone=zone, providers=[root],
                      gpu_pools=pools, figures=figures,
                      num_instances=instances,
                      aggregates=[model.Aggregate(n, m)
                                  for n, m in aggregates])


def flavor(name, vcpus=2, ram=4096, disk=20, gpus=0, public=True,
           projects=None):
    specs = {'pci_passthrough:alias': 'A100:%d' % gpus} if gpus else {}
    return model.Flavor(name, name, vcpus=vcpus, ram=ram, disk=disk,
                        extra_specs=specs, is_public=public,
                        projects=projects)


FLAVORS = [flavor('small'), flavor('medium', 4, 8192, 40),
           flavor('large', 8, 16384, 80), flavor('gpu1', 8, 16384, 40, 1),
           flavor('gpu2', 16, 32768, 80, 2),
           flavor('private', public=False, projects=('p1',))]


class CheckTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.settings = weighers.Settings(
            weighers=tuple(w for w in weighers.WEIGHERS
                           if w.since <= '2026.2'),
            multipliers={w.option: 0.0 for w in weighers.WEIGHERS})
        for option, value in (('ram_weight_multiplier', 1.0),
                              ('cpu_weight_multiplier', 1.0),
                              ('disk_weight_multiplier', 1.0),
                              ('io_ops_weight_multiplier', -1.0),
                              ('pci_weight_multiplier', 1.0),
                              ('soft_affinity_weight_multiplier', 1.0),
                              ('soft_anti_affinity_weight_multiplier', 1.0),
                              ('build_failure_weight_multiplier', 1e6),
                              ('hypervisor_version_weight_multiplier', 1.0)):
            self.settings.multipliers[option] = value

    def check(self, hosts, *servers, flavors=FLAVORS, quota_=None,
              **request):
        snapshot = model.Snapshot('placement', flavors, hosts)
        options = engine.Options(aliases={})
        report = engine.compute(snapshot, options)
        columns = set_columns.Columns(report, self.settings)
        return set_check.check(report, options, self.settings, columns,
                               set_request.SetRequest(servers, **request),
                               quota_)

    @staticmethod
    def hosts_of(answer):
        return [[p.host for p in o.started] for o in answer.outcomes]


class TestWeighers(base.BaseTestCase):

    def test_normalize_as_nova(self):
        # minval 0 (RAM, CPU, disk, I/O): value / largest; equal positive
        # values all weigh 1, and values below 0 count as 0.
        self.assertEqual([1.0, 1.0], list(weighers.normalize([5, 5], 0)))
        self.assertEqual([0.0, 0.5, 1.0],
                         list(weighers.normalize([-3, 2, 4], 0)))
        # Other weighers: from the smallest to the largest; equal: all 0.
        self.assertEqual([0.0, 0.0], list(weighers.normalize([7, 7], None)))
        self.assertEqual([0.0, 1.0], list(weighers.normalize([98, 100],
                                                             None)))

    def test_aggregate_multipliers_override_the_option(self):
        settings = weighers.Settings(
            weighers=(weighers.WEIGHERS[-6],),  # RAMWeigher
            multipliers={'ram_weight_multiplier': 1.0})
        self.assertEqual('RAMWeigher', settings.weighers[0].name)
        hosts = [host('a'),
                 host('b', aggregates=[('x', {'ram_weight_multiplier': '2'}),
                                       ('y', {'ram_weight_multiplier':
                                              '-1.5'})]),
                 host('c', aggregates=[('z', {'ram_weight_multiplier':
                                              'lots'})])]
        found = weighers.host_multipliers(settings, hosts)
        # The smallest of several; a value that is no number: the option.
        self.assertEqual([1.0, -1.5, 1.0],
                         list(found['ram_weight_multiplier']))

    def test_build_failures_count_against_a_host(self):
        settings = weighers.Settings(
            weighers=tuple(w for w in weighers.WEIGHERS
                           if w.name == 'BuildFailureWeigher'),
            multipliers={'build_failure_weight_multiplier': 1e6})
        multipliers = weighers.host_multipliers(settings, [host('a')])
        weights = weighers.weigh(
            settings, {k: numpy.repeat(v, 2) for k, v in multipliers.items()},
            lambda w, c: numpy.array([0, 3]), numpy.array([0, 1]))
        self.assertEqual([0.0, -1e6], list(weights))


class TestPlacement(CheckTestCase):

    def test_spread_by_free_ram_and_cpu_ties_named(self):
        hosts = [host('a'), host('b'), host('big', vcpus=32, ram=65536)]
        answer = self.check(hosts, Wanted('large', 3))
        self.assertTrue(answer.fits)
        first = answer.outcomes[0].started
        # The big host first; then a and b weigh the same: one is named,
        # the other said to tie.
        self.assertEqual('big', first[0].host)
        self.assertEqual(('a', ('b',)), (first[1].host, first[1].tied))

    def test_each_build_weighs_against_its_host(self):
        # Nova's I/O count: the compute's stats count each build until
        # its next audit, so identical hosts take turns.
        answer = self.check([host('a'), host('b')], Wanted('small', 4))
        self.assertEqual([['a', 'b', 'a', 'b']], self.hosts_of(answer))
        # A host with builds under way is weighed down.
        answer = self.check([host('a', io_ops=3), host('b')],
                            Wanted('small', 1))
        self.assertEqual([['b']], self.hosts_of(answer))

    def test_gpu_hosts_kept_for_gpu_flavors(self):
        answer = self.check([host('gpu', vcpus=32, ram=65536, gpus=2),
                             host('cpu')], Wanted('small', 1),
                            Wanted('gpu1', 1))
        # PCIWeigher: the host without free devices for the CPU server,
        # though the GPU host has more room.
        self.assertEqual([['cpu'], ['gpu']], self.hosts_of(answer))

    def test_the_first_refusal_ends_the_set(self):
        answer = self.check([host('a', gpus=1)], Wanted('gpu1', 2),
                            Wanted('small', 1))
        first, second = answer.outcomes
        self.assertEqual((1, set_answer.RESOURCES, 'GPU_AGGREGATE'),
                         (len(first.started), first.stop.kind,
                          first.stop.limit))
        self.assertFalse(second.reached)
        self.assertFalse(answer.fits)

    def test_a_zone(self):
        hosts = [host('a', zone='az1'), host('b', zone='az2')]
        # b takes two (RAM), a is in another zone.
        answer = self.check(hosts, Wanted('large', 5),
                            availability_zone='az2')
        self.assertEqual([['b'] * 2], self.hosts_of(answer))
        answer = self.check(hosts, Wanted('large', 1),
                            availability_zone='nowhere')
        self.assertEqual(set_answer.ZONE, answer.outcomes[0].stop.kind)

    def test_more_hosts_than_nova_weighs(self):
        self.settings = dataclasses.replace(self.settings, max_results=2)
        answer = self.check([host('a'), host('b')], Wanted('small', 1))
        self.assertEqual([], [n for n in answer.notes if 'Placement' in n])
        answer = self.check([host('a'), host('b'), host('c')],
                            Wanted('small', 1))
        self.assertIn('up to 3 hosts fit a server; Nova weighs only the 2',
                      ' '.join(answer.notes))

    def test_flavors_nova_refuses(self):
        answer = self.check([host('a')], Wanted('nope', 1))
        self.assertEqual(set_answer.FLAVOR, answer.outcomes[0].stop.kind)
        answer = self.check([host('a')], Wanted('private', 1),
                            project_id='p2')
        self.assertIn('not shared with project p2',
                      answer.outcomes[0].stop.reason)
        self.assertTrue(self.check([host('a')], Wanted('private', 1),
                                   project_id='p1').fits)


class TestNestedProviders(CheckTestCase):
    """A host with a VGPU provider per physical GPU, 2 VGPUs each."""

    FLAVORS = [model.Flavor(name, name, vcpus=2, ram=4096, disk=20,
                            extra_specs={'resources:VGPU': str(vgpus)})
               for name, vgpus in (('vgpu1', 1), ('vgpu2', 2))]

    def vgpu_host(self, used=(0, 0)):
        h = host('v')
        h.providers.extend(
            model.Provider('pgpu%d' % i, 'pgpu%d' % i,
                           parent_uuid=h.root.uuid,
                           inventories={'VGPU': Inv(2)},
                           usages={'VGPU': used[i]} if used[i] else {})
            for i in range(2))
        return h

    def test_one_flavor_fills_one_gpu_first(self):
        # As Placement hands them out: the servers of a flavor stay on the
        # pGPU they started on, which leaves the other whole.
        answer = self.check([self.vgpu_host()], Wanted('vgpu1', 2),
                            Wanted('vgpu2', 1), flavors=self.FLAVORS)
        self.assertTrue(answer.fits)
        # Nova's usual choice, not a certain one: said.
        self.assertIn('on v a server took from one of several unlike '
                      'providers', ' '.join(answer.notes))

    def test_a_multi_create_claims_one_gpu_per_host(self):
        # Nova claims the host's first allocation candidate again for each
        # server of the request: its pGPU, full after two.
        answer = self.check([self.vgpu_host()], Wanted('vgpu1', 3, 3),
                            flavors=self.FLAVORS)
        stop = answer.outcomes[0].stop
        self.assertEqual((0, 'VGPU'), (len(answer.outcomes[0].started),
                                       stop.limit))
        self.assertIn('first allocation candidate', stop.reason)
        answer = self.check([self.vgpu_host()], Wanted('vgpu1', 2, 2),
                            Wanted('vgpu1', 2), flavors=self.FLAVORS)
        self.assertTrue(answer.fits)

    def test_unlike_gpus_are_said_to_be_a_guess(self):
        answer = self.check([self.vgpu_host(used=(1, 0))],
                            Wanted('vgpu1', 1), Wanted('vgpu2', 1),
                            flavors=self.FLAVORS)
        # The fullest taken; whether Placement does is its own order's.
        self.assertTrue(answer.fits)
        self.assertIn('on v a server took from one of several unlike '
                      'providers', ' '.join(answer.notes))
        # Not said where one flavor alone takes VGPU: as many of it fit
        # whichever pGPU its first server took.
        answer = self.check([self.vgpu_host(used=(1, 0))],
                            Wanted('vgpu1', 2), flavors=self.FLAVORS)
        self.assertEqual([], [n for n in answer.notes if 'unlike' in n])


class TestRequests(CheckTestCase):

    def test_multi_create_all_or_nothing(self):
        hosts = [host('a', vcpus=8), host('b', vcpus=8)]
        # 32 GiB each: two large per host.
        answer = self.check(hosts, Wanted('large', 5, min_count=5),
                            Wanted('large', 4, min_count=4))
        first, second = answer.outcomes
        self.assertEqual((0, set_answer.RESOURCES),
                         (len(first.started), first.stop.kind))
        self.assertIn('fails whole (4 placed before)', first.stop.reason)
        self.assertFalse(second.reached)
        # Nothing of it stays claimed: four start after it.
        answer = self.check(hosts, Wanted('large', 4, min_count=4))
        self.assertEqual([['a', 'b', 'a', 'b']], self.hosts_of(answer))

    def test_quota_stops_successive_requests(self):
        reading = quota.ProjectQuota(
            quota.DB, limits={'instances': 10, 'cores': 10, 'ram': -1},
            in_use={'instances': 0, 'cores': 2, 'ram': 0})
        answer = self.check([host('a')], Wanted('medium', 3),
                            quota_=reading, project_id='p1')
        only = answer.outcomes[0]
        self.assertEqual((2, set_answer.QUOTA, 'cores'),
                         (len(only.started), only.stop.kind,
                          only.stop.limit))

    def test_quota_cuts_a_multi_create(self):
        reading = quota.ProjectQuota(
            quota.DB, limits={'instances': 3, 'cores': -1, 'ram': -1},
            in_use={'instances': 1, 'cores': 2, 'ram': 0})
        answer = self.check([host('a')], Wanted('small', 5, min_count=1),
                            quota_=reading, project_id='p1')
        self.assertEqual([2], [len(o.started) for o in answer.outcomes])
        answer = self.check([host('a')], Wanted('small', 5, min_count=3),
                            quota_=reading, project_id='p1')
        self.assertEqual(set_answer.QUOTA, answer.outcomes[0].stop.kind)
        # Instances unlimited and cores short: Nova refuses it all.
        unlimited = dataclasses.replace(
            reading, limits={'instances': -1, 'cores': 6, 'ram': -1})
        answer = self.check([host('a')], Wanted('small', 5, min_count=1),
                            quota_=unlimited, project_id='p1')
        self.assertEqual((0, set_answer.QUOTA),
                         (len(answer.outcomes[0].started),
                          answer.outcomes[0].stop.kind))

    def test_server_group_members_quota(self):
        reading = quota.ProjectQuota(
            quota.DB, limits={'instances': -1, 'cores': -1, 'ram': -1},
            group_members=2)
        answer = self.check(
            [host('a'), host('b'), host('c')], Wanted('small', 3),
            quota_=reading, project_id='p1',
            group=set_request.ServerGroup('soft-anti-affinity'))
        only = answer.outcomes[0]
        self.assertEqual((2, 'server_group_members'),
                         (len(only.started), only.stop.limit))


class TestServerGroups(CheckTestCase):

    HOSTS = staticmethod(lambda: [host('a'), host('b'),
                                  host('c', ram=16384)])

    def group(self, policy, count, most=None, multi=False):
        return self.check(self.HOSTS(), Wanted(
            'medium', count, count if multi else None),
            group=set_request.ServerGroup(policy, most))

    def test_anti_affinity(self):
        answer = self.group('anti-affinity', 4)
        only = answer.outcomes[0]
        self.assertEqual(3, len(only.started))
        self.assertEqual((set_answer.SERVER_GROUP, 'anti-affinity'),
                         (only.stop.kind, only.stop.limit))
        answer = self.group('anti-affinity', 6, most=2, multi=True)
        self.assertEqual(['a', 'a', 'b', 'b', 'c', 'c'],
                         sorted(self.hosts_of(answer)[0]))

    def test_affinity_stays_on_the_first_host(self):
        answer = self.group('affinity', 5)
        hosts = self.hosts_of(answer)[0]
        self.assertEqual({'a'}, set(hosts))
        self.assertEqual(4, len(hosts))
        # b and c have room: the policy is what stops the fifth.
        self.assertEqual((set_answer.SERVER_GROUP, 'affinity'),
                         (answer.outcomes[0].stop.kind,
                          answer.outcomes[0].stop.limit))

    def test_soft_policies_weigh(self):
        # With Nova's multiplier of 1, a member on a host weighs as much
        # as a build under way there: the hosts take turns.
        self.assertEqual(['a', 'b', 'a'],
                         self.hosts_of(self.group('soft-affinity', 3))[0])
        self.settings.multipliers['soft_affinity_weight_multiplier'] = 10
        packed = self.hosts_of(self.group('soft-affinity', 3))[0]
        spread = self.hosts_of(self.group('soft-anti-affinity', 3))[0]
        self.assertEqual(['a', 'a', 'a'], packed)
        self.assertEqual(3, len(set(spread)))


class TestAlternatives(CheckTestCase):

    def test_flavors_of_the_same_kind_nearest_first(self):
        hosts = [host('g', vcpus=16, ram=73728, gpus=2)]
        answer = self.check(hosts, Wanted('gpu2', 2))
        only = answer.outcomes[0]
        self.assertEqual(1, len(only.started))
        # gpu1 wants one GPU: none left after the first gpu2. No CPU
        # flavor is offered for a GPU one.
        self.assertEqual([], only.alternatives)
        answer = self.check(hosts, Wanted('gpu2', 1, min_count=1),
                            Wanted('large', 3))
        large = answer.outcomes[1]
        self.assertEqual(set_answer.RESOURCES, large.stop.kind)
        # 40 GiB left after gpu2: two large, then 8 GiB for one medium or
        # two small (nearest in size first).
        self.assertEqual([('medium', 1), ('small', 2)],
                         [(f.name, n) for f, n in large.alternatives])
