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
"""What a Nova notification means for capacity.

Nova sends each event in its versioned format (payloads are serialized
versioned objects: {"nova_object.name": ..., "nova_object.data": ...}),
its legacy unversioned one, or both ([notifications] notification_format).
read() turns either into an Event: which parts of the cloud the refresh
must read again (the usages after a server starts, goes or moves; the
compute services; the aggregates; the flavors), or a boot Nova turned
away with NoValidHost (a scheduling failure, for the demand counters).
Everything else (power state changes, volume attachments, the frequent
instance.update) is None: it changes no number.
"""

import dataclasses

# What a refresh reads again for an event (Event.reads).
USAGES = 'usages'
SERVICES = 'services'
AGGREGATES = 'aggregates'
FLAVORS = 'flavors'

# Instance actions whose end leaves resources taken or freed on the one
# host the payload names.
_IN_PLACE = frozenset((
    'create.end', 'create.error', 'delete.end', 'soft_delete.end',
    'restore.end', 'shelve_offload.end', 'unshelve.end'))
# Instance actions whose end leaves resources taken or freed on a host.
_INSTANCE_ACTIONS = frozenset((
    'create.end', 'create.error', 'delete.end', 'soft_delete.end',
    'restore.end', 'resize_finish.end', 'resize_confirm.end',
    'resize_revert.end', 'live_migration_post.end',
    'live_migration_rollback.end', 'shelve_offload.end', 'unshelve.end',
    'evacuate', 'rebuild.end',
    # The legacy names of the same ends.
    'finish_resize.end', 'resize.confirm.end', 'resize.revert.end',
    'live_migration.post.dest.end', 'live_migration._post.end',
    'live_migration._rollback.end', 'evacuate.end',
))
_SERVICE_EVENTS = frozenset(('service.update', 'service.create',
                             'service.delete'))
_AGGREGATE_ACTIONS = frozenset((
    'add_host.end', 'remove_host.end', 'update_metadata.end',
    'update_prop.end', 'create.end', 'delete.end',
    # Legacy names.
    'addhost.end', 'removehost.end', 'updatemetadata.end', 'updateprop.end',
))
_FLAVOR_EVENTS = frozenset(('flavor.create', 'flavor.update',
                            'flavor.delete'))
# Scheduling failures of requests that wanted a new home for a server.
_TASK_ERRORS = frozenset(('compute_task.build_instances.error',
                          'compute_task.migrate_server.error',
                          'compute_task.rebuild_server.error'))
_LEGACY_TASKS = frozenset(('compute_task.build_instances',
                           'compute_task.migrate_server',
                           'compute_task.rebuild_server'))
NO_VALID_HOST = 'NoValidHost'
# Nova's longest ids and names (flavorid, host) are 255 characters.
MAX_ID = 255


@dataclasses.dataclass(frozen=True)
class Event:
    """What one notification asks of the worker."""

    event_type: str
    reads: frozenset = frozenset()  # USAGES, SERVICES, AGGREGATES, FLAVORS
    #: A request Nova could place nowhere: (flavor id, flavor name,
    #: project id or None, instance uuid or None), else None.
    turned_away: tuple | None = None
    #: The compute hosts whose usages changed, when USAGES is read: None
    #: when any may have (a server moved), else their service host names.
    hosts: frozenset | None = None


def _data(payload):
    """The fields of a versioned payload, or the legacy payload itself."""
    if isinstance(payload, dict) and 'nova_object.data' in payload:
        data = payload['nova_object.data']
        return data if isinstance(data, dict) else {}
    return payload if isinstance(payload, dict) else {}


def _turned_away(event_type, payload):
    """(flavor id, name, project, instance) of a NoValidHost failure."""
    data = _data(payload)
    if event_type in _TASK_ERRORS:
        reason = _data(data.get('reason'))
        if reason.get('exception') != NO_VALID_HOST:
            return None
        spec = _data(data.get('request_spec'))
        flavor = _data(spec.get('flavor'))
        project = spec.get('project_id')
        instance = data.get('instance_uuid')
    else:
        # Legacy: the reason is the exception's text, the request spec a
        # dict with the flavor as instance_type.
        if NO_VALID_HOST not in str(data.get('reason')):
            return None
        spec = data.get('request_spec') or {}
        flavor = _data(spec.get('instance_type')) if isinstance(
            spec, dict) else {}
        properties = data.get('instance_properties') or {}
        project = (properties.get('project_id')
                   if isinstance(properties, dict) else None)
        instance = data.get('instance_id')
    flavor_id = _identifier(flavor.get('flavorid'))
    if not flavor_id:
        raise ValueError('a NoValidHost failure without its flavor')
    # The name travels for older leaders; demand.py names flavors from
    # the flavor list, never from a message.
    return (flavor_id, _identifier(flavor.get('name')) or flavor_id,
            _identifier(project), _identifier(instance))


def _identifier(value):
    """value as an id (Nova's are at most 255 characters), or None.

    Anything else (a number aside) is what no Nova sends: None, so that a
    hostile message cannot put lists or megabytes into the cache.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str) and 0 < len(value) <= MAX_ID:
        return value
    return None


def read(event_type, payload):
    """The Event of one notification, or None when it changes nothing.

    ValueError when it should say something it does not (a scheduling
    failure without its flavor).
    """
    if not isinstance(event_type, str):
        return None
    name = event_type[len('compute.'):] if event_type.startswith(
        'compute.instance.') else event_type
    if name.startswith('instance.') and (
            name[len('instance.'):] in _INSTANCE_ACTIONS):
        host = _identifier(_data(payload).get('host'))
        hosts = None
        if name[len('instance.'):] in _IN_PLACE and host:
            hosts = frozenset((host,))
        return Event(event_type, frozenset((USAGES,)), hosts=hosts)
    if name in _SERVICE_EVENTS:
        return Event(event_type, frozenset((SERVICES,)))
    if name.startswith('aggregate.') and (
            name[len('aggregate.'):] in _AGGREGATE_ACTIONS):
        return Event(event_type, frozenset((AGGREGATES,)))
    if name in _FLAVOR_EVENTS:
        return Event(event_type, frozenset((FLAVORS,)))
    if name in _TASK_ERRORS or name in _LEGACY_TASKS:
        turned_away = _turned_away(name, payload)
        if turned_away:
            # The failed boot's claims are gone too, from hosts that had
            # room.
            return Event(event_type, frozenset((USAGES,)), turned_away,
                         hosts=frozenset())
    return None
