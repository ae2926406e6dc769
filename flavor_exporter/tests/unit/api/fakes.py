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
"""Published documents as the worker renders them, built by hand.

The API tests publish these with DocumentStore.publish(), so they do not
depend on the worker; the shapes follow the document list in the API
design (flavor_exporter.capacity.render writes the real ones).
"""

import datetime
import json

ZONES = ('az1', 'az2')


def _json(value):
    return json.dumps(value, separators=(',', ':'),
                      ensure_ascii=False).encode('utf-8')


def iso(moment):
    return moment.strftime('%Y-%m-%dT%H:%M:%SZ')


def flavor(flavor_id, name, gpu=None, per_zone=((4, 2), (2, 1)),
           error=None, hosts=2):
    """A v2 flavor; per_zone: (total, available) for each of ZONES."""
    zones = {zone: {'total': t, 'available': a}
             for zone, (t, a) in zip(ZONES, per_zone) if t}
    valid = error is None
    body = {
        'id': flavor_id, 'name': name, 'description': None,
        'vcpus': 8, 'ram': 16384, 'disk': 40, 'ephemeral': 0, 'swap': 0,
        'is_public': True,
        'resources': ({'VCPU': 8, 'MEMORY_MB': 16384, 'DISK_GB': 40}
                      if valid else None),
        'request_groups': [] if valid else None,
        'group_policy': None,
        'gpu': {'type': gpu, 'count': 1} if gpu else None,
        'total': sum(z['total'] for z in zones.values()) if valid else None,
        'available': (sum(z['available'] for z in zones.values())
                      if valid else None),
        'availability_zones': zones if valid else {},
        'limited_by': 'VCPU' if valid else None,
        'unsupported': [],
        'error': error,
    }
    body['_hosts'] = [
        {'host': 'cmp%03d' % i, 'node': 'cmp%03d.example.org' % i,
         'availability_zone': ZONES[i % len(ZONES)], 'total': 2,
         'available': 1, 'limited_by': 'VCPU'} for i in range(hosts)]
    return body


def default_flavors():
    return [
        flavor('1', 'm1.large'),
        flavor('g1', 'gpu.a100', gpu='a100', per_zone=((3, 1), (0, 0))),
        flavor('g2', 'GPU.V100-small', gpu='v100', per_zone=((0, 0), (2, 2))),
        # Pecan would route these names to methods without our _route.
        flavor('index', 'collection'),
        flavor('bad', 'broken', error='hw:cpu_policy=bogus is invalid'),
    ]


def documents(flavors=None, collected_at=None, source='placement'):
    """({name: bytes}, pointer) of one generation."""
    flavors = default_flavors() if flavors is None else flavors
    collected_at = collected_at or datetime.datetime.now(
        datetime.timezone.utc)
    timestamp = iso(collected_at)
    legacy_ts = collected_at.strftime('%Y-%m-%d %H:%M:%S')
    head = {'timestamp': timestamp, 'source': source, 'stale': False}

    def listed(body):
        return {k: v for k, v in body.items() if k != '_hosts'}

    def legacy(body):
        return {'flavor_openstack_id': body['id'],
                'flavor_name': body['name'],
                'available': body['available'], 'total': body['total']}

    gpu = [f for f in flavors if f['gpu'] and f['error'] is None]
    docs = {'legacy/flavors': _json({'flavors': [legacy(f) for f in gpu],
                                     'timestamp': legacy_ts})}
    for f in gpu:
        docs['legacy/flavor/%s' % f['id']] = _json(
            {'flavor': legacy(f), 'timestamp': legacy_ts})
    docs['v2/flavors'] = _json(dict(head, flavors=[listed(f)
                                                   for f in flavors]))
    for wanted in (True, False):
        docs['v2/flavors?gpu=%s' % str(wanted).lower()] = _json(dict(
            head, flavors=[listed(f) for f in flavors
                           if bool(f['gpu']) == wanted]))
    for f in flavors:
        one = dict(listed(f), hosts=f['_hosts'],
                   excluded_hosts={'disabled': 1})
        docs['v2/flavor/%s' % f['id']] = _json(dict(head, flavor=one))
    docs['v2/names'] = _json({f['name']: f['id'] for f in flavors})
    docs['metrics'] = ''.join(
        'flavor_exporter_flavor_available{flavor_id="%s"} %d\n'
        % (f['id'], f['available']) for f in flavors
        if f['available'] is not None).encode('utf-8')
    pointer = {'timestamp': timestamp, 'legacy_timestamp': legacy_ts,
               'source': source, 'flavor_count': len(flavors),
               'duration_seconds': 1.5, 'api_calls': 12}
    return docs, pointer


def many_flavors(count=500, gpu_every=1, hosts=40):
    """count flavors; every gpu_every-th is a GPU flavor."""
    return [flavor('%08d-0000-4000-8000-%012d' % (i, i),
                   'flavor-%04d.%s' % (i, 'gpu' if i % gpu_every == 0
                                       else 'cpu'),
                   gpu='a100' if i % gpu_every == 0 else None,
                   per_zone=((i % 7 + 1, i % 5), (i % 3, i % 2)),
                   hosts=hosts)
            for i in range(count)]


def status(failures=0, error=None):
    return {'last_attempt_at': '2026-11-29T17:00:00Z',
            'last_success_at': '2026-11-29T17:00:00Z',
            'last_error': error, 'duration_seconds': 1.5,
            'api_calls': 12, 'consecutive_failures': failures}
