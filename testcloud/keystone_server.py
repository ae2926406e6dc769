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

"""Run a real Keystone on a 127.0.0.1 ephemeral port until SIGTERM.

    KEYSTONE_PYTHON keystone_server.py --workdir DIR --ready-file FILE \\
        --admin-password=PW --member-password=PW

Run by path with Keystone's own interpreter (keystone==30.0.0 in a venv of
its own): it imports nothing from flavor_exporter, whose dependencies that
venv does not have. It does what a deployer does: writes keystone.conf,
``keystone-manage db_sync``, ``fernet_setup``, ``credential_setup``,
``bootstrap``, serves the public app, and adds a member project and user.
The ready file (JSON) has the URL and the credentials.
"""

import argparse
import json
import os
import signal
import sys
import threading
import urllib.request

# Run by path, this file's folder would come first on sys.path and its
# neighbours could shadow real packages.
sys.path = [p for p in sys.path
            if os.path.abspath(p or '.') != os.path.dirname(
                os.path.abspath(__file__))]

import socketserver  # noqa: E402
from wsgiref import simple_server  # noqa: E402

REGION = 'RegionOne'
CONF_TEMPLATE = """\
[DEFAULT]
use_stderr = true
[database]
connection = sqlite:///{workdir}/keystone.db
[fernet_tokens]
key_repository = {workdir}/fernet-keys
[fernet_receipts]
key_repository = {workdir}/fernet-keys
[credential]
key_repository = {workdir}/credential-keys
[token]
provider = fernet
[cache]
enabled = true
backend = oslo_cache.dict
"""
# [cache]: as deployers run Keystone, with its cache (one process here, so
# an in-memory one, invalidated by the writes it sees). Without it every
# request validated its caller's token in SQL, role assignments and all:
# Nova's unified-limits lookups and the oracle's polls made Keystone take
# 3.4 s of CPU per server booted as a member (1.2 s as the admin); with
# it, 0.3 s and 0.05 s.


class _QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, format, *args):
        """Keystone logs each request itself."""


class _ThreadingServer(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True


def _manage(conf_file, *command):
    """Run one keystone-manage command in this process.

    Each command re-parses the global CONF, so its parsed state is cleared
    first; this saves the ~1.5 s import of a keystone-manage process each.
    """
    from keystone.cmd import cli
    from keystone.conf import CONF
    CONF.clear()
    cli.main(argv=['keystone-manage', '--config-file', conf_file] +
             list(command))


def _request(url, body=None, token=None):
    headers = {'Content-Type': 'application/json'}
    if token:
        headers['X-Auth-Token'] = token
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers=headers,
                                 method='POST' if data else 'PUT')
    with urllib.request.urlopen(req, timeout=30) as resp:
        payload = resp.read()
        return resp.headers, json.loads(payload) if payload else None


def _add_member(url, admin_password, user, password, project):
    """Create a non-admin project and user through the REST API."""
    headers, _body = _request(url + '/v3/auth/tokens', {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': 'admin', 'domain': {'id': 'default'},
            'password': admin_password}}},
        'scope': {'project': {'name': 'admin',
                              'domain': {'id': 'default'}}}}})
    token = headers['X-Subject-Token']
    _h, body = _request(url + '/v3/projects', {'project': {
        'name': project, 'domain_id': 'default'}}, token)
    project_id = body['project']['id']
    _h, body = _request(url + '/v3/users', {'user': {
        'name': user, 'password': password, 'domain_id': 'default',
        'default_project_id': project_id}}, token)
    user_id = body['user']['id']
    with urllib.request.urlopen(urllib.request.Request(
            url + '/v3/roles?name=member',
            headers={'X-Auth-Token': token}), timeout=30) as resp:
        role_id = json.loads(resp.read())['roles'][0]['id']
    _request('%s/v3/projects/%s/users/%s/roles/%s' % (
        url, project_id, user_id, role_id), token=token)


def _add_system_reader(url, admin_password, user, password):
    """A user with the reader role on the system: reads everything."""
    headers, _body = _request(url + '/v3/auth/tokens', {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': 'admin', 'domain': {'id': 'default'},
            'password': admin_password}}},
        'scope': {'system': {'all': True}}}})
    token = headers['X-Subject-Token']
    _h, body = _request(url + '/v3/users', {'user': {
        'name': user, 'password': password, 'domain_id': 'default'}}, token)
    user_id = body['user']['id']
    with urllib.request.urlopen(urllib.request.Request(
            url + '/v3/roles?name=reader',
            headers={'X-Auth-Token': token}), timeout=30) as resp:
        role_id = json.loads(resp.read())['roles'][0]['id']
    _request('%s/v3/system/users/%s/roles/%s' % (url, user_id, role_id),
             token=token)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--workdir', required=True)
    parser.add_argument('--ready-file', required=True)
    parser.add_argument('--admin-password', required=True)
    parser.add_argument('--member-password', required=True)
    parser.add_argument('--parent-pid', type=int, default=0)
    args = parser.parse_args()

    workdir = os.path.abspath(args.workdir)
    for sub in ('fernet-keys', 'credential-keys'):
        os.makedirs(os.path.join(workdir, sub), mode=0o700, exist_ok=True)
    conf_file = os.path.join(workdir, 'keystone.conf')
    with open(conf_file, 'w') as f:
        f.write(CONF_TEMPLATE.format(workdir=workdir))

    # Bind first: bootstrap registers the identity endpoint with our port.
    httpd = simple_server.make_server('127.0.0.1', 0, None,
                                      server_class=_ThreadingServer,
                                      handler_class=_QuietHandler)
    url = 'http://127.0.0.1:%d' % httpd.server_address[1]

    user, group = str(os.getuid()), str(os.getgid())
    _manage(conf_file, 'db_sync')
    _manage(conf_file, 'fernet_setup', '--keystone-user', user,
            '--keystone-group', group)
    _manage(conf_file, 'credential_setup', '--keystone-user', user,
            '--keystone-group', group)
    # "=" form: a generated password may start with "-".
    _manage(conf_file, 'bootstrap',
            '--bootstrap-password=' + args.admin_password,
            '--bootstrap-region-id', REGION,
            '--bootstrap-admin-url', url, '--bootstrap-internal-url', url,
            '--bootstrap-public-url', url)

    from keystone.cmd import cli
    from keystone.common import provider_api
    from keystone.conf import CONF
    from keystone.server import wsgi
    # Undo what keystone-manage left in this process: its sub-command option
    # (the app would require it) and the locked registry of backends.
    CONF.clear()
    CONF.unregister_opt(cli.command_opt)
    provider_api.ProviderAPIs._clear_registry_instances()
    os.environ['OS_KEYSTONE_CONFIG_FILES'] = conf_file
    # The app parses sys.argv as oslo.config options; ours are not.
    sys.argv = sys.argv[:1]
    httpd.set_app(wsgi.initialize_public_application())
    threading.Thread(target=httpd.serve_forever, daemon=True).start()

    _add_member(url, args.admin_password, 'demo', args.member_password,
                'demo')
    _add_system_reader(url, args.admin_password, 'auditor',
                       args.member_password)
    ready = {'url': url, 'region': REGION, 'pid': os.getpid(),
             'admin_user': 'admin', 'admin_password': args.admin_password,
             'admin_project': 'admin', 'member_user': 'demo',
             'member_password': args.member_password,
             'member_project': 'demo', 'reader_user': 'auditor',
             'reader_password': args.member_password}
    tmp = args.ready_file + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(ready, f)
    os.rename(tmp, args.ready_file)

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    original_ppid = os.getppid()
    while not stop.wait(0.5):
        # Exit with the test runner that started us, even if it was killed.
        if os.getppid() != original_ppid:
            break
        if args.parent_pid:
            try:
                os.kill(args.parent_pid, 0)
            except ProcessLookupError:
                break
    httpd.shutdown()
    os._exit(0)


if __name__ == '__main__':
    main()
