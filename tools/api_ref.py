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
"""The API reference's routes, parameters and statuses, from the API itself.

Every route of flavor_exporter/api/routes.py (but the redirect and the
Swagger assets) becomes a section of os-api-ref directives: its method
and path, its policy, every path, query, header and body parameter and
every status its OpenAPI document (flavor_exporter/api/openapi.json)
names, with their descriptions, and the demo's example answer
(api-ref/samples/, tools/doc_examples.py). doc/source/conf.py runs it at
every build, into doc/source/api-ref/generated/ (not committed), so the
reference cannot lag behind the API: a route SECTIONS does not place yet
is documented under "More routes".
"""

import json
import os

import yaml

from flavor_exporter.api import routes
from flavor_exporter.policies import capacity as policies

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
OPENAPI = os.path.join(ROOT, 'flavor_exporter', 'api', 'openapi.json')
OUT = os.path.join(ROOT, 'doc', 'source', 'api-ref', 'generated')

#: (title, what the section is for, its operations in order).
SECTIONS = [
    ('Versions', 'OpenStack version documents: what this API serves.',
     ['getVersion', 'getVersionV3', 'getVersionV2']),
    ('Flavors', 'Per flavor: how many instances fit now (``available``) '
     'and in the empty cloud (``total``), per availability zone too.',
     ['listFlavors', 'getFlavor']),
    ('GPUs', 'GPU devices by type: total, used, free and stranded.',
     ['listGpus', 'getGpu']),
    ('Projects', 'What a project can start: capacity on the hosts it may '
     'use, and its quota headroom.',
     ['listProjectFlavors', 'getProjectFlavor']),
    ('Set checks', 'Whether a set of servers starts together, placed as '
     'Nova would place them, server by server.', ['createCheck']),
    ('Planning', 'What the capacity would be if the cloud changed, and '
     'which live migrations would make room for a flavor.',
     ['createWhatif', 'createDefrag']),
    ('Status', "The worker's last refresh and the problems it met.",
     ['getStatus']),
    ('Clouds', 'The clouds of a deployment ([DEFAULT] clouds), and every '
     '``/v3`` route for one of them by name. Each answers as the route '
     'of the default cloud does (same parameters, same body), and 404 '
     'for a name that is not one of the clouds.',
     ['listClouds'] + [route.operation for route in routes.TABLE
                       if route.operation
                       and route.operation.endswith(routes.OF_CLOUD)]),
    ("The OpenStackFlavorExporter's list", "The seed's ``/v2/flavors/``, "
     "in its shape, for its clients (the de.NBI SimpleVM portal).",
     ['listSeedFlavors']),
    ("The OpenstackGPUService's routes", "The predecessor's ``/gpus`` "
     "routes, in their shapes and with their error bodies.",
     ['listLegacyFlavors', 'getLegacyFlavor', 'listLegacyGpus',
      'getLegacyGpu']),
    ('The service', 'Metrics, the API description, health.',
     ['getMetrics', 'getOpenAPI', 'getDocs', 'getHealth']),
]

#: {operationId: sample file of api-ref/samples} (tools/doc_examples.py).
SAMPLES = {
    'getVersion': 'versions.json',
    'getVersionV3': 'version-v3.json',
    'getVersionV2': 'version-v2.json',
    'listFlavors': 'flavors-list.json',
    'getFlavor': 'flavor-show.json',
    'listGpus': 'gpus-list.json',
    'getGpu': 'gpu-show.json',
    'listProjectFlavors': 'project-flavors-list.json',
    'getProjectFlavor': 'project-flavor-show.json',
    'createCheck': 'check-response.json',
    'createWhatif': 'whatif-response.json',
    'getStatus': 'status.json',
    'listClouds': 'clouds-list.json',
    'listSeedFlavors': 'seed-flavors-list.json',
    'listLegacyFlavors': 'legacy-flavors-list.json',
    'getLegacyFlavor': 'legacy-flavor-show.json',
    'listLegacyGpus': 'legacy-gpus-list.json',
    'getLegacyGpu': 'legacy-gpu-show.json',
    'getMetrics': 'metrics.txt',
    'getHealth': 'healthcheck.txt',
}
#: The policies of the routes whose controller enforces one on what the
#: body names (routes.py leaves their policy None).
BODY_POLICIES = {'createCheck': policies.CHECK_CREATE}
#: {operationId: sample file of its request body}.
REQUEST_SAMPLES = {'createCheck': 'check-request.json',
                   'createWhatif': 'whatif-request.json'}
#: {operationId: [(what it shows, sample file)]}: error answers.
ERROR_SAMPLES = {
    'listFlavors': [('An unknown filter (400)',
                     'flavors-list-bad-filter.json')],
    'getFlavor': [('No such flavor (404)', 'flavor-not-found.json')],
    'getLegacyFlavor': [('No such flavor (404, the predecessor\'s body)',
                         'legacy-flavor-not-found.json')],
}

#: Descriptions of the properties the OpenAPI document leaves bare.
PLAIN = {
    'id': 'The id.',
    'name': 'The name.',
    'description': 'The description.',
    'vcpus': 'Virtual CPUs of the flavor.',
    'is_public': 'Whether the flavor is public.',
    'timestamp': 'When these numbers were first seen.',
    'quota_timestamp': "When the project's quota was read.",
    'source': 'What the numbers were read from: ``placement`` or '
              '``hypervisors``.',
    'stale': 'Whether the data is older than ``[api] stale_after`` (or '
             'the cache could not be read).',
    'partial': 'Whether hosts could not be read (they are left out).',
    'unreadable_host_count': 'How many hosts could not be read.',
    'error': 'Why the flavor could not be evaluated, else null.',
    'links': 'Links to the resources.',
    'type': 'The type.',
    'total': 'The total.',
    'available': 'How many fit now.',
    'used': 'How many are in use.',
    'free': 'How many are free.',
    'stranded': 'Free devices on hosts where no flavor that could take '
                'them can start now.',
    'stranded_by': 'The stranded devices by what blocks them.',
    'project_id': 'The project.',
    'flavor': 'The flavor.',
    'flavors': 'The flavors.',
    'gpu': 'The GPU type and count, null for a flavor without GPUs.',
    'gpus': 'The GPU types.',
    'count': 'How many.',
    'availability_zones': 'The same figures per availability zone.',
    'availability_zone': 'The availability zone.',
    'ram': 'RAM of the flavor',
    'disk': 'Root disk of the flavor',
    'ephemeral': 'Ephemeral disk of the flavor',
    'swap': 'Swap of the flavor',
    'cores': 'Virtual CPUs of the flavor',
    'mem': 'RAM of the flavor',
    'root_disk': 'Root disk of the flavor',
    'ephemeral_disk': 'Ephemeral disk of the flavor',
    'free_slots': 'Devices of the type that are free.',
    'used_slots': 'Devices of the type in use.',
    'total_slots': 'Devices of the type.',
    'flavor_name': "The flavor's name.",
    'flavor_openstack_id': "The flavor's id in Nova.",
    'flavor_id': "The flavor's id in Nova.",
    'quota': "The project's quota headroom for the flavor: ``headroom`` "
             "in instances (null: unlimited) and the ``limited_by`` quota.",
    'traits': "The custom traits of the type's resource providers.",
    'clouds': 'The clouds of the deployment.',
    'check': 'The answer: whether the set fits, request by request.',
    'requested': 'How many servers the set asks for.',
    'requests': 'Each request of the set, in launch order.',
    'started': 'How many servers start before the first refusal.',
    'server_group': 'The new server group the servers go into.',
    'rules': "The server group's rules (``max_server_per_host``).",
    'servers': 'The servers, in launch order.',
    'stale_after_seconds': '``[api] stale_after``: data older than this '
                           'is stale.',
    'age_seconds': 'Age of the data, in seconds.',
    'version': 'The version.',
    'versions': 'The versions this API serves.',
    'notes': 'How the numbers were counted, one line each.',
    'policy': "The server group's policy.",
    'status': 'The status of the version.',
}

_TYPES = {'number': 'float', 'integer': 'integer', 'string': 'string',
          'boolean': 'boolean', 'object': 'object', 'array': 'array'}
_IN_ORDER = {'header': 0, 'path': 1, 'query': 2, 'body': 3}


def _default_cloud(op):
    """The operation of the default cloud's route for a cloud's one."""
    if op.endswith(routes.OF_CLOUD):
        return op[:-len(routes.OF_CLOUD)]
    return op


class Reference:
    """The generated files' text, made from the OpenAPI document."""

    def __init__(self, document):
        self.document = document
        #: {key: parameter definition} of parameters.yaml.
        self.parameters = {}
        #: {status code: {label: text}} of status.yaml.
        self.statuses = {}

    def resolve(self, node):
        """node with $ref followed and allOf merged (one object)."""
        while '$ref' in node:
            node = self._follow(node['$ref'])
        if 'allOf' in node:
            merged = {'type': 'object', 'properties': {}, 'required': []}
            for part in node['allOf']:
                part = self.resolve(part)
                merged['properties'].update(part.get('properties', {}))
                merged['required'] += part.get('required', [])
            return merged
        return node

    def _follow(self, ref):
        node = self.document
        for part in ref.lstrip('#/').split('/'):
            node = node[part]
        return node

    def _key(self, where, name, definition):
        """The parameters.yaml key of a definition: one per distinct one."""
        base = '%s_%s' % (name.lower().replace('[]', '').replace(
            '-', '_').replace('.', '_'), where)
        key, number = base, 1
        while key in self.parameters and self.parameters[key] != definition:
            number += 1
            key = '%s_%d' % (base, number)
        self.parameters[key] = definition
        return key

    def parameter(self, where, name, schema, description, required):
        schema = self.resolve(schema or {})
        kind = _TYPES.get(schema.get('type'), 'object')
        plain = PLAIN.get(name.split('.')[-1].replace('[]', ''))
        text = description or schema.get('description') or ''
        if plain and ' ' not in text.strip():
            # Nothing, or only a unit ("MiB"): say what it is.
            text = plain.rstrip('.') + (
                ', %s.' % text.strip().rstrip('.') if text.strip() else '.')
        elif not text:
            text = 'The ``%s`` field (see the example).' % name
        if schema.get('nullable'):
            text += ' May be null.' if text else 'May be null.'
        if 'enum' in schema:
            text += ' One of: %s.' % ', '.join(
                '``%s``' % value for value in schema['enum'])
        definition = {'description': text.strip(), 'in': where,
                      'required': bool(required), 'type': kind}
        return name, self._key(where, name, definition)

    def body(self, schema, prefix=''):
        """[(display name, key)] of a body's properties, two levels deep."""
        schema = self.resolve(schema)
        rows = []
        if schema.get('type') == 'array' and not prefix:
            # A list of objects (the seed's, the predecessor's first
            # API): their fields, as the example shows them.
            return self.body(schema.get('items', {}), '')
        required = set(schema.get('required', []))
        for name, prop in schema.get('properties', {}).items():
            display = prefix + name
            rows.append(self.parameter('body', display, prop, None,
                                       name in required))
            inner = self.resolve(prop)
            if prefix.count('.') >= 1:
                continue
            if inner.get('type') == 'array':
                item = self.resolve(inner.get('items', {}))
                if item.get('properties'):
                    rows += self.body(item, display + '[].')
            elif inner.get('properties'):
                rows += self.body(inner, display + '.')
        return rows

    def status(self, code, label, text):
        code = int(code)
        entry = self.statuses.setdefault(code, {})
        entry.setdefault('default', text)
        entry[label] = text
        return code, label

    def operation_rst(self, route, method, operation):
        # The route's operation (routes.py), not the document's variant
        # of it with a slash (listFlavorsSlash).
        op = route.operation
        lines = ['%s' % operation.get('summary', op),
                 '-' * len(operation.get('summary', op)), '',
                 '.. rest_method:: %s %s' % (method.upper(), route.path),
                 '']
        if operation.get('description'):
            lines += [operation['description'], '']
        if route.public:
            if 'Public' not in operation.get('description', ''):
                lines += ['Public: served without authentication.', '']
        elif route.policy:
            lines += ['Policy: ``%s``.' % route.policy, '']
        else:
            # The controller enforces it on the project the body names.
            lines += ['Policy: ``%s``, on the project the body names.'
                      % BODY_POLICIES[_default_cloud(op)], '']
        # Statuses, by what they mean for this route.
        for kind, test in (('success', lambda c: c < 400),
                           ('error', lambda c: c >= 400)):
            codes = []
            for code, answer in sorted(operation['responses'].items()):
                if test(int(code)):
                    answer = self.resolve(answer)
                    label = op if method != 'head' else op + 'Head'
                    codes.append(self.status(code, label,
                                             answer.get('description', '')))
            if codes:
                lines += ['.. rest_status_code:: %s generated/status.yaml'
                          % kind, '']
                lines += ['   - %d: %s' % code for code in codes]
                lines += ['']
        # Request parameters.
        params = []
        if not route.public:
            params.append(self.parameter(
                'header', 'X-Auth-Token', {'type': 'string'},
                'A Keystone token ([DEFAULT] auth_strategy = keystone); '
                'or HTTP Basic credentials in ``Authorization`` '
                '(``http_basic``, or ``keystone`` with '
                '``http_basic_auth_user_file``). Neither with ``noauth``.',
                False))
        if '304' in operation['responses']:
            params.append(self.parameter(
                'header', 'If-None-Match', {'type': 'string'},
                'The ``ETag`` of the copy the client holds: ``304`` while '
                'it is current.', False))
        for param in operation.get('parameters', []):
            param = self.resolve(param)
            params.append(self.parameter(
                param['in'], param['name'], param.get('schema'),
                param.get('description'), param.get('required')))
        body = operation.get('requestBody')
        if body:
            schema = body['content']['application/json']['schema']
            params += self.body(schema)
        lines += self.parameters_rst('Request', params)
        if op in REQUEST_SAMPLES:
            lines += self.sample_rst('Request example', REQUEST_SAMPLES[op])
        # Response parameters: the headers and body of its success.
        first = min(code for code in operation['responses']
                    if int(code) < 300)
        success = self.resolve(operation['responses'][first])
        params = [self.parameter('header', name, self.resolve(header).get(
            'schema'), self.resolve(header).get('description'), True)
            for name, header in success.get('headers', {}).items()]
        content = success.get('content', {})
        if 'application/json' in content:
            params += self.body(content['application/json']['schema'])
        lines += self.parameters_rst('Response', params)
        if op in SAMPLES:
            lines += self.sample_rst('Response example', SAMPLES[op])
        elif _default_cloud(op) in SAMPLES:
            lines += self.sample_rst(
                'Response example (the default cloud\'s, as the route '
                'without /clouds/{cloud} answers it)',
                SAMPLES[_default_cloud(op)])
        for title, sample in ERROR_SAMPLES.get(op, []):
            lines += self.sample_rst(title, sample)
        return lines

    @staticmethod
    def parameters_rst(title, params):
        if not params:
            return []
        lines = ['%s parameters' % title, '', '.. rest_parameters:: '
                 'generated/parameters.yaml', '']
        lines += ['   - %s: %s' % (name, key) for name, key in params]
        return lines + ['']

    @staticmethod
    def sample_rst(title, sample):
        language = 'javascript' if sample.endswith('.json') else 'text'
        return ['**%s**' % title, '', '.. literalinclude:: samples/%s'
                % sample, '   :language: %s' % language, '']

    def routes_rst(self):
        placed = [op for _title, _text, ops in SECTIONS for op in ops]
        documented = [route.operation for route in routes.TABLE
                      if route.operation not in routes.UNDOCUMENTED]
        # A route added since SECTIONS was written is still documented,
        # at the end, until someone gives it its place.
        missing = [op for op in documented if op not in placed]
        sections = SECTIONS + ([('More routes', 'Routes of this release '
                                 'not grouped yet.', missing)]
                               if missing else [])
        lines = []
        for title, text, ops in sections:
            lines += ['=' * len(title), title, '=' * len(title), '', text,
                      '']
            for op in ops:
                if op not in routes.BY_OPERATION:
                    continue  # a route of SECTIONS this release lacks
                route = routes.BY_OPERATION[op]
                path = self.document['paths'][route.path]
                for method in ('get', 'head', 'post'):
                    if method in path:
                        lines += self.operation_rst(route, method,
                                                    path[method])
        return '\n'.join(lines) + '\n'

    def parameters_yaml(self):
        ordered = sorted(self.parameters.items(), key=lambda item: (
            _IN_ORDER[item[1]['in']], item[0].lower()))
        # One document in os-api-ref's order: by "in", then by key.
        return ''.join(yaml.safe_dump({key: value}, default_flow_style=False,
                                      width=70)
                       for key, value in ordered)

    def status_yaml(self):
        return yaml.safe_dump(self.statuses, default_flow_style=False,
                              width=70)


def generate(out=OUT):
    """Write routes.inc, parameters.yaml and status.yaml into out."""
    with open(OPENAPI) as source:
        reference = Reference(json.load(source))
    text = reference.routes_rst()
    os.makedirs(out, exist_ok=True)
    for name, content in (('routes.inc', text),
                          ('parameters.yaml', reference.parameters_yaml()),
                          ('status.yaml', reference.status_yaml())):
        with open(os.path.join(out, name), 'w') as target:
            target.write(content)
    return out


if __name__ == '__main__':
    print('wrote %s' % generate())
