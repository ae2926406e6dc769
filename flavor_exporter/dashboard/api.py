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
"""The capacity API as the logged-in Horizon user reads it.

The same client as the openstack CLI plugin's (osc/client.py), given a
keystoneauth session of the user's token and the catalog's "capacity"
endpoint: the API's policy decides what each user sees. Every way the API
can fail is turned into a CapacityError whose text is one line for a
Horizon message: a page never becomes Horizon's error page because the
capacity service is down, busy (429), stale (503) or refuses (403).
"""

import datetime
import re

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from horizon import exceptions as horizon_exc
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
from openstack_dashboard.api import base
from osc_lib import exceptions as osc_exc

from flavor_exporter.osc import client as osc_client
from flavor_exporter.osc import plugin

SERVICE_TYPE = plugin.SERVICE_TYPE
_STATUS_SUFFIX = re.compile(r' \(HTTP \d{3}\)')


class CapacityError(Exception):
    """The API did not answer with figures; str() is the user's message.

    status: the HTTP status the API answered, None when it did not answer.
    """

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


def client(request):
    """A CapacityClient with request's user token and catalog endpoint."""
    try:
        endpoint = base.url_for(request, SERVICE_TYPE)
    except horizon_exc.ServiceCatalogException:
        raise CapacityError(_('The service catalog has no capacity '
                              'service in this region.')) from None
    verify = not getattr(settings, 'OPENSTACK_SSL_NO_VERIFY', False)
    cacert = getattr(settings, 'OPENSTACK_SSL_CACERT', None)
    if verify and cacert:
        verify = cacert
    session = ks_session.Session(
        auth=token_endpoint.Token(endpoint, request.user.token.id),
        verify=verify)
    return osc_client.CapacityClient(session, endpoint_override=endpoint)


def _message(exc):
    """A one-line reason from a keystoneauth error of the API's answer."""
    status = getattr(exc, 'http_status', None)
    text = str(getattr(exc, 'details', None)
               or getattr(exc, 'message', None) or exc).strip()
    text = text.splitlines()[0] if text else ''
    # keystoneauth appends the status, which the message says already.
    text = _STATUS_SUFFIX.sub('', text)
    if status == 503:
        retry = getattr(exc, 'retry_after', None)
        return CapacityError(
            _('The capacity service has no current figures (HTTP 503: '
              '%(text)s)%(retry)s.') % {
                'text': text,
                'retry': (_('; try again in %s s') % retry) if retry else ''},
            status)
    if status == 429:
        return CapacityError(
            _('The capacity service is busy with other requests (HTTP 429:'
              ' %s); the page tries again by itself.') % text, status)
    if status in (401, 403):
        return CapacityError(
            _('The capacity service does not let you read this (HTTP '
              '%(status)d: %(text)s).') % {'status': status, 'text': text},
            status)
    if status:
        return CapacityError(_('The capacity service answered HTTP '
                               '%(status)d: %(text)s') % {
                                   'status': status, 'text': text}, status)
    return CapacityError(_('The capacity service did not answer: %s')
                         % text)


def call(request, method, *args, **kwargs):
    """client(request).method(*args, **kwargs), errors as CapacityError."""
    try:
        return getattr(client(request), method)(*args, **kwargs)
    except ks_exc.ClientException as exc:
        # HttpError (an answer), ConnectFailure, timeouts: all of them.
        raise _message(exc) from None
    except osc_exc.CommandError as exc:
        # Not JSON: the catalog's endpoint is not flavor-exporter's.
        raise CapacityError(str(exc)) from None


def project_flavors(request):
    """The flavors the user's project can start (its own project only)."""
    return call(request, 'list_project_flavors', request.user.project_id)


def flavors(request):
    return call(request, 'list_flavors')


def gpus(request):
    return call(request, 'list_gpus')


def status(request):
    return call(request, 'get_status')


def check(request, body):
    return call(request, 'check', body)


def parse_time(text):
    """An API timestamp (ISO 8601, UTC) as an aware datetime, or None."""
    if not text:
        return None
    try:
        value = datetime.datetime.fromisoformat(text.replace('Z', '+00:00'))
    except ValueError:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    return value


def age_seconds(text, now=None):
    """Whole seconds since an API timestamp, None without one."""
    value = parse_time(text)
    if value is None:
        return None
    now = now or datetime.datetime.now(datetime.timezone.utc)
    return max(0, int((now - value).total_seconds()))
