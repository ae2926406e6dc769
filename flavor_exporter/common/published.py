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
"""The contract between the worker and the API: what is published.

The worker renders documents (flavor_exporter.capacity.render), the store
writes them to the cache (flavor_exporter.common.store), the API reads and
serves them (flavor_exporter.api). All three meet here and nowhere else:

- document names: what a document holds, and which route serves it;
- cache keys: how a name of a generation becomes a memcached key;
- encoding: compact UTF-8 JSON, the bytes the API serves as they are;
- the pointer: the small entry naming the current generation;
- the fields the API reads inside documents, to filter and index them.

A change to a published field touches this module, the renderer,
flavor_exporter/api/openapi.json and a test; nothing else.
"""

import calendar
import datetime
import hashlib
import json
import time
import urllib.parse

# Document names, each published once per generation.

#: GPU flavors in the predecessor's shape: ``{"flavors": [...],
#: "timestamp"}``, served by ``/gpus/flavors``.
LEGACY_LIST = 'legacy/flavors'
#: Every flavor, ``{"timestamp", "source", "stale", "flavors": [...]}``.
V2_LIST = 'v2/flavors'
#: ``{flavor name: flavor id}`` of every flavor of V2_LIST.
V2_NAMES = 'v2/names'
#: The per-flavor gauges, Prometheus text format 0.0.4 (not JSON).
METRICS = 'metrics'


def legacy_flavor(flavor_id):
    """``{"flavor": {...}, "timestamp"}`` of one GPU flavor."""
    return 'legacy/flavor/%s' % flavor_id


def v2_list(gpu=None):
    """V2_LIST, or the part of it whose flavors are (not) GPU flavors."""
    if gpu is None:
        return V2_LIST
    return '%s?gpu=%s' % (V2_LIST, 'true' if gpu else 'false')


def v2_flavor(flavor_id):
    """One flavor of V2_LIST plus its per-host breakdown."""
    return 'v2/flavor/%s' % flavor_id


# Fields the API reads inside documents.

FLAVORS = 'flavors'            # the list of a list document
FLAVOR = 'flavor'              # the flavor of a one-flavor document
ID = 'id'
NAME = 'name'
TOTAL = 'total'
AVAILABLE = 'available'
ZONES = 'availability_zones'   # {zone: {TOTAL, AVAILABLE}}
STALE = 'stale'                # set to true by the API on old data
LEGACY_ID = 'flavor_openstack_id'

# The pointer: the cache entry naming the current generation.

GENERATION = 'generation'
TIMESTAMP = 'timestamp'        # ISO 8601 UTC, when the cloud was read
LEGACY_TIMESTAMP = 'legacy_timestamp'
SOURCE = 'source'
FLAVOR_COUNT = 'flavor_count'
API_CALLS = 'api_calls'

# The status entry: the worker's last refresh attempt, good or bad. The API
# serves it whole at /v2/status and reads these fields for /metrics.

LAST_ATTEMPT_AT = 'last_attempt_at'
LAST_SUCCESS_AT = 'last_success_at'
LAST_ERROR = 'last_error'      # {"at", "message"}, or None
DURATION = 'duration_seconds'
CONSECUTIVE_FAILURES = 'consecutive_failures'
# API_CALLS too, as in the pointer.


def initial_status():
    """The status entry of a worker that has not refreshed yet."""
    return {LAST_ATTEMPT_AT: None, LAST_SUCCESS_AT: None, LAST_ERROR: None,
            DURATION: None, API_CALLS: None, CONSECUTIVE_FAILURES: 0}


# Cache entries that are not documents of a generation.
POINTER_NAME = 'current'
STATUS_NAME = 'status'

# memcached keys: at most 250 bytes, no spaces or control characters.
_MAX_NAME = 160


def encode(value):
    """Compact JSON bytes: what is stored and served byte for byte."""
    return json.dumps(value, separators=(',', ':'),
                      ensure_ascii=False).encode('utf-8')


def decode(raw):
    """The JSON value of encoded bytes; None for a missing entry."""
    return json.loads(raw) if raw is not None else None


def iso_timestamp(moment):
    return moment.astimezone(datetime.timezone.utc).strftime(
        '%Y-%m-%dT%H:%M:%SZ')


def legacy_timestamp(moment):
    # The predecessor printed its local time without a zone; portals parse
    # exactly this format.
    return moment.astimezone().strftime('%Y-%m-%d %H:%M:%S')


def epoch(timestamp):
    """Seconds since the epoch of an iso_timestamp(); None if unreadable."""
    try:
        return calendar.timegm(time.strptime(timestamp,
                                             '%Y-%m-%dT%H:%M:%SZ'))
    except (TypeError, ValueError):
        return None


def pointer(collected_at, source, flavor_count, api_calls):
    """The pointer fields of a generation, except GENERATION itself."""
    return {TIMESTAMP: iso_timestamp(collected_at),
            LEGACY_TIMESTAMP: legacy_timestamp(collected_at),
            SOURCE: source,
            FLAVOR_COUNT: flavor_count,
            API_CALLS: api_calls}


def key(prefix, name):
    """The memcached key of a cache entry name."""
    safe = urllib.parse.quote(name, safe='/:=.-_')
    if len(safe) > _MAX_NAME:
        safe = 'sha256-' + hashlib.sha256(name.encode()).hexdigest()
    return '%s:%s' % (prefix, safe)


def document_key(prefix, generation, name):
    """The memcached key of document name of a generation."""
    return key(prefix, '%s/%s' % (generation, name))
