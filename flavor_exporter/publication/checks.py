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
"""The set check's contract: the body asked, the answer given.

One module for the three ways of asking (POST /v3/checks,
`openstack capacity check`, `flavor-exporter-report --check FILE`), so
that they read the same bodies and give the same answers:

    {"servers": [{"flavor": "<id or name>", "count": N,
                  "min_count": M}, ...],          # launch order
     "project_id": "...", "availability_zone": "...",
     "server_group": {"policy": "anti-affinity",
                      "rules": {"max_server_per_host": 2}}}

A bare list stands for {"servers": list}. min_count makes a request one
multi-create (`openstack server create --min M --max N`); without it
the N servers are N successive requests. A key the contract does not
know is refused: a misspelt "availabilty_zone" must not check the
whole cloud without a word.

The answer is {"check": {...}} (document()); host names appear only for
callers allowed to see hosts (without_hosts()).
"""

import hashlib
import json

from flavor_exporter.common import set_request
from flavor_exporter.publication import contract as pub

#: What a body that cannot be decoded as JSON is told.
NOT_JSON = ('The body is not JSON: send {"servers": [{"flavor": id or name, '
            '"count": N}, ...]}.')
#: What a body of another type than JSON is told (%s: the type).
NOT_JSON_TYPE = 'Send the check as application/json, not %s.'
#: The deepest a body may nest arrays and objects: a check nests 4 deep.
#: Deeper bodies are refused before they are decoded, which Python's
#: json module does by recursion (a RecursionError at ~1,000).
MAX_DEPTH = 32
TOO_DEEP = ('The body nests arrays and objects more than %d levels deep; '
            'a check nests 4.' % MAX_DEPTH)
SERVERS = 'servers'
FLAVOR = 'flavor'
COUNT = 'count'
MIN_COUNT = 'min_count'
PROJECT_ID = 'project_id'
SERVER_GROUP = 'server_group'
POLICY = 'policy'
RULES = 'rules'
MAX_PER_HOST = 'max_server_per_host'
CHECK = 'check'
FITS = 'fits'
REQUESTS = 'requests'
STARTED = 'started'
NOTES = 'notes'
# What the worker publishes instead of an answer it could not compute:
# {PROBLEM: {STATUS: 404 or 502, REASON: text}}.
PROBLEM = 'problem'
STATUS = 'status'
REASON = 'reason'

_KEYS = {SERVERS, PROJECT_ID, pub.ZONE, SERVER_GROUP}
_SERVER_KEYS = {FLAVOR, COUNT, MIN_COUNT}
_NAME_LENGTH = 255


class InvalidCheck(ValueError):
    """A body the contract refuses; the message says what to change."""


def _integer(value, what, low):
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise InvalidCheck('%s must be an integer of at least %d, not %s'
                           % (what, low, json.dumps(value)[:40]))
    return value


def _name(value, what):
    if not isinstance(value, str) or not value.strip() or \
            len(value) > _NAME_LENGTH:
        raise InvalidCheck('%s must be a non-empty string of at most %d '
                           'characters' % (what, _NAME_LENGTH))
    return value


def _unknown(found, known, where):
    extra = sorted(set(found) - known)
    if extra:
        raise InvalidCheck('%s: unknown key(s) %s; the keys are %s' % (
            where, ', '.join(extra), ', '.join(sorted(known))))


def _server(index, item):
    where = 'servers[%d]' % index
    if not isinstance(item, dict):
        raise InvalidCheck('%s must be an object {"flavor": id or name, '
                           '"count": N}' % where)
    _unknown(item, _SERVER_KEYS, where)
    if FLAVOR not in item:
        raise InvalidCheck('%s: "flavor" (an id or name) is missing' % where)
    flavor = _name(item[FLAVOR], where + '.flavor')
    count = _integer(item.get(COUNT, 1), where + '.count', 1)
    min_count = item.get(MIN_COUNT)
    if min_count is not None:
        min_count = _integer(min_count, where + '.min_count', 1)
        if min_count > count:
            raise InvalidCheck('%s: min_count %d is above count %d (Nova '
                               'refuses that too)' % (where, min_count,
                                                      count))
    return set_request.Wanted(flavor, count, min_count)


def _group(value):
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidCheck('server_group must be an object {"policy": ...}')
    _unknown(value, {POLICY, RULES}, 'server_group')
    policy = value.get(POLICY)
    if policy not in set_request.POLICIES:
        raise InvalidCheck('server_group.policy must be one of %s' %
                           ', '.join(set_request.POLICIES))
    rules = value.get(RULES) or {}
    if not isinstance(rules, dict):
        raise InvalidCheck('server_group.rules must be an object')
    _unknown(rules, {MAX_PER_HOST}, 'server_group.rules')
    most = rules.get(MAX_PER_HOST)
    if most is not None:
        if policy != 'anti-affinity':
            raise InvalidCheck('server_group.rules.max_server_per_host is '
                               'for the anti-affinity policy only (as in '
                               'Nova)')
        most = _integer(most, 'server_group.rules.max_server_per_host', 1)
    return set_request.ServerGroup(policy, most)


def parse(body, max_servers, valid_project_id):
    """The set_request.SetRequest of a decoded body; InvalidCheck if bad.

    valid_project_id(text): whether text can be a project id.
    """
    if isinstance(body, list):
        body = {SERVERS: body}
    if not isinstance(body, dict):
        raise InvalidCheck('The body must be a JSON object {"servers": '
                           '[{"flavor": id or name, "count": N}, ...]}')
    _unknown(body, _KEYS, 'the body')
    servers = body.get(SERVERS)
    if not isinstance(servers, list) or not servers:
        raise InvalidCheck('"servers" must be a non-empty list of '
                           '{"flavor": id or name, "count": N}, in launch '
                           'order')
    wanted = tuple(_server(i, item) for i, item in enumerate(servers))
    total = sum(w.count for w in wanted)
    if total > max_servers:
        raise InvalidCheck('%d servers asked; a check takes at most %d '
                           '([checks] max_servers)' % (total, max_servers))
    project_id = body.get(PROJECT_ID)
    if project_id is not None and (not isinstance(project_id, str)
                                   or not valid_project_id(project_id)):
        raise InvalidCheck('project_id: %s is not a project id'
                           % json.dumps(project_id)[:80])
    zone = body.get(pub.ZONE)
    if zone is not None:
        zone = _name(zone, 'availability_zone')
    return set_request.SetRequest(wanted, project_id, zone,
                                  _group(body.get(SERVER_GROUP)))


def canonical(request):
    """The body of a SetRequest, as document() repeats it."""
    body = {SERVERS: [
        dict({FLAVOR: w.flavor, COUNT: w.count},
             **({MIN_COUNT: w.min_count} if w.min_count else {}))
        for w in request.servers],
        PROJECT_ID: request.project_id, pub.ZONE: request.availability_zone,
        SERVER_GROUP: None}
    if request.group is not None:
        body[SERVER_GROUP] = {POLICY: request.group.policy, RULES: (
            {MAX_PER_HOST: request.group.max_server_per_host}
            if request.group.max_server_per_host else {})}
    return body


def identity(request):
    """A short id of a SetRequest: equal requests, equal ids."""
    text = json.dumps(canonical(request), sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def _flavor(flavor):
    return {pub.ID: flavor.id, pub.NAME: flavor.name, 'vcpus': flavor.vcpus,
            'ram': flavor.ram, 'disk': flavor.disk}


def _request(outcome):
    wanted = outcome.wanted
    zones = {}
    for placed in outcome.started:
        zones[placed.zone] = zones.get(placed.zone, 0) + 1
    stop = outcome.stop
    return {
        FLAVOR: _flavor(outcome.flavor) if outcome.flavor else None,
        'asked': wanted.flavor, COUNT: wanted.count,
        MIN_COUNT: wanted.min_count, 'request': wanted.mode,
        'reached': outcome.reached, STARTED: len(outcome.started),
        'availability_zones': zones,
        SERVERS: [{pub.HOST: p.host, pub.NODE: p.node, pub.ZONE: p.zone,
                   'tied_with': list(p.tied)} for p in outcome.started],
        'stopped_by': None if stop is None else {
            'kind': stop.kind, 'limit': stop.limit, 'reason': stop.reason},
        'alternatives': [dict(_flavor(flavor), would_start=count)
                         for flavor, count in outcome.alternatives],
        NOTES: outcome.notes}


def document(answer, request, collected_at):
    """The answer document of a set_request.SetAnswer (a dict).

    collected_at: when the data it was computed from was read.
    """
    requests = [_request(outcome) for outcome in answer.outcomes]
    zones = {}
    for item in requests:
        for zone, count in item['availability_zones'].items():
            per_zone = zones.setdefault(zone or '', {})
            name = item[FLAVOR][pub.NAME]
            per_zone[name] = per_zone.get(name, 0) + count
    return {CHECK: dict(canonical(request), **{
        FITS: answer.fits,
        'requested': sum(w.count for w in request.servers),
        STARTED: sum(item[STARTED] for item in requests),
        'availability_zones': zones, REQUESTS: requests,
        NOTES: answer.notes,
        pub.TIMESTAMP: pub.iso_timestamp(collected_at)})}


def without_hosts(document_):
    """document_ without host names, for callers who may not see hosts."""
    check = dict(document_[CHECK])
    check[REQUESTS] = [
        dict(item, **{SERVERS: [{pub.ZONE: s[pub.ZONE]}
                                for s in item[SERVERS]]})
        for item in check[REQUESTS]]
    return {CHECK: check}
