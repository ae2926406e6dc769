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
"""The requests session under keystoneauth, lean for the worker's GETs.

A cold refresh of a large cloud is some 19,000 GETs (one inventories read
per resource provider; Placement has no bulk read), so what requests does
around each call is most of a refresh's own CPU time. Two things requests
repeats on every call are dropped here:

- the environment: with trust_env it looks up the proxy variables and
  ~/.netrc on every call; here an endpoint's proxies (scheme and host) are
  resolved once, by requests' own rules (http_proxy, https_proxy,
  all_proxy, no_proxy), and the CA bundle variables (REQUESTS_CA_BUNDLE,
  CURL_CA_BUNDLE) are read once, at creation. ~/.netrc is not consulted:
  OpenStack APIs authenticate by token.
- the general machinery of Session.request and Session.send (merging
  every setting, cookies, hooks, redirect bookkeeping) for what
  keystoneauth asks: a GET without a body that does not follow redirects
  (keystoneauth follows them itself). Such a request goes straight to the
  transport adapter keystoneauth mounted, which sends it, maps urllib3's
  errors to requests' and builds the Response, as with Session.send.
  Anything else, or a session holding cookies, takes requests' own path.
"""

import datetime
import os
import time
import urllib.parse

import requests
from requests import cookies as requests_cookies
from requests import structures


class LeanSession(requests.Session):
    """A requests session that reads the environment once, sends GETs lean."""

    def __init__(self):
        super().__init__()
        self.trust_env = False
        self._ca_bundle = (os.environ.get('REQUESTS_CA_BUNDLE')
                           or os.environ.get('CURL_CA_BUNDLE'))
        self._proxies_by_origin = {}
        # (origin, proxies, verify, cert) -> what merge_environment_settings
        # answers for them: the same on every call to one endpoint.
        self._settings = {}

    def _environment_proxies(self, url, no_proxy):
        origin = urllib.parse.urlsplit(url)[:2]
        proxies = self._proxies_by_origin.get(origin)
        if proxies is None:
            proxies = requests.utils.get_environ_proxies(url,
                                                         no_proxy=no_proxy)
            self._proxies_by_origin[origin] = proxies
        return proxies

    def merge_environment_settings(self, url, proxies, stream, verify,
                                   cert):
        # What requests.Session does with trust_env, from the cache.
        if proxies is not None:
            for key, value in self._environment_proxies(
                    url, proxies.get('no_proxy')).items():
                proxies.setdefault(key, value)
        if (verify is True or verify is None) and self._ca_bundle:
            verify = self._ca_bundle
        return super().merge_environment_settings(url, proxies, stream,
                                                  verify, cert)

    def request(self, method, url, params=None, data=None, headers=None,
                cookies=None, files=None, auth=None, timeout=None,
                allow_redirects=True, proxies=None, hooks=None, stream=None,
                verify=None, cert=None, json=None):
        if (method.upper() != 'GET' or data or files or json is not None
                or auth or self.auth or cookies or self.cookies or hooks
                or allow_redirects or stream or self.stream
                or isinstance(url, bytes)):
            return super().request(
                method, url, params=params, data=data, headers=headers,
                cookies=cookies, files=files, auth=auth, timeout=timeout,
                allow_redirects=allow_redirects, proxies=proxies,
                hooks=hooks, stream=stream, verify=verify, cert=cert,
                json=json)
        return self._get(url, params, headers, timeout, proxies, verify,
                         cert)

    def _get(self, url, params, headers, timeout, proxies, verify, cert):
        """Session.request for a plain GET, without its general machinery."""
        prepared = requests.PreparedRequest()
        prepared.method = 'GET'
        # requests' own URL preparation: the same encoding of the path and
        # the query as on its general path.
        prepared.prepare_url(url, params)
        # The session's headers, then the call's (None removes one), as
        # requests merges them; keystoneauth's and ours need no checking.
        merged = structures.CaseInsensitiveDict(self.headers)
        for name, value in (headers or {}).items():
            if value is None:
                merged.pop(name, None)
            else:
                merged[name] = value
        prepared.headers = merged
        prepared.body = None
        prepared.hooks = {'response': []}
        settings = self._settings_for(prepared.url, proxies, verify, cert)
        adapter = self.get_adapter(prepared.url)
        started = time.perf_counter()
        response = adapter.send(prepared, timeout=timeout, **settings)
        response.elapsed = datetime.timedelta(
            seconds=time.perf_counter() - started)
        if 'set-cookie' in response.headers:
            # From now on this session holds cookies, and requests' own
            # path sends them back.
            requests_cookies.extract_cookies_to_jar(self.cookies, prepared,
                                                    response.raw)
        response.content  # read now, as Session.send does without stream
        return response

    def _settings_for(self, url, proxies, verify, cert):
        verify = self.verify if verify is None else verify
        cert = self.cert if cert is None else cert
        proxies = dict(self.proxies, **(proxies or {}))
        key = (urllib.parse.urlsplit(url)[:2],
               tuple(sorted(proxies.items())), verify,
               tuple(cert) if isinstance(cert, list) else cert)
        settings = self._settings.get(key)
        if settings is None:
            settings = self._settings[key] = self.merge_environment_settings(
                url, proxies, False, verify, cert)
        return settings
