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
"""The notification bench's flood: what a bus in a bad hour does.

FLOOD instance.create.end as fast as the bus takes them, mixed with
HOSTILE NoValidHost failures of made-up flavor and project ids, failures
of a real flavor under a made-up name, and malformed messages. Measured:
how many the worker noted (the changes counter in memcached), how many it
lost, its ERROR and traceback lines, the refreshes, the demand entries
and the demand's share of /metrics.
"""

import json
import time
import uuid

from flavor_exporter.api.controllers import metrics
from flavor_exporter.publication import contract as pub

# A name no flavor has: a message that renames a flavor.
FORGED_NAME = 'renamed-by-a-message'
FORGED = 10
MALFORMED = 500


def no_valid_host(flavor_id, project_id, name='x'):
    """A versioned compute_task.build_instances.error payload."""
    def obj(name, data):
        return {'nova_object.name': name, 'nova_object.data': data}
    return obj('ComputeTaskPayload', {
        'instance_uuid': str(uuid.uuid4()),
        'reason': obj('ExceptionPayload', {'exception': 'NoValidHost'}),
        'request_spec': obj('RequestSpecPayload', {
            'project_id': project_id,
            'flavor': obj('FlavorPayload', {'flavorid': flavor_id,
                                            'name': name})})})


def malformed(number):
    """Messages a reader must drop, each a different way."""
    kinds = [
        ('compute_task.build_instances.error', {
            'nova_object.data': {'reason': {'nova_object.data': {
                'exception': 'NoValidHost'}}}}),  # no flavor
        ('compute_task.build_instances.error', no_valid_host(
            {'nested': ['id']}, 'p')),  # a flavor id that is no string
        ('compute_task.build_instances.error', no_valid_host(
            'f' * 1000, 'p')),  # an id no Nova has
        ('compute_task.build_instances', {
            'reason': 'NoValidHost', 'request_spec': ['not', 'a', 'dict']}),
    ]
    return kinds[number % len(kinds)]


def _usages_noted(store):
    key = store.reader.key('%s/usages' % pub.CHANGES_NAME)
    return int(store.reader._backend.get(key) or 0)


def _log_counts(path):
    with open(path, errors='replace') as log:
        text = log.read()
    return {'error_lines': sum(1 for line in text.splitlines()
                               if ' ERROR ' in line),
            'warning_lines': sum(1 for line in text.splitlines()
                                 if ' WARNING ' in line),
            'tracebacks': text.count('Traceback (most recent call last)')}


def _flavors(reader):
    pointer = reader.current()
    listed = json.loads(reader.document(pointer, pub.V3_LIST))
    return {f[pub.ID]: f[pub.NAME] for f in listed[pub.FLAVORS]}


def _quiet(read, seconds=5, timeout=600):
    """Wait until read() has not changed for seconds; its last value."""
    started = time.monotonic()
    last, since = read(), time.monotonic()
    while time.monotonic() - started < timeout:
        time.sleep(0.5)
        now = read()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= seconds:
            return last
    return last


def run(store, nova, hosts, log_path, flood, hostile, sequence):
    """The figures of one flood; nova: a bench Nova, hosts: [(host, node)].

    sequence: a callable, the published generation's sequence.
    """
    reader = store.reader
    real_id, real_name = sorted(_flavors(reader).items())[0]
    noted_before = _usages_noted(store)
    logs_before = _log_counts(log_path)
    before = sequence()
    started = time.monotonic()
    for number in range(flood):
        host, node = hosts[number % len(hosts)]
        nova.created(host, node)
        if number * hostile // flood != (number + 1) * hostile // flood:
            nova.error('compute_task.build_instances.error', no_valid_host(
                'made-up-%s' % uuid.uuid4(), uuid.uuid4().hex))
    for _ in range(FORGED):
        nova.error('compute_task.build_instances.error',
                   no_valid_host(real_id, 'p-forged', FORGED_NAME))
    for number in range(MALFORMED):
        nova.error(*malformed(number))
    sent = time.monotonic() - started
    hostile_sent = hostile
    noted = _quiet(lambda: _usages_noted(store)) - noted_before
    _quiet(sequence, seconds=3)
    logs = _log_counts(log_path)
    demand = reader.demand() or {}
    flavors = demand.get(pub.DEMAND_FLAVORS) or {}
    counters = '\n'.join(metrics.demand_counters(demand)).encode()
    published = reader.document(reader.current(), pub.METRICS) or b''
    expected = flood + hostile_sent + FORGED
    return {
        'flood_events': flood,
        'flood_hostile_failures': hostile_sent,
        'flood_forged_names': FORGED,
        'flood_malformed': MALFORMED,
        'flood_sent_seconds': round(sent, 2),
        'flood_noted': noted,
        'flood_lost': max(0, expected - noted),
        'flood_refreshes': sequence() - before,
        'flood_error_lines': logs['error_lines'] - logs_before['error_lines'],
        'flood_warning_lines': (logs['warning_lines']
                                - logs_before['warning_lines']),
        'flood_tracebacks': logs['tracebacks'] - logs_before['tracebacks'],
        'demand_entries': len(flavors),
        'demand_real_flavor_count': (flavors.get(real_id) or {}).get(
            pub.TURNED_AWAY),
        'demand_unknown': (demand.get(pub.DEMAND_UNKNOWN) or {}).get(
            pub.TURNED_AWAY),
        'demand_real_flavor_name': (flavors.get(real_id) or {}).get(
            pub.NAME),
        'demand_real_flavor_expected_name': real_name,
        'metrics_bytes': len(published) + len(counters),
        'metrics_demand_bytes': len(counters),
    }
