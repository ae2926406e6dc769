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
"""Authentication: who the caller is, by ``[DEFAULT] auth_strategy``.

- ``keystone``: keystonemiddleware validates the token. With ``[DEFAULT]
  http_basic_auth_user_file`` set, a request that carries HTTP Basic
  credentials and no token is checked against that file instead: what
  cannot get a Keystone token (Prometheus, a portal's backend) still gets
  in, under its own name.
- ``http_basic``: every request needs HTTP Basic credentials of that
  file, as Ironic's strategy of the same name.
- ``noauth``: nobody is authenticated, no policy applies.

Authentication wraps the Pecan application, as in ironic; the routes the
table marks public (the version documents, the healthcheck, the API
description) skip it either way (PublicRoutes, routes.is_public). What an
authenticated caller may read is oslo.policy's to decide (access.py,
hooks.py).
"""

import ipaddress
import socket

from oslo_config import cfg
from oslo_log import log

from flavor_exporter._i18n import _
from flavor_exporter.api.middleware import auth_errors
from flavor_exporter.api.middleware import basic_auth
from flavor_exporter.api import policy
from flavor_exporter.api import routes
from flavor_exporter.common import exceptions

LOG = log.getLogger(__name__)


def check(conf):
    """exceptions.InvalidOption when authentication cannot start as set.

    Checked before the API serves, so that a missing file is one line
    at start, not a 503 on every request.
    """
    policy.check_policy_file(conf)
    if conf.auth_strategy == 'keystone' and not _keystone_set(conf):
        raise exceptions.InvalidOption(_(
            '[DEFAULT] auth_strategy = keystone (the default) needs a '
            '[keystone_authtoken] section (www_authenticate_uri, auth_type, '
            'auth_url and the service user; README.rst "Authentication"); '
            'or set auth_strategy = http_basic, or noauth on loopback'))
    path = conf.http_basic_auth_user_file
    if conf.auth_strategy == 'http_basic' and not path:
        raise exceptions.InvalidOption(_(
            '[DEFAULT] auth_strategy = http_basic needs [DEFAULT] '
            'http_basic_auth_user_file: name an htpasswd file with bcrypt '
            'entries (htpasswd -B)'))
    if path and conf.auth_strategy != 'noauth':
        try:
            basic_auth.check_user_file(path)
        except ValueError as exc:
            # The reason names the line and the user of a bad entry.
            raise exceptions.InvalidOption(_(
                '[DEFAULT] http_basic_auth_user_file %(path)s: %(reason)s'
            ) % {'path': path, 'reason': exc}) from None


def _keystone_set(conf):
    """Whether [keystone_authtoken] says where tokens are validated.

    keystonemiddleware needs an auth plugin (auth_type), or at least
    www_authenticate_uri, else every request fails; a section whose
    options are all commented out (the sample's) says nothing.
    """
    try:
        group = conf.keystone_authtoken
        return bool(group.www_authenticate_uri or group.auth_type)
    except (cfg.NoSuchOptError, cfg.NoSuchGroupError):
        return 'keystone_authtoken' in conf.list_all_sections()


class _EitherCredentials:
    """Basic credentials to the user file, anything else to Keystone."""

    def __init__(self, keystone, basic):
        self._keystone = keystone
        self._basic = basic

    def __call__(self, environ, start_response):
        if environ.get('HTTP_AUTHORIZATION', '')[:6].lower() == 'basic ' \
                and 'HTTP_X_AUTH_TOKEN' not in environ:
            return self._basic(environ, start_response)
        return self._keystone(environ, start_response)


class PublicRoutes:
    """The public routes' requests to app, the others to authenticated.

    An unknown path is answered 404 once authenticated, as the routes
    behind authentication are.
    """

    def __init__(self, app, authenticated):
        self._app = app
        self._authenticated = authenticated

    def __call__(self, environ, start_response):
        # PATH_INFO holds the path's bytes as latin-1: the public paths
        # are ASCII, and a non-ASCII one is not public.
        if routes.is_public(environ.get('PATH_INFO') or '/'):
            return self._app(environ, start_response)
        return self._authenticated(environ, start_response)


def authenticating(app, conf):
    """app behind the authentication of conf, its public routes apart."""
    if conf.auth_strategy == 'noauth':
        return app
    return PublicRoutes(app, authenticated(app, conf))


def authenticated(app, conf):
    """app behind the authentication of conf (not noauth)."""
    basic = None
    if conf.http_basic_auth_user_file:
        basic = basic_auth.BasicAuth(app, conf.http_basic_auth_user_file,
                                     threads=conf.api.threads)
    if conf.auth_strategy == 'http_basic':
        return basic
    # Imported here: it costs a quarter of a second per API process, for
    # nothing without Keystone.
    from keystonemiddleware import auth_token
    keystone = auth_errors.AuthErrors(
        auth_token.AuthProtocol(app, {'oslo_config_config': conf}))
    return keystone if basic is None else _EitherCredentials(keystone, basic)


def is_loopback(host):
    """Whether host only ever means this machine (names are resolved)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except OSError:
        return False
    return bool(addresses) and all(
        ipaddress.ip_address(a.split('%')[0]).is_loopback
        for a in addresses)


def check_exposure(conf):
    """exceptions.InvalidOption when noauth would serve beyond loopback.

    For the commands that bind [api] host_ip; a warning when the operator
    allowed it ([api] noauth_beyond_loopback).
    """
    if conf.auth_strategy != 'noauth' or is_loopback(conf.api.host_ip):
        return
    if not conf.api.noauth_beyond_loopback:
        raise exceptions.InvalidOption(_(
            '[DEFAULT] auth_strategy = noauth on [api] host_ip = %s would '
            'let anyone who reaches the port read the capacity data; set '
            'auth_strategy = keystone or http_basic, bind to loopback, or '
            'set [api] noauth_beyond_loopback = true (a port published on '
            'loopback only, a proxy that authenticates)') % conf.api.host_ip)
    LOG.warning('Serving on %s without authentication ([api] '
                'noauth_beyond_loopback): anyone who reaches the port can '
                'read the capacity data.', conf.api.host_ip)
