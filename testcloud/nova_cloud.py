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

"""Nova + Placement in one process, built from Nova's functional fixtures.

Nova's own functional tests already know how to run a complete cloud in
memory: API and cell databases, the fake RPC transport, real Placement,
stand-ins for Glance, Neutron and Cinder. :class:`NovaCloud` borrows that
set-up from ``nova.test.TestCase`` (``nova.tests`` is not a stable API:
each release's interpreter pins its Nova, and nova_release.py holds what
differs between them), then starts the control services and one compute
per scenario host. Import this module only in the cloud's interpreter.
"""

import collections
import logging
import os
import shutil
import sys
import tempfile
import time

import fixtures
from oslo_config import cfg
from oslo_messaging import server as msg_server
from oslo_serialization import jsonutils
from oslo_utils.fixture import uuidsentinel

import nova
from nova.api import auth as nova_auth
from nova import context as nova_context
from nova import objects
from nova import test
from nova.tests import fixtures as nova_fixtures
from nova.tests.functional.api import client as api_client
from nova.tests.functional import fixtures as func_fixtures

from testcloud import driver
from testcloud import nova_release

CONF = cfg.CONF

#: Glance stand-in image every scenario server boots from.
IMAGE_ID = '155d900f-4e14-4e4c-a73d-069cbf4541e6'

# Saved before OSAPIFixture replaces it: requests that came through real
# keystonemiddleware need Nova's real context factory.
_REAL_CREATE_CONTEXT = nova_auth.NovaKeystoneContext._create_context


class CloudError(Exception):
    """The cloud could not be built as the scenario says."""


# The uuid nova.test.TestCase._setup_cells gives cell1.
_CELL1 = uuidsentinel.cell1


class _Fixtures(test.TestCase):
    """Nova's test set-up, used as a fixture container; never run."""

    def runTest(self):
        """Unused: unittest wants a test method to exist."""


def _create_context(env, **kwargs):
    """Build a RequestContext from whichever auth headers the request has.

    The stub headers (``X-Auth-User``...) come from our token middleware;
    keystonemiddleware's headers (``X-User-Id``...) from a real Keystone.
    """
    if 'HTTP_X_AUTH_USER' not in env:
        return _REAL_CREATE_CONTEXT(env, **kwargs)
    user_id = env['HTTP_X_AUTH_USER']
    roles = env.get('HTTP_X_ROLES', '').split(',')
    return nova_context.RequestContext(
        user_id, env['HTTP_X_AUTH_PROJECT_ID'], is_admin='admin' in roles,
        roles=roles, **kwargs)


def _log_to_stderr(level):
    """Send logs to stderr instead of Nova's in-memory test capture.

    The fixtures keep every log line in memory, where a failing start-up
    would hide them, and format DEBUG lines for nothing.
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(
        '%(asctime)s %(levelname)s [%(name)s] %(message)s'))
    root.addHandler(handler)
    root.setLevel(level)


def _api_paste_config():
    """Find api-paste.ini: pip puts it under ``<prefix>/etc``.

    The fixtures look for it beside the nova package, where pip never puts
    it; asking the interpreter's prefix avoids a symlink in every venv.
    """
    candidates = [os.path.join(prefix, 'etc', 'nova', 'api-paste.ini')
                  for prefix in (sys.prefix, sys.base_prefix)]
    candidates.append(os.path.join(os.path.dirname(nova.__file__), '..',
                                   'etc', 'nova', 'api-paste.ini'))
    for path in candidates:
        if os.path.exists(path):
            return os.path.abspath(path)
    raise CloudError('api-paste.ini not found in %s' % candidates)


class NovaCloud(object):
    """A running Nova + Placement cloud shaped by a scenario."""

    def __init__(self, scenario, log_level='INFO', notifications=None):
        """notifications: (bus URL, notification_format), or None."""
        self.scenario = scenario
        self.log_level = log_level
        self.notifications = notifications
        self.computes = {}
        self.stopped = set()
        self.flavor_ids = {}
        self.aggregate_ids = {}
        self._case = None
        self._cells_dir = None

    # -- start-up ---------------------------------------------------------

    def start(self):
        case = self._case = _Fixtures()
        # What only the cell database holds (NUMA cells, the compute
        # nodes' stats) is read from it (cell_database), on every release.
        self._cells_dir = tempfile.mkdtemp(prefix='testcloud-cells-')
        cells = nova_release.file_backed_cells(self._cells_dir)
        with cells:
            case.setUp()
        _log_to_stderr(self.log_level)
        self._configure(case)

        case.useFixture(nova_fixtures.RealPolicyFixture())
        case.useFixture(nova_fixtures.NeutronFixture(case))
        case.useFixture(nova_fixtures.GlanceFixture(case))
        case.useFixture(nova_fixtures.CinderFixture(case))
        self.placement = case.useFixture(func_fixtures.PlacementFixture())
        case.useFixture(nova_fixtures.AllServicesCurrent())
        case.useFixture(nova_fixtures.NotificationFixture(case))
        if self.notifications:
            # Before any service starts: each keeps the notifier it finds.
            self._send_notifications(*self.notifications)
        api_fixture = case.useFixture(nova_fixtures.OSAPIFixture(
            api_version='v2.1'))
        case.useFixture(fixtures.MonkeyPatch(
            'nova.api.auth.NovaKeystoneContext._create_context',
            _create_context))
        self.compute_app = api_fixture.app()
        self.api = api_fixture.admin_api
        self.api.microversion = '2.74'

        case.start_service('conductor')
        self.scheduler = case.start_service('scheduler')
        for host in self.scenario.hosts:
            self.add_compute(host)
        self._apply(self.scenario)

    def _configure(self, case):
        """Set every option the scenario needs before any service starts."""
        scenario = self.scenario
        driver.register()
        case.flags(compute_driver=driver.DRIVER_NAME)
        rpc_threads = nova_release.rpc_executor_threads()
        if rpc_threads:
            # oslo.messaging registers it only when a server starts.
            CONF.register_opts(msg_server._pool_opts)
            case.flags(executor_thread_pool_size=rpc_threads)
        # The oracle boots until NoValidHost; a quota must never stop it
        # first (Nova's defaults allow 10 instances and 50 GB of RAM).
        case.flags(instances=-1, cores=-1, ram=-1, group='quota')
        case.flags(api_paste_config=_api_paste_config(), group='wsgi')
        case.flags(enabled_filters=list(scenario.enabled_filters),
                   group='filter_scheduler')
        self._allow_pci_devices(scenario.hosts)
        case.flags(alias=[jsonutils.dumps(a) for a in scenario.pci_aliases],
                   group='pci')
        case.flags(report_in_placement=scenario.pci_in_placement,
                   group='pci')
        case.flags(pci_in_placement=scenario.pci_in_placement,
                   group='filter_scheduler')
        for group, options in scenario.config.items():
            group = None if group == 'DEFAULT' else group
            for name, value in options.items():
                case.flags(**{name: value, 'group': group})

    def _send_notifications(self, url, notification_format='both'):
        """Send Nova's notifications to the message bus at url.

        As a deployer's nova.conf does ([oslo_messaging_notifications]
        transport_url and driver = messagingv2, [notifications]
        notification_format): the legacy ones on topic "notifications",
        the versioned ones on "versioned_notifications", both in the
        "nova" exchange. Nova's fixtures capture them in memory otherwise.
        """
        from nova import rpc
        import oslo_messaging

        # Nova's own default (nova.rpc.set_defaults), read when the
        # transport is made.
        CONF.set_override('control_exchange', 'nova')
        transport = oslo_messaging.get_notification_transport(CONF, url=url)
        serializer = rpc.RequestContextSerializer(
            rpc.JsonPayloadSerializer())
        for name, topic, wanted in (
                ('LEGACY_NOTIFIER', 'notifications', ('both', 'unversioned')),
                ('NOTIFIER', 'versioned_notifications',
                 ('both', 'versioned'))):
            self._case.stub_out('nova.rpc.' + name, oslo_messaging.Notifier(
                transport, serializer=serializer,
                driver='messagingv2' if notification_format in wanted
                else 'noop', topics=[topic]))
        self._case.flags(notification_format=notification_format,
                         group='notifications')

    def use_keystone_limits(self, keystone, endpoint_id):
        """Let Nova's unified limits driver read Keystone's limits.

        As a deployer writes [oslo_limit]: the compute endpoint the limits
        belong to, and credentials that may read them. Nova reads them at
        its first quota check, after this. Only with [quota] driver =
        nova.quota.UnifiedLimitsDriver (the scenario's config).
        """
        if CONF.quota.driver != 'nova.quota.UnifiedLimitsDriver':
            return
        from keystoneauth1 import loading
        import oslo_limit.opts
        oslo_limit.opts.register_opts(CONF)
        CONF.register_opts(loading.get_auth_plugin_conf_options('password'),
                           group='oslo_limit')
        for name, value in (('endpoint_id', endpoint_id),
                            ('auth_type', 'password'),
                            ('auth_url', keystone['url'] + '/v3'),
                            ('username', keystone['admin_user']),
                            ('password', keystone['admin_password']),
                            ('project_name', keystone['admin_project']),
                            ('user_domain_id', 'default'),
                            ('project_domain_id', 'default')):
            CONF.set_override(name, value, group='oslo_limit')

    def _allow_pci_devices(self, hosts):
        """Put every device type of ``hosts`` into ``[pci] device_spec``.

        A compute reads the option when it starts, so a host added at run
        time with a new kind of device needs it set before.
        """
        specs = sorted({(d.vendor_id, d.product_id)
                        for h in list(driver.HOSTS.values()) + list(hosts)
                        for d in h.pci_devices})
        self._case.flags(device_spec=[
            jsonutils.dumps({'vendor_id': v, 'product_id': p})
            for v, p in specs], group='pci')

    def add_compute(self, host):
        """Start a nova-compute for a scenario host (also at run time)."""
        if host.name in self.computes:
            raise CloudError('compute %s already exists' % host.name)
        self._allow_pci_devices([host])
        driver.HOSTS[host.name] = host
        self.computes[host.name] = self._case._start_compute(host.name)
        return self.computes[host.name]

    def stop_compute(self, name):
        """Stop a compute service; Nova sees it down once forced down."""
        self.computes[name].stop()
        self.stopped.add(name)

    def run_periodics(self):
        """Make every running compute report its resources now."""
        running = {name: compute for name, compute in self.computes.items()
                   if name not in self.stopped}
        ctxt = nova_context.get_admin_context()
        for name, compute in running.items():
            cell = self._case.host_mappings[name].cell_mapping
            with nova_context.target_cell(ctxt, cell) as cctxt:
                compute.manager.update_available_resource(cctxt)

    def host_numa(self):
        """Each running compute node's NUMA cells with their usage.

        ``{node: [cell, ...]}`` (``None`` for a node without a topology),
        as the resource tracker last saved them: the scheduler filters on
        these and the compute claims pinned CPUs against them.
        """
        ctxt = nova_context.get_admin_context()
        result = {}
        for name in self.computes:
            if name in self.stopped:
                continue
            cell = self._case.host_mappings[name].cell_mapping
            with nova_context.target_cell(ctxt, cell) as cctxt:
                nodes = objects.ComputeNodeList.get_all_by_host(cctxt, name)
            for node in nodes:
                topology = (objects.NUMATopology.obj_from_db_obj(
                    node.numa_topology) if node.numa_topology else None)
                result[node.hypervisor_hostname] = None if not topology else [
                    {'id': c.id, 'cpuset': sorted(c.cpuset),
                     'pcpuset': sorted(c.pcpuset),
                     'pinned_cpus': sorted(c.pinned_cpus),
                     'cpu_usage': c.cpu_usage, 'memory': c.memory,
                     'memory_usage': c.memory_usage}
                    for c in topology.cells]
        return result

    def server_numa(self, server_id):
        """A server's NUMA topology as its compute pinned it, or None."""
        ctxt = nova_context.get_admin_context()
        mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt,
                                                               server_id)
        with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
            topology = objects.InstanceNUMATopology.get_by_instance_uuid(
                cctxt, server_id)
        if topology is None:
            return None

        def get(obj, field, default=None):
            if obj.obj_attr_is_set(field):
                return getattr(obj, field)
            return default

        return {
            'emulator_threads_policy': get(topology,
                                           'emulator_threads_policy'),
            'cells': [{
                'id': c.id, 'cpu_policy': get(c, 'cpu_policy'),
                'cpuset': sorted(c.cpuset), 'pcpuset': sorted(c.pcpuset),
                # guest vCPU (a string, as JSON keys are) -> host CPU
                'cpu_pinning': dict(get(c, 'cpu_pinning_raw') or {}),
                'cpuset_reserved': sorted(get(c, 'cpuset_reserved')
                                          or ()),
                'memory': c.memory} for c in topology.cells]}

    @property
    def enabled_filters(self):
        """The filters the running scheduler really applies."""
        host_manager = self.scheduler.manager.host_manager
        return [f.__class__.__name__ for f in host_manager.enabled_filters]

    # -- scenario ---------------------------------------------------------

    def _apply(self, scenario):
        if not scenario.default_flavors:
            # Nova's fixtures preload m1.tiny ... m1.xlarge. A real cloud
            # has only its own flavors, and a tiny flavor on big hosts
            # would keep a boot-until-NoValidHost loop busy for minutes.
            preloaded = self.api.api_get('/flavors?is_public=None')
            for flavor in preloaded.body['flavors']:
                self.api.delete_flavor(flavor['id'])
        for flavor in scenario.flavors:
            self.create_flavor(flavor)
        for aggregate in scenario.aggregates:
            self.create_aggregate(aggregate)
        for boot in scenario.servers:
            flavor_id = self._flavor_id(boot.flavor)
            for _ in range(boot.count):
                server = self.boot(flavor_id, host=boot.host)
                if boot.soft_deleted:
                    self.soft_delete(server['id'])
        for state in scenario.services:
            self.set_service_state(state)

    def _flavor_id(self, name):
        if name not in self.flavor_ids:
            listed = self.api.api_get('/flavors?is_public=None')
            for flavor in listed.body['flavors']:
                self.flavor_ids.setdefault(flavor['name'], flavor['id'])
        return self.flavor_ids[name]

    def create_flavor(self, flavor):
        body = {'name': flavor.name, 'vcpus': flavor.vcpus,
                'ram': flavor.ram, 'disk': flavor.disk,
                'OS-FLV-EXT-DATA:ephemeral': flavor.ephemeral,
                'swap': flavor.swap,
                'os-flavor-access:is_public': flavor.is_public}
        if flavor.id:
            body['id'] = flavor.id
        created = self.api.post_flavor({'flavor': body})
        if flavor.extra_specs:
            self.api.post_extra_spec(created['id'],
                                     {'extra_specs': flavor.extra_specs})
        for project in flavor.projects:
            self.api.api_post('/flavors/%s/action' % created['id'],
                              {'addTenantAccess': {'tenant': project}})
        self.flavor_ids[flavor.name] = created['id']
        return created

    def create_aggregate(self, aggregate):
        created = self.api.post_aggregate({'aggregate': {
            'name': aggregate.name,
            'availability_zone': aggregate.availability_zone}})
        for host in aggregate.hosts:
            self.api.add_host_to_aggregate(created['id'], host)
        if aggregate.metadata:
            self.api.post_aggregate_action(created['id'], {
                'set_metadata': {'metadata': aggregate.metadata}})
        self.aggregate_ids[aggregate.name] = created['id']
        return created

    def boot(self, flavor_id, host=None, timeout=60):
        """Boot one server and wait for ACTIVE; scenario set-up only."""
        body = {'name': 'scenario-%s' % flavor_id, 'imageRef': IMAGE_ID,
                'flavorRef': flavor_id, 'networks': 'none'}
        if host:
            body['host'] = host
        server = self.api.post_server({'server': body})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            server = self.api.get_server(server['id'])
            if server['status'] == 'ACTIVE':
                return server
            if server['status'] == 'ERROR':
                raise CloudError('server of flavor %s on %s failed: %s' % (
                    flavor_id, host, server.get('fault')))
            time.sleep(0.02)
        raise CloudError('server %s not ACTIVE in %ss' % (server['id'],
                                                          timeout))

    def soft_delete(self, server_id, timeout=60):
        """Delete a server as a cloud with reclaim_instance_interval does.

        The interval is set for this delete only: the tests' own deletes
        must free what they used.
        """
        self._case.flags(reclaim_instance_interval=3600)
        try:
            self.api.delete_server(server_id)
            deadline = time.monotonic() + timeout
            while self.api.get_server(server_id)['status'] != 'SOFT_DELETED':
                if time.monotonic() > deadline:
                    raise CloudError('server %s not SOFT_DELETED in %ss'
                                     % (server_id, timeout))
                time.sleep(0.02)
        finally:
            self._case.flags(reclaim_instance_interval=0)

    def _service_id(self, host):
        services = self.api.get_services(binary='nova-compute', host=host)
        if not services:
            raise CloudError('no nova-compute service on %s' % host)
        return services[0]['id']

    def set_service_state(self, state):
        """Disable and/or force down a compute through the real API."""
        service_id = self._service_id(state.host)
        old = self.api.microversion
        self.api.microversion = '2.53'
        try:
            if state.disabled:
                self.api.put_service(service_id, {
                    'status': 'disabled',
                    'disabled_reason': state.reason or 'scenario'})
            if state.stop:
                self.stop_compute(state.host)
            if state.forced_down:
                self.api.put_service(service_id, {'forced_down': True})
        finally:
            self.api.microversion = old

    def placement_app(self):
        """A Placement WSGI app on the same database as Nova's client."""
        from placement import deploy
        return deploy.deploy(self.placement.conf_fixture.conf)

    def summary(self):
        hosts = collections.OrderedDict()
        for name in self.computes:
            hosts[name] = {'node': driver.HOSTS[name].node,
                           'running': name not in self.stopped}
        return hosts

    def stop(self):
        """Stop services and drop the in-memory state."""
        if self._case is not None:
            try:
                self._case.doCleanups()
            except api_client.OpenStackApiException:
                pass
            self._case = None
        if self._cells_dir:
            shutil.rmtree(self._cells_dir, ignore_errors=True)
            self._cells_dir = None

    def cell_database(self):
        """The SQLAlchemy URL of cell1's database, or None in memory.

        As a deployer gives it to flavor-exporter's [openstack]
        cell_database_connections.
        """
        from nova.db.main import api as main_db_api
        cell = objects.CellMapping.get_by_uuid(
            nova_context.get_admin_context(), _CELL1)
        url = main_db_api.create_context_manager(
            cell.database_connection).writer.get_engine().url
        return None if not url.database else url.render_as_string(
            hide_password=False)
