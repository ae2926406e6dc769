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
"""The capacity REST API (/v3/) over a keystoneauth session."""

import time
import urllib.parse

from keystoneauth1 import adapter
from keystoneauth1 import exceptions as ks_exc
from osc_lib import exceptions

#: Seconds to wait for an answer: a cold cache answers 503 at once, so a
#: request that takes longer is an endpoint that does not answer.
TIMEOUT = 30
#: Times a check is asked while the service answers 503 (computing).
CHECK_ATTEMPTS = 4


class CapacityClient:
    """GETs on the capacity service found in the service catalog.

    session: the user's keystoneauth session (the token and the catalog);
    endpoint_override: a URL instead of the catalog's.
    """

    service_type = 'capacity'

    def __init__(self, session, interface=None, region_name=None,
                 endpoint_override=None):
        self._adapter = adapter.Adapter(
            session, service_type=self.service_type, interface=interface,
            region_name=region_name, endpoint_override=endpoint_override)

    def _get(self, path, params=None):
        # keystoneauth raises its HttpError subclasses on 4xx/5xx, with
        # the API's JSON error message, and ConnectTimeout/ReadTimeout.
        return self._json(self._adapter.get(path, params=params,
                                            timeout=TIMEOUT))

    def _json(self, response):
        try:
            return response.json()
        except ValueError:
            # An endpoint that is not flavor-exporter's (a web server's
            # HTML page, a proxy's error page).
            raise exceptions.CommandError(
                '%s answered %s, not JSON: is it the capacity service '
                '(flavor-exporter)? Check the catalog\'s "capacity" '
                'endpoint or --os-capacity-endpoint-override' % (
                    response.url,
                    response.headers.get('Content-Type') or 'no content '
                    'type')) from None

    def list_clouds(self):
        """The /v3/clouds/ document: the clouds the service serves."""
        return self._get('/v3/clouds/')

    @staticmethod
    def _base(cloud):
        """Where a cloud's routes start: /v3/clouds/NAME, or /v3.

        Without a cloud, the unprefixed routes: the service's default
        cloud, and the only routes of a service older than clouds.
        """
        if cloud is None:
            return '/v3'
        return '/v3/clouds/%s' % urllib.parse.quote(cloud, safe='')

    def list_flavors(self, gpu=None, availability_zone=None, cloud=None):
        """The /v3/flavors/ document; zone figures only with a zone."""
        params = {}
        if gpu is not None:
            params['gpu'] = 'true' if gpu else 'false'
        if availability_zone:
            params['availability_zone'] = availability_zone
        return self._get(self._base(cloud) + '/flavors/', params)

    def list_project_flavors(self, project_id, cloud=None):
        """/v3/projects/ID/flavors/: what one project can start."""
        return self._get('%s/projects/%s/flavors/' % (
            self._base(cloud), urllib.parse.quote(project_id, safe='')))

    def list_gpus(self, cloud=None):
        """The /v3/gpus/ document: the GPU devices by type."""
        return self._get(self._base(cloud) + '/gpus/')

    def get_gpu(self, gpu_type, cloud=None):
        """The /v3/gpus/{type} document."""
        return self._get('%s/gpus/%s' % (
            self._base(cloud), urllib.parse.quote(gpu_type, safe='')))

    def check(self, body, cloud=None):
        """POST /v3/checks: the answer to a set check (its body)."""
        return self.ask('checks', body, cloud)

    def whatif(self, body, cloud=None):
        """POST /v3/whatif: the capacity after changes (its body)."""
        return self.ask('whatif', body, cloud)

    def defrag(self, body, cloud=None):
        """POST /v3/defrag: the live migrations that make room."""
        return self.ask('defrag', body, cloud)

    def ask(self, route, body, cloud=None):
        """POST /v3/<route>: a request the service's worker answers.

        A 503 while the service computes the answer is asked again, as
        its Retry-After says, a few times: the service keeps the answer.
        """
        for attempt in range(CHECK_ATTEMPTS):
            try:
                return self._json(self._adapter.post(
                    '%s/%s' % (self._base(cloud), route), json=body,
                    timeout=TIMEOUT))
            except ks_exc.ServiceUnavailable as exc:
                if attempt == CHECK_ATTEMPTS - 1:
                    raise
                time.sleep(min(getattr(exc, 'retry_after', 0) or 2, 10))

    def get_status(self, cloud=None):
        """The /v3/status document: the worker's (admins, system readers)."""
        return self._get(self._base(cloud) + '/status')

    def get_flavor(self, flavor, cloud=None):
        """The /v3/flavors/{id or name} document."""
        return self._get('%s/flavors/%s' % (
            self._base(cloud), urllib.parse.quote(flavor, safe='')))
