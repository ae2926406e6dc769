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
"""OpenStack version documents: what each root of the API serves.

Absolute links, as OpenStack version documents have them: a client
follows them as they are, and behind a TLS-terminating proxy
(http_proxy_to_wsgi) they name the proxy's scheme, host and prefix.
"""

import functools

from flavor_exporter import version


@functools.lru_cache(maxsize=None)
def version_string():
    try:
        return version.version_string()
    except Exception:
        # pbr needs the package metadata or a git checkout.
        return 'unknown'


def versions(base_url):
    """{id: version entry}: what each root of the API serves."""
    return {
        'v3': {'id': 'v3', 'status': 'CURRENT',
               'links': [{'rel': 'self', 'href': base_url + '/v3/'},
                         {'rel': 'flavors', 'href': base_url + '/v3/flavors/'},
                         {'rel': 'gpus', 'href': base_url + '/v3/gpus/'},
                         {'rel': 'status', 'href': base_url + '/v3/status'},
                         {'rel': 'clouds', 'href': base_url + '/v3/clouds/'}]},
        # The OpenStackFlavorExporter's list, which the de.NBI SimpleVM
        # portal reads.
        'v2': {'id': 'v2', 'status': 'SUPPORTED',
               'links': [{'rel': 'self', 'href': base_url + '/v2/'},
                         {'rel': 'flavors',
                          'href': base_url + '/v2/flavors/'}]},
        # The OpenstackGPUService's routes.
        'legacy': {'id': 'legacy', 'status': 'SUPPORTED',
                   'links': [{'rel': 'self',
                              'href': base_url + '/gpus/flavors/'},
                             {'rel': 'gpus', 'href': base_url + '/gpus/'}]},
    }


def version_document(base_url='', version_text=None):
    """The document of /, its links under base_url (no final '/')."""
    return {
        'name': 'flavor-exporter',
        'description': 'Per-flavor capacity of this OpenStack cloud: how '
                       'many instances of each flavor fit now, and in the '
                       'empty cloud.',
        'version': version_text or version_string(),
        'versions': list(versions(base_url).values()),
        'links': [
            {'rel': 'describedby', 'href': base_url + '/openapi.json',
             'type': 'application/vnd.oai.openapi+json;version=3.0'},
            {'rel': 'help', 'href': base_url + '/docs/', 'type': 'text/html'},
            {'rel': 'metrics', 'href': base_url + '/metrics'},
            {'rel': 'health', 'href': base_url + '/healthcheck'},
        ],
    }
