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

"""Start a real Nova + Placement (+ Keystone) test cloud for a test.

    with TestCloud('predecessor') as cloud:
        conn = cloud.connection()

or ``self.useFixture(TestCloud('vgpu'))`` in a test, or
``shared_cloud('predecessor')`` for tests that do not change the cloud.

The cloud runs in a subprocess (``server.py``) with the interpreter of
an OpenStack release (``cloud_venv``): ``TestCloud(..., release=...)``,
else ``$FLAVOR_EXPORTER_CLOUD_RELEASE``, else the newest;
``$FLAVOR_EXPORTER_CLOUD_PYTHON`` names an interpreter instead.
``keystone=True`` also starts Keystone 30 from its own interpreter
(``keystone_fixture``).
"""

import atexit
import os

import fixtures
import requests

from testcloud import cloud_venv
from testcloud import keystone_fixture
from testcloud import process
from testcloud import scenario as scenario_mod

ENV_PYTHON = 'FLAVOR_EXPORTER_CLOUD_PYTHON'
START_TIMEOUT = 180
CloudStartError = process.StartError


def cloud_python(release=None):
    """The cloud's interpreter: a named release's, else the configured one.

    Without either, the release of ``$FLAVOR_EXPORTER_CLOUD_RELEASE`` (or
    the newest), built on first use.
    """
    if release is None and os.environ.get(ENV_PYTHON):
        return os.environ[ENV_PYTHON]
    return cloud_venv.python(release)


class TestCloud(fixtures.Fixture):
    """A running test cloud described by a scenario (name or YAML path).

    Attributes after setUp: ``clouds_yaml``, ``cloud_name`` (admin),
    ``member_cloud_name``, ``compute_url``, ``placement_url``,
    ``control_url``, ``hosts`` ({service host: {"node", "running"}}),
    ``enabled_filters`` (read from the running scheduler), ``versions``
    ({"nova": "34.0.0", "placement": ...}, as installed in the cloud's
    interpreter), ``token`` (the admin's stub token, None with Keystone),
    ``keystone_url`` (None without Keystone) and ``keystone`` (Keystone's
    ready document with the admin and member credentials).
    """

    def __init__(self, scenario, keystone=False, cloud_name='testcloud',
                 python=None, timeout=START_TIMEOUT, rootdir=None,
                 release=None, notification_url=None,
                 notification_format='both'):
        super().__init__()
        #: A message bus for Nova's notifications (loopback's
        #: RabbitMQFixture url), and nova.conf's notification_format.
        self.notification_url = notification_url
        self.notification_format = notification_format
        self.scenario = scenario
        self.release = release
        self.scenario_path = scenario_mod.path_of(scenario)
        self.use_keystone = keystone
        self.requested_name = cloud_name
        self.python = python
        self.timeout = timeout
        #: Where the cloud's working directory is made; None: the
        #: temporary directory of the moment (a test's own, under oslotest).
        self.rootdir = rootdir
        self.ready = None
        self.keystone = None

    def setUp(self):
        try:
            super().setUp()
        except fixtures.MultipleExceptions as exc:
            # fixtures wraps a failed _setUp with a SetupError; the server's
            # own error (with its stderr tail) is what a reader needs.
            first = exc.args[0][1]
            if isinstance(first, process.StartError):
                raise first from None
            raise

    def _setUp(self):
        self.workdir = self.useFixture(
            fixtures.TempDir(rootdir=self.rootdir)).path
        keystone_file = None
        if self.use_keystone:
            server = self.useFixture(keystone_fixture.KeystoneServer(
                workdir=os.path.join(self.workdir, 'keystone')))
            self.keystone = server.info
            keystone_file = server.ready_file
        ready_file = os.path.join(self.workdir, 'ready.json')
        argv = [self.python or cloud_python(self.release), '-m',
                'testcloud.server',
                '--scenario', self.scenario_path,
                '--ready-file', ready_file,
                '--cloud-name', self.requested_name,
                '--parent-pid', str(os.getpid())]
        if keystone_file:
            argv += ['--keystone-file', keystone_file]
        if self.notification_url:
            argv += ['--notification-url', self.notification_url,
                     '--notification-format', self.notification_format]
        self.process = process.ServerProcess(
            'cloud', argv, self.workdir, ready_file, env=self._env())
        self.addCleanup(self.process.stop)
        self.ready = self.process.start(self.timeout)
        for key in ('clouds_yaml', 'cloud_name', 'member_cloud_name',
                    'compute_url', 'placement_url', 'control_url',
                    'keystone_url', 'token', 'hosts', 'enabled_filters',
                    'versions', 'compute_service_id', 'cell_database'):
            setattr(self, key, self.ready[key])

    def _env(self):
        env = dict(os.environ)
        # testcloud is installed nowhere (it is not in flavor-exporter's
        # wheel) and the cloud's interpreter may be another venv: the
        # source tree is on its path instead.
        paths = [keystone_fixture.REPO_ROOT]
        if env.get('PYTHONPATH'):
            paths.append(env['PYTHONPATH'])
        env['PYTHONPATH'] = os.pathsep.join(paths)
        # Whatever Nova's fixtures leave in temp files goes with workdir.
        env['TMPDIR'] = self.workdir
        return env

    # -- clients ----------------------------------------------------------

    def env(self, member=False):
        """OS_* variables that point an openstack CLI user at this cloud."""
        return {'OS_CLIENT_CONFIG_FILE': self.clouds_yaml,
                'OS_CLOUD': (self.member_cloud_name if member
                             else self.cloud_name)}

    def connection(self, member=False, **kwargs):
        """An openstacksdk Connection, as admin unless ``member``."""
        from openstack import config
        from openstack import connection

        # Only our clouds.yaml: a developer's OS_* variables or
        # ~/.config/openstack must not leak into a test.
        loader = config.OpenStackConfig(
            config_files=[self.clouds_yaml], vendor_files=[],
            secure_files=[], load_envvars=False)
        region = loader.get_one(
            cloud=self.member_cloud_name if member else self.cloud_name,
            **kwargs)
        return connection.Connection(config=region)

    # -- control endpoint -------------------------------------------------

    def _control(self, method, path, body=None):
        resp = requests.request(method, self.control_url + path, json=body,
                                timeout=120)
        resp.raise_for_status()
        return resp.json()

    def state(self):
        """Hosts and the scheduler's filters, as the cloud sees them now."""
        return self._control('GET', '/state')

    def add_compute(self, host):
        """Start a compute at run time; ``host`` as in the scenario schema."""
        result = self._control('POST', '/computes', host)
        self.hosts = self.state()['hosts']
        return result

    def stop_compute(self, name):
        """Stop a compute service (force it down via os-services too)."""
        result = self._control('POST', '/computes/%s/stop' % name)
        self.hosts = self.state()['hosts']
        return result

    def run_periodics(self):
        """Make every compute report its resources to Placement now."""
        return self._control('POST', '/periodic')

    def host_numa(self):
        """``{node: [NUMA cell, ...] or None}`` with pinned CPUs, from Nova."""
        return self._control('GET', '/numa')

    def server_numa(self, server_id):
        """A server's NUMA topology (CPU pinning) or None."""
        return self._control('GET', '/servers/%s/numa' % server_id)

    def alive(self):
        return self.process.alive()


_SHARED = {}
_FAILED = {}


def shared_cloud(scenario, keystone=False):
    """The started cloud of a scenario, shared by read-only tests.

    Tests that change the cloud (boot, disable, add computes) must start
    their own TestCloud, or undo what they did before they end. A cloud
    that failed to start is not tried again by the next test.

    Only the most recently asked-for cloud is kept: an idle cloud still
    runs its services' periodic tasks, and a few of them left running on
    2 cores slow every other test down. stestr runs a test class in one
    worker, so a class's tests find its cloud still there.
    """
    key = (scenario_mod.path_of(scenario), bool(keystone))
    if key in _FAILED:
        raise _FAILED[key]
    cloud = _SHARED.get(key)
    if cloud is None or not cloud.alive():
        _stop_shared()
        # Not in the temporary directory of the test that happens to start
        # it: that one is removed when the test ends.
        cloud = TestCloud(scenario, keystone=keystone,
                          rootdir=process.ORIGINAL_TEMPDIR)
        try:
            cloud.setUp()
        except Exception as exc:
            _FAILED[key] = exc
            raise
        _SHARED[key] = cloud
    return cloud


@atexit.register
def _stop_shared():
    while _SHARED:
        _key, cloud = _SHARED.popitem()
        cloud.cleanUp()
