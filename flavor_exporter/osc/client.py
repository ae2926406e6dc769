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
"""The capacity REST API (/v2/flavors/) over a keystoneauth session."""

import urllib.parse

from keystoneauth1 import adapter


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
        # the API's JSON error message.
        return self._adapter.get(path, params=params).json()

    def list_flavors(self, gpu=None, availability_zone=None):
        """The /v2/flavors/ document; zone figures only with a zone."""
        params = {}
        if gpu is not None:
            params['gpu'] = 'true' if gpu else 'false'
        if availability_zone:
            params['availability_zone'] = availability_zone
        return self._get('/v2/flavors/', params)

    def get_flavor(self, flavor):
        """The /v2/flavors/{id or name} document."""
        return self._get('/v2/flavors/%s'
                         % urllib.parse.quote(flavor, safe=''))
