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
"""Authentication: keystonemiddleware, except on public routes.

With ``[DEFAULT] auth_strategy = keystone`` every request needs a valid
token, except those a monitor, a load balancer or a browser makes without
one: the version document, the healthcheck, and the API description with
its Swagger UI (they describe the API and hold no cloud data): the routes
the route table marks public. The idea is ironic's auth_public_routes
middleware.
"""

import ipaddress
import socket

from oslo_log import log

from flavor_exporter.api.middleware import auth_errors

LOG = log.getLogger(__name__)


class PublicRoutes:
    """Sends public routes to app as they are, the rest through auth."""

    def __init__(self, app, auth_app, router):
        """router: the routes.Router, which knows the public routes."""
        self._app = app
        self._auth_app = auth_app
        self._router = router

    def __call__(self, environ, start_response):
        if self._router.public(environ.get('PATH_INFO') or '/'):
            return self._app(environ, start_response)
        return self._auth_app(environ, start_response)


def wrap(app, conf, router):
    """app behind the authentication conf's auth_strategy selects."""
    if conf.auth_strategy != 'keystone':
        return app
    # Imported here: it costs a quarter of a second per API process, for
    # nothing under noauth.
    from keystonemiddleware import auth_token
    return PublicRoutes(app, auth_errors.AuthErrors(
        auth_token.AuthProtocol(app, {'oslo_config_config': conf})),
        router)


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


def warn_if_open(conf):
    """Log a warning when the API will serve beyond loopback unauthenticated.

    Returns True when it warned.
    """
    if conf.auth_strategy != 'noauth' or is_loopback(conf.api.host_ip):
        return False
    LOG.warning('Serving on %s without authentication: anyone who reaches '
                'the port can read the capacity data. Set [DEFAULT] '
                'auth_strategy = keystone, or bind to loopback behind a '
                'proxy that authenticates.', conf.api.host_ip)
    return True
