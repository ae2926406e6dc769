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

"""How long each functional test class takes, for stestr's scheduler.

stestr gives each worker whole test classes (``.stestr.conf``). With the
tests' times in its repository it deals out the longest class first, each
to the worker with the least work so far; without them (a fresh clone, as
in CI) it deals the classes out in turns in name order. On two workers that
gave one of them half as much work again as the other (2,830 against
1,900 test seconds for ``functional``), and the other core idled for the
difference; seeded, 2,365 each. (A worker still runs its classes in name
order.)

Before an env's first run, tox seeds its new repository with the figures
below: ``python -m flavor_exporter.tests.functional.durations REPO``
lists the tests, loads a run of them with each class's seconds shared
among its tests, and removes that run from the history again (the times
stay). A repository that exists is left alone: from then on stestr
schedules by what it measured itself. A class missing here is dealt out
in turns after the others, as before; only the order changes, never which
tests run.

The figures: seconds per class as stestr recorded them on a 2-core machine
(a whole ``functional`` run for 2026.2, with other work beside it; runs of
``functional-2024.1`` for 2024.1): weights, not promises.
"""

import collections
import datetime
import io
import os
import re
import subprocess
import sys

import subunit

from testcloud import cloud_venv

#: ``module.Class`` (below flavor_exporter.tests.functional): seconds.
SECONDS = {
    # Nova 34 + Placement 16, tox -e functional.
    '2026.2': {
        'test_oracle.TestSetChecksOracle': 739,
        'test_whatif.TestWhatifOnTheCloud': 364,
        'test_oracle.TestWhatifOracle': 240,
        'test_oracle.TestNumaOracle': 172,
        'test_oracle.TestGpuTypesOracle': 170,
        'test_oracle.TestCapsAndZonesOracle': 142,
        'test_oracle.TestLargeCloudOracle': 124,
        'test_set_checks.TestSetChecksOnTheCloud': 112,
        'test_oracle.TestKeystoneLimitsOracle': 95,
        'test_oracle.TestPredecessorOracle': 95,
        'test_oracle.TestUsagesTwoWaysOracle': 89,
        'test_cloud_gpu_types.GpuTypesTest': 85,
        'test_notifications.TestNotifications': 77,
        'test_horizon.TestDemoServesHorizon': 75,
        'test_project_budget.TestPortalsFirstDay': 75,
        'test_several_clouds.TestSeveralClouds': 75,
        'test_freshness.TestFreshness': 73,
        'test_horizon.TestHorizonPlugin': 72,
        'test_keystone_auth.TestKeystoneauthOptions': 69,
        'test_several_workers.TestSeveralWorkers': 67,
        'test_oracle.TestDefragOracle': 61,
        'test_oracle.TestPcpuOracle': 59,
        'test_oracle.TestPciInPlacementOracle': 58,
        'test_oracle.TestVgpuOracle': 58,
        'test_oracle.TestVtpmOracle': 57,
        'test_notification_flood.TestFlood': 53,
        'test_commands.TestWorkerAndApi': 49,
        'test_projects.TestProjectsOnTheCloud': 45,
        'test_set_checks.TestSetChecksOnNestedGpus': 42,
        'test_front_end.TestAllCommand': 41,
        'test_openapi_conformance.TestOpenApiConformance': 41,
        'test_fresh_install.FreshInstallTestCase': 38,
        'test_cloud_gpu.VgpuTest': 37,
        'test_cloud_pcpu.PinnedRamOvercommitTest': 37,
        'test_notifications.TestLegacyNotifications': 36,
        'test_oracle.TestMixedGpuOracle': 36,
        'test_cloud_predecessor.PredecessorCloudTest': 35,
        'test_unreadable_hosts.UnreadableHostTest': 33,
        'test_demo.TestDemo': 32,
        'test_commands.TestReadsNeverGoBack': 31,
        'test_commands.TestOtherCommands': 30,
        'test_defrag.TestDefragOnTheCloud': 30,
        'test_placement_source.TestServerDelete': 30,
        'test_cloud_keystone.KeystoneCloudTest': 29,
        'test_oracle.TestTenantProjectsOracle': 29,
        'test_cloud_gpu.PciInPlacementTest': 28,
        'test_keystone_auth.TestKeystoneStopped': 28,
        'test_seed_client.TestSeedClient': 27,
        'test_oracle.TestUnitLimitsOracle': 26,
        'test_cloud_pcpu.PcpuCloudTest': 25,
        'test_deployment_files.TestApacheModWsgi': 25,
        'test_front_end.TestApiCommand': 25,
        'test_cloud_services.DisabledHostTest': 23,
        'test_cloud_services.FiftyHostsTest': 22,
        'test_frozen_leader.TestLeaderFrozenMidRefresh': 22,
        'test_oracle.TestPinnedRamOvercommitOracle': 22,
        'test_cache_restart.TestOneServerRestartedEmpty': 19,
        'test_cloud_services.ControlEndpointTest': 19,
        'test_oracle.TestSchedulerRulesOracle': 19,
        'test_placement_source.TestUsagesTwoWays': 19,
        'test_oracle.TestQuotaFromPlacementOracle': 18,
        'test_keystone_auth.TestOpenstackClientConfig': 17,
        'test_oracle.TestDisabledHostOracle': 17,
        'test_releases.OwnerNovaTest': 17,
        'test_sample_config.TestSampleConfiguration': 17,
        'test_refused_config.TestRefusedAtStart': 16,
        'test_cloud_gpu.MixedGpuTest': 15,
        'test_cloud_services.DownHostTest': 15,
        'test_placement_source.TestGpuAggregates': 15,
        'test_deployment_files.TestUwsgi': 14,
        'test_oracle.TestDownHostOracle': 14,
        'test_placement_source.TestPciInPlacement': 14,
        'test_osc_keystone.TestOpenstackCapacityCommand': 13,
        'test_projects.TestQuotaFromPlacement': 13,
        'test_notification_flood.TestPool': 12,
        'test_releases.ReleaseFactsTest': 12,
        'test_commands.TestHelpAlone': 10,
        'test_numa_fit.TestNumaFitIsNovas': 10,
        'test_openstack_api.TestBehindAProxy': 10,
        'test_placement_source.TestSharedProviders': 10,
        'test_keystone_auth.TestApiBehindKeystone': 9,
        'test_placement_source.TestDisabledHost': 9,
        'test_api_memcached.TestApiOverMemcached': 7,
        'test_openstack_api.TestCors': 7,
        'test_openstack_api.TestRequestIds': 7,
        'test_doors.TestSlowBodies': 6,
        'test_scheduler_audit.TestSchedulerAudit': 5,
        'test_doc_examples.TestDocExamples': 4,
        'test_doors.TestHttpBasic': 4,
        'test_api_uwsgi.TestFlavorExporterApi': 3,
        'test_cloud_scenarios.ScenarioFilesTest': 1,
        'test_cloud_pcpu.PcpuScenarioParseTest': 1,
        'test_cloud_scenarios.ScenarioValidationTest': 1,
        'test_oracle.TestEveryScenarioHasAnOracle': 1,
    },
    # Nova 29 + Placement 11, tox -e functional-2024.1.
    '2024.1': {
        'test_oracle.TestSetChecksOracle': 278,
        'test_whatif.TestWhatifOnTheCloud': 264,
        'test_oracle.TestCapsAndZonesOracle': 210,
        'test_oracle.TestGpuTypesOracle': 192,
        'test_oracle.TestKeystoneLimitsOracle': 164,
        'test_oracle.TestLargeCloudOracle': 146,
        'test_set_checks.TestSetChecksOnTheCloud': 125,
        'test_oracle.TestNumaOracle': 98,
        'test_oracle.TestWhatifOracle': 85,
        'test_oracle.TestDefragOracle': 84,
        'test_set_checks.TestSetChecksOnNestedGpus': 83,
        'test_oracle.TestPredecessorOracle': 49,
        'test_defrag.TestDefragOnTheCloud': 48,
        'test_oracle.TestUsagesTwoWaysOracle': 43,
        'test_oracle.TestPciInPlacementOracle': 39,
        'test_oracle.TestVgpuOracle': 38,
        'test_oracle.TestDisabledHostOracle': 36,
        'test_oracle.TestPcpuOracle': 32,
        'test_oracle.TestMixedGpuOracle': 30,
        'test_oracle.TestDownHostOracle': 27,
        'test_oracle.TestVtpmOracle': 21,
        'test_oracle.TestTenantProjectsOracle': 20,
        'test_oracle.TestUnitLimitsOracle': 16,
        'test_oracle.TestSchedulerRulesOracle': 13,
        'test_oracle.TestPinnedRamOvercommitOracle': 12,
        'test_releases.OwnerNovaTest': 11,
        'test_releases.ReleaseFactsTest': 11,
        'test_oracle.TestQuotaFromPlacementOracle': 10,
        'test_oracle.TestEveryScenarioHasAnOracle': 1,
    },
}

PACKAGE = 'flavor_exporter.tests.functional.'
#: .stestr.conf's group_regex: a test's class.
_CLASS = re.compile(r'([^\.]*\.)*')


def _stestr(repo, *args, **kwargs):
    return subprocess.run(
        [sys.executable, '-m', 'stestr', '--repo-url', repo] + list(args),
        check=True, **kwargs)


def shares(test_ids, seconds):
    """{test id: seconds} for the tests of the classes seconds names."""
    by_class = collections.defaultdict(list)
    for test_id in test_ids:
        name = _CLASS.match(test_id).group(0).rstrip('.')
        if name.startswith(PACKAGE):
            by_class[name[len(PACKAGE):]].append(test_id)
    return {test_id: seconds[name] / len(tests)
            for name, tests in by_class.items() if name in seconds
            for test_id in tests}


def stream(times):
    """A subunit v2 run in which each test succeeded in its time."""
    buffer = io.BytesIO()
    out = subunit.StreamResultToBytes(buffer)
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    for test_id, seconds in sorted(times.items()):
        out.status(test_id=test_id, test_status='inprogress',
                   timestamp=start)
        out.status(test_id=test_id, test_status='success',
                   timestamp=start + datetime.timedelta(seconds=seconds))
    return buffer.getvalue()


def seed(repo, times):
    """Make a stestr repository at repo that knows these {test id: s}."""
    _stestr(repo, 'init', stdout=subprocess.DEVNULL)
    if times:
        _stestr(repo, 'load', input=stream(times),
                stdout=subprocess.DEVNULL)
        _stestr(repo, 'history', 'remove', 'all',
                stdout=subprocess.DEVNULL)


def main(argv=None):
    """Seed the env's new repository (argv[0]) for the cloud's release."""
    repo = (sys.argv[1:] if argv is None else argv)[0]
    if os.path.exists(os.path.join(repo, '.stestr')):
        return
    # The tests of the env's OS_TEST_PATH, as its run will find them.
    listed = subprocess.run([sys.executable, '-m', 'stestr', 'list'],
                            stdout=subprocess.PIPE, text=True, check=True)
    seed(repo, shares(listed.stdout.split(),
                      SECONDS.get(cloud_venv.selected(), {})))


if __name__ == '__main__':
    main()
