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

"""Run a Nova + Placement test cloud until SIGTERM.

    python -m testcloud.server \\
        --scenario predecessor --ready-file /tmp/x/ready.json \\
        [--keystone-file /tmp/x/keystone.json]

The interpreter is one release's (``cloud_venv.py``); what differs between
releases is in ``nova_release.py``. When the cloud is up, the ready file
(JSON) names the URLs, the clouds.yaml written beside it and the hosts.
Nothing listens anywhere but 127.0.0.1.
"""

import argparse
import json
import logging
import os
import signal
import sys
import threading
import time
import traceback

#: Seconds the shutdown may take before the process exits anyway.
STOP_GRACE = 10


def _prepare_environment():
    """Choose threading over eventlet before anything imports Nova.

    Nova patches (or poisons) eventlet on first import of its functional
    test package; futurist imports eventlet if it can, so the decision must
    be made first. The oslotest variables would otherwise put a SIGALRM
    timeout on the whole cloud or swallow its output.
    """
    for name in ('OS_TEST_TIMEOUT', 'OS_STDOUT_CAPTURE', 'OS_STDERR_CAPTURE',
                 'OS_LOG_CAPTURE'):
        os.environ[name] = '0'
    from testcloud import nova_release
    nova_release.choose_concurrency()
    nova_release.pool_database_connections()


def _write_json(path, data):
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(data, f, indent=2, sort_keys=True)
    os.rename(tmp, path)


def clouds_yaml(cloud_name, compute_url, placement_url, keystone=None):
    """The clouds.yaml content (a dict) for this cloud.

    Without Keystone: ``admin_token`` auth with the stub tokens and endpoint
    overrides. With Keystone: password auth for the admin and for the member
    user; the catalog gives the endpoints.
    """
    if keystone is None:
        def entry(token):
            return {'auth_type': 'admin_token',
                    'auth': {'endpoint': compute_url, 'token': token},
                    'compute_endpoint_override': compute_url,
                    'placement_endpoint_override': placement_url,
                    'region_name': 'RegionOne'}
        return {'clouds': {cloud_name: entry('admin:admin'),
                           cloud_name + '-member': entry('demo:demo')}}

    def entry(user, password, project):
        return {'auth_type': 'password',
                'auth': {'auth_url': keystone['url'], 'username': user,
                         'password': password, 'project_name': project,
                         'user_domain_name': 'Default',
                         'project_domain_name': 'Default'},
                'identity_api_version': 3,
                'region_name': 'RegionOne'}
    return {'clouds': {
        cloud_name: entry(keystone['admin_user'], keystone['admin_password'],
                          keystone['admin_project']),
        cloud_name + '-member': entry(keystone['member_user'],
                                      keystone['member_password'],
                                      keystone['member_project'])}}


def _parent_gone(original_ppid, parent_pid):
    """True once the test runner that started us has died.

    Reparenting shows it even when a wrapper script sits in between.
    """
    if os.getppid() != original_ppid:
        return True
    if parent_pid:
        try:
            os.kill(parent_pid, 0)
        except ProcessLookupError:
            return True
    return False


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--scenario', required=True,
                        help='scenario name (scenarios/NAME.yaml) or path')
    parser.add_argument('--ready-file', required=True,
                        help='where to write the JSON ready document')
    parser.add_argument('--cloud-name', default='testcloud')
    parser.add_argument('--keystone-file',
                        help="Keystone's ready file: put Nova and Placement "
                             "behind keystonemiddleware against it")
    parser.add_argument('--notification-url',
                        help="send Nova's notifications to this bus "
                             "(an oslo.messaging transport URL)")
    parser.add_argument('--notification-format', default='both',
                        choices=['both', 'versioned', 'unversioned'],
                        help="nova.conf's [notifications] "
                             "notification_format with --notification-url")
    parser.add_argument('--parent-pid', type=int, default=0,
                        help='exit when this process (test runner) is gone')
    parser.add_argument('--log-level', default=os.environ.get(
        'FLAVOR_EXPORTER_CLOUD_LOG_LEVEL', 'INFO'))
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        run(args)
    except BaseException:
        # Nova's service threads are not daemons: without an explicit exit
        # a failed start-up would leave the process running.
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)


def run(args):
    started = time.monotonic()
    _prepare_environment()

    import yaml

    from testcloud import control
    from testcloud import fake_messaging
    from testcloud import keystone_catalog
    from testcloud import nova_cloud
    from testcloud import nova_release
    from testcloud import scenario
    from testcloud import webserver

    keystone = None
    if args.keystone_file:
        with open(args.keystone_file) as f:
            keystone = json.load(f)

    fake_messaging.install()
    cloud = nova_cloud.NovaCloud(
        scenario.load(args.scenario), log_level=args.log_level.upper(),
        notifications=args.notification_url and (
            args.notification_url, args.notification_format))
    cloud.start()

    compute_app = cloud.compute_app
    placement_app = cloud.placement_app()
    if keystone:
        compute_app = webserver.keystone_auth(compute_app, keystone)
        placement_app = webserver.placement_keystone_auth(placement_app,
                                                          keystone)
    else:
        compute_app = webserver.TokenAuth(compute_app)
    servers = [webserver.LoopbackServer(app).start() for app in (
        compute_app, placement_app, control.ControlApp(cloud))]
    compute_url = servers[0].url + '/v2.1'
    placement_url = servers[1].url
    compute_ids = (None, None)
    if keystone:
        compute_ids = keystone_catalog.register(
            keystone, compute_url, placement_url)['compute']
        cloud.use_keystone_limits(keystone, compute_ids[1])

    workdir = os.path.dirname(os.path.abspath(args.ready_file))
    clouds_path = os.path.join(workdir, 'clouds.yaml')
    with open(clouds_path, 'w') as f:
        yaml.safe_dump(clouds_yaml(args.cloud_name, compute_url,
                                   placement_url, keystone), f)
    _write_json(args.ready_file, {
        'scenario': cloud.scenario.name,
        'cloud_name': args.cloud_name,
        'member_cloud_name': args.cloud_name + '-member',
        'clouds_yaml': clouds_path,
        'compute_url': compute_url,
        'placement_url': placement_url,
        'control_url': servers[2].url + '/control',
        'keystone_url': keystone['url'] if keystone else None,
        'compute_service_id': compute_ids[0],
        'compute_endpoint_id': compute_ids[1],
        'token': None if keystone else 'admin:admin',
        'hosts': cloud.summary(),
        'enabled_filters': cloud.enabled_filters,
        'versions': nova_release.versions(),
        'cell_database': cloud.cell_database(),
        'pid': os.getpid(),
        'startup_seconds': round(time.monotonic() - started, 2),
    })
    print('cloud %s ready: compute %s placement %s clouds.yaml %s' % (
        cloud.scenario.name, compute_url, placement_url, clouds_path),
        flush=True)

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    original_ppid = os.getppid()
    while not stop.wait(0.5):
        if _parent_gone(original_ppid, args.parent_pid):
            break

    # Cleanup removes the sqlite files Nova's fixtures made; it must not be
    # able to keep a test run waiting.
    threading.Timer(STOP_GRACE, os._exit, args=(0,)).start()
    for server in servers:
        server.stop()
    cloud.stop()
    logging.shutdown()
    os._exit(0)


if __name__ == '__main__':
    main()
