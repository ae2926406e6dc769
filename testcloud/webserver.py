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

"""Serve WSGI apps on loopback, and the auth shims in front of them.

Nova 34 has no ``noauth2``: its functional fixtures build the request
context from ``X-Auth-User``/``X-Auth-Project-Id``/``X-Roles`` headers.
:class:`TokenAuth` turns a token such as ``admin:admin`` into those headers,
so an out-of-process openstacksdk client connects with ``auth_type:
admin_token``. With a real Keystone, :func:`keystone_auth` puts
keystonemiddleware in front instead and removes the stub headers, so no
client can claim an identity it did not authenticate.

Import this module only after Nova chose its concurrency mode: a wsgiref
server imported before eventlet patching blocks the whole process.
"""

import json
import socketserver
import threading
from wsgiref import simple_server

#: Roles Keystone would give through implied roles.
ADMIN_ROLES = 'admin,member,reader'
MEMBER_ROLES = 'member,reader'

_STUB_HEADERS = ('HTTP_X_AUTH_USER', 'HTTP_X_AUTH_PROJECT_ID', 'HTTP_X_ROLES')


def _json_response(start_response, status, body):
    data = json.dumps(body).encode()
    start_response(status, [('Content-Type', 'application/json'),
                            ('Content-Length', str(len(data)))])
    return [data]


def _is_version_document(environ):
    # Version discovery is public on a real cloud too.
    return environ.get('PATH_INFO', '') in ('', '/')


class TokenAuth(object):
    """Map ``X-Auth-Token: user:project`` onto Nova's stub auth headers.

    The user ``admin`` gets the admin role; everybody else is a member.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        for name in _STUB_HEADERS:
            environ.pop(name, None)
        token = environ.get('HTTP_X_AUTH_TOKEN', '')
        user, _sep, project = token.partition(':')
        if not user:
            if _is_version_document(environ):
                return self.app(environ, start_response)
            return _json_response(start_response, '401 Unauthorized', {
                'error': {'code': 401,
                          'message': 'X-Auth-Token user:project required'}})
        environ['HTTP_X_AUTH_USER'] = user
        environ['HTTP_X_AUTH_PROJECT_ID'] = project or user
        environ['HTTP_X_ROLES'] = (ADMIN_ROLES if user == 'admin'
                                   else MEMBER_ROLES)
        return self.app(environ, start_response)


class _StripStubHeaders(object):
    """Drop client-sent stub headers before real authentication."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        for name in _STUB_HEADERS:
            environ.pop(name, None)
        return self.app(environ, start_response)


class _KeystoneToPlacementNoAuth(object):
    """Hand a Keystone-validated identity to Placement's noauth2 pipeline.

    Placement's app is built once, with ``noauth2``; its NoAuthMiddleware
    reads ``user:project`` from the token and keeps ``X-Roles``. After
    keystonemiddleware validated the real token, the identity it found is
    the one passed on.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if not _is_version_document(environ):
            environ['HTTP_X_AUTH_TOKEN'] = '%s:%s' % (
                environ.get('HTTP_X_USER_ID', ''),
                environ.get('HTTP_X_PROJECT_ID', ''))
        return self.app(environ, start_response)


def keystone_auth(app, keystone, public_paths=('', '/')):
    """Wrap ``app`` in keystonemiddleware validating against ``keystone``.

    ``keystone`` is the dict from Keystone's ready file (``url``,
    ``admin_user``, ``admin_password``, ``admin_project``).
    """
    from keystonemiddleware import auth_token

    conf = {
        'www_authenticate_uri': keystone['url'],
        'auth_url': keystone['url'],
        'auth_type': 'password',
        'username': keystone['admin_user'],
        'password': keystone['admin_password'],
        'project_name': keystone['admin_project'],
        'user_domain_name': 'Default',
        'project_domain_name': 'Default',
        'service_token_roles_required': 'true',
        'include_service_catalog': 'true',
    }
    protected = auth_token.AuthProtocol(app, conf)

    def route(environ, start_response):
        if environ.get('PATH_INFO', '') in public_paths:
            return app(environ, start_response)
        return protected(environ, start_response)
    return _StripStubHeaders(route)


def placement_keystone_auth(app, keystone):
    """Placement behind keystonemiddleware (see _KeystoneToPlacementNoAuth)."""
    return keystone_auth(_KeystoneToPlacementNoAuth(app), keystone)


class _QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, format, *args):
        """Access logs would only fill the cloud's stderr file."""


class _ThreadingServer(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


class LoopbackServer(object):
    """A threaded WSGI server on an ephemeral 127.0.0.1 port."""

    def __init__(self, app, host='127.0.0.1', port=0):
        self.httpd = simple_server.make_server(
            host, port, app, server_class=_ThreadingServer,
            handler_class=_QuietHandler)
        self.port = self.httpd.server_address[1]
        self.url = 'http://%s:%d' % (host, self.port)
        self._thread = threading.Thread(target=self.httpd.serve_forever,
                                        name='wsgi-%d' % self.port,
                                        daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
