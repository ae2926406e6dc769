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

The worker renders documents (render.py), its publisher writes them to
the cache (publisher.py), the API reads them (reader.py) and serves them
(flavor_exporter.api). All of them meet here and nowhere else:

- document names: what a document holds, and which route serves it;
- encoding: compact UTF-8 JSON, the bytes the API serves as they are, with
  stamps (placeholders) where a document says when its numbers were first
  seen, filled in once, when it is published;
- the manifest: which stored parts make each document of a generation;
- the pointer: the small entry naming the current generation, and the
  format of what it names (FORMAT_VERSION);
- cache keys: how those names become memcached keys;
- the fields the API reads inside documents, to filter and index them.

Documents are stored content-addressed: a part's name is made of the
identity of the document's content (its bytes before stamping) and the
time that content was first seen, so a refresh that changes nothing
writes nothing but the pointer, and an unchanged document keeps its entity
tag and Last-Modified time from one generation to the next.

A change to a published field touches this module, the renderer,
flavor_exporter/api/openapi.json and a test; nothing else.
"""

import calendar
import collections
import datetime
import hashlib
import json
import time
import urllib.parse

# Document names, each published once per generation.

#: Every flavor in the shape of the OpenStackFlavorExporter's list, served
#: by ``/v2/flavors/``: a bare list of SEED_FIELDS per flavor.
SEED_LIST = 'v2/flavors'
#: GPU flavors in the predecessor's shape: ``{"flavors": [...],
#: "timestamp"}``, served by ``/gpus/flavors``.
LEGACY_LIST = 'legacy/flavors'
#: Every flavor, ``{"timestamp", "source", "stale", "flavors": [...]}``.
V3_LIST = 'v3/flavors'
#: ``{flavor name: flavor id}`` of every flavor of V3_LIST.
V3_NAMES = 'v3/names'
#: ``{flavor id: [project id, ...] or null}`` of the private flavors: the
#: projects each is shared with (null: unknown). Never served as it is:
#: the API shows a project's members only the flavors they may use.
ACCESS = 'access'
#: ``{host: why}`` of the hosts whose resources could not be read. Never
#: served as it is: only callers who may see hosts get the names
#: (UNREADABLE_HOSTS), the others UNREADABLE_COUNT and PARTIAL.
UNREADABLE = 'unreadable'
#: The per-flavor gauges, Prometheus text format 0.0.4 (not JSON).
METRICS = 'metrics'
#: GPU devices by type, ``{"timestamp", "source", "stale", "gpus": [...]}``.
V3_GPUS = 'v3/gpus'
#: The predecessor's first ``/gpus``: a bare list of ``{"type",
#: "used_slots", "free_slots", "total_slots"}``, no timestamp.
LEGACY_GPUS = 'legacy/gpus'


#: For project documents (publication/projects.py): which footprint each
#: flavor has (what one instance counts against a quota).
FOOTPRINTS = 'projects/footprints'
#: For project documents: the tenant filters, and the host pattern of
#: each project the aggregates name.
PROJECT_PATTERNS = 'projects/patterns'


def project_capacity(pattern):
    """The flavors' numbers on the hosts of one pattern of projects."""
    return 'projects/capacity/%s' % pattern


def legacy_flavor(flavor_id):
    """One flavor of LEGACY_LIST, ``{"flavor": {...}, "timestamp"}``."""
    return 'legacy/flavor/%s' % flavor_id


def v3_list(gpu=None):
    """V3_LIST, or the part of it whose flavors are (not) GPU flavors."""
    if gpu is None:
        return V3_LIST
    return '%s?gpu=%s' % (V3_LIST, 'true' if gpu else 'false')


def v3_flavor(flavor_id):
    """One flavor of V3_LIST with its request groups, as anyone sees it."""
    return 'v3/flavor/%s' % flavor_id


def v3_flavor_hosts(flavor_id):
    """What only administrators see of a flavor (see with_hosts()).

    The hosts excluded from it (EXCLUDED), and its per-host numbers as
    columns that name hosts by their place in the host index: at 10,000
    hosts a flavor's rows written out would be about ten times larger,
    and most change with every refresh of a busy cloud.
    """
    return 'v3/flavor/%s/hosts' % flavor_id


def _type_part(gpu_type):
    # A type is named by a [pci] alias, which may hold any character:
    # quoted, "A/hosts" cannot be mistaken for the hosts of "A".
    return urllib.parse.quote(gpu_type, safe='')


def v3_gpu(gpu_type):
    """One type of V3_GPUS, ``{head..., "gpu": {...}}``, as anyone sees it."""
    return 'v3/gpu/%s' % _type_part(gpu_type)


def v3_gpu_hosts(gpu_type):
    """The per-host rows of a GPU type, as columns (see with_gpu_hosts())."""
    return 'v3/gpu/%s/hosts' % _type_part(gpu_type)


def legacy_gpu(gpu_type):
    """One type of LEGACY_GPUS, the bare object."""
    return 'legacy/gpu/%s' % _type_part(gpu_type)


def hosts_page(page):
    """Page page of the host index: HOSTS_PER_PAGE hosts, as columns."""
    return '%s%d' % (HOSTS_PAGE_PREFIX, page)


def is_hosts_page(name):
    return name.startswith(HOSTS_PAGE_PREFIX)


HOSTS_PAGE_PREFIX = 'hosts/'


#: Hosts in one page of the host index, which lists every host of the
#: snapshot in its order: the per-host numbers name hosts by position.
HOSTS_PER_PAGE = 2048


# The items of SEED_LIST: what the seed's client (the de.NBI SimpleVM
# portal backend) reads, with the type it casts each to. A missing field
# becomes 0 or "" there, a null in an int field drops the flavor, so every
# field is always there and never null.
SEED_FIELDS = (('id', str), ('name', str), ('available', int),
               ('total', int), ('cores', int), ('mem', int), ('type', str),
               ('root_disk', int), ('ephemeral_disk', int))
#: Only in the items of GPU flavors (TYPE SEED_GPU).
SEED_GPU_FIELDS = (('gpu_type', str), ('gpu_count', int))
SEED_GPU = 'gpu'
SEED_CPU = 'cpu'

# Fields the API reads inside documents.

FLAVORS = 'flavors'            # the list of a list document
FLAVOR = 'flavor'              # the flavor of a one-flavor document
ID = 'id'
NAME = 'name'
TOTAL = 'total'
AVAILABLE = 'available'
ZONES = 'availability_zones'   # {zone: {TOTAL, AVAILABLE}}
ZONE = 'availability_zone'
#: {TOTAL, AVAILABLE} of a flavor on hosts only named projects may use
#: (tenant isolation), not in its TOTAL and AVAILABLE.
RESERVED = 'reserved'
STALE = 'stale'                # true in what the API serves of old data
LEGACY_ID = 'flavor_openstack_id'
HOSTS = 'hosts'                # a flavor's per-host rows, as served
EXCLUDED = 'excluded_hosts'    # {why: how many hosts}
#: {host: why} of the hosts whose resources could not be read: excluded
#: from every flavor (EXCLUDED says how many under UNREADABLE_REASON), so
#: the numbers are partial while it is not empty. Added to the head of
#: the v3 documents for callers who may see hosts (the UNREADABLE
#: document); in the status entry (at most UNREADABLE_PUBLISHED hosts).
UNREADABLE_HOSTS = 'unreadable_hosts'
#: In the head of every v3 document: whether hosts were unreadable.
PARTIAL = 'partial'

GPUS = 'gpus'                  # the list of a GPU list document
GPU = 'gpu'                    # the type of a one-type document
TYPE = 'type'
USED = 'used'
FREE = 'free'
#: Free devices no flavor that could take them can start with now.
STRANDED = 'stranded'
STRANDED_BY = 'stranded_by'    # {why: devices}
BLOCKED_BY = 'blocked_by'      # per host: why its free devices are stranded
#: Instances (of a flavor) or devices (of a GPU type) the free resources
#: would hold if pooled per zone, beyond what fits host by host
#: (capacity/fit/fragmentation.py).
FRAGMENTED = 'fragmented'
#: In a flavor's own document: {POOLED}, and FRAGMENTS as served.
FRAGMENTATION = 'fragmentation'
POOLED = 'pooled'
FRAGMENTED_BY_FLAVOR = 'fragmented_by_flavor'  # a GPU type's flavors
#: In v3_flavor_hosts(): [[position, {demand: leftover}, closeness]] of the
#: hosts closest to one more instance; as served, rows with host names.
FRAGMENTS = 'fragments'
LEFTOVER = 'leftover'
CLOSENESS = 'closeness'

# Columns of v3_flavor_hosts() (besides EXCLUDED), v3_gpu_hosts() and
# hosts_page() documents.
POSITION = 'position'          # index of the host in the host index
HOST = 'host'
NODE = 'node'
LIMITED_BY = 'limited_by'      # codes into LABELS, -1 for none
LABELS = 'labels'

# Stamps: what the renderer writes where a document says when its
# numbers were first seen; the publisher replaces them (stamped()), so
# that they change only when the content does and a client polling with
# If-None-Match gets 304 until a number changes. NUL cannot occur in a
# flavor's name or in any other rendered string, so a stamp is never
# mistaken for data.

#: ISO 8601 UTC, in the v3 documents.
COLLECTED_AT = '\x00collected-at\x00'
#: "YYYY-MM-DD HH:MM:SS" local time, in the predecessor's documents.
LEGACY_COLLECTED_AT = '\x00legacy-collected-at\x00'

# The pointer: the cache entry naming the current generation.

#: The version of this contract the generation follows. A reader serves
#: only the version it knows: documents of another release's worker may
#: lack what it reads, or hold it elsewhere.
FORMAT = 'format'
FORMAT_VERSION = 3
GENERATION = 'generation'      # unique id of the generation
SEQUENCE = 'sequence'          # grows by one with each generation
#: When the pointer was written (seconds since the epoch): API processes
#: all start serving a generation [api] generation_check_interval later.
PUBLISHED_AT = 'published_at'
MANIFEST = 'manifest'          # the manifest's Entry, as a list
TIMESTAMP = 'timestamp'        # ISO 8601 UTC, when the cloud was read
SOURCE = 'source'
FLAVOR_COUNT = 'flavor_count'
API_CALLS = 'api_calls'
#: How many hosts of the generation were unreadable (also a status field,
#: and in the head of every v3 document).
UNREADABLE_COUNT = 'unreadable_host_count'

# The manifest: {DOCUMENTS: {document name: Entry as a list}}.
DOCUMENTS = 'documents'
# The largest stored part. memcached refuses items over its -I size (1 MB
# by default); a larger document is stored in several parts.
PART_BYTES = 512 * 1024

# The status entry: the worker's last refresh attempt, good or bad. The API
# serves it whole at /v3/status and reads these fields for /metrics.

LAST_ATTEMPT_AT = 'last_attempt_at'
LAST_SUCCESS_AT = 'last_success_at'
LAST_ERROR = 'last_error'      # {"at", "message"}, or None
DURATION = 'duration_seconds'
CONSECUTIVE_FAILURES = 'consecutive_failures'
# API_CALLS too, as in the pointer; after a successful refresh also
# UNREADABLE_HOSTS and UNREADABLE_COUNT, of the data it published, and:
COLLECT = 'collect'              # the source's figures of its last read
PROBLEMS = 'problems'            # the first of the refresh's problems
PROBLEM_COUNT = 'problem_count'  # how many there were
UNREADABLE_PUBLISHED = 100


def initial_status():
    """The status entry of a worker that has not refreshed yet."""
    return {LAST_ATTEMPT_AT: None, LAST_SUCCESS_AT: None, LAST_ERROR: None,
            DURATION: None, API_CALLS: None, CONSECUTIVE_FAILURES: 0}


# Cache entries that are not documents of a generation.
POINTER_NAME = 'current'
STATUS_NAME = 'status'
#: Written by an API process that found no data ([api] compute_on_miss),
#: or parts of the current generation missing: the leading worker
#: publishes at once instead of at its next interval. Holds
#: ``{GENERATION: the generation with parts missing, or null}``.
REFRESH_REQUEST_NAME = 'refresh-request'

# Per-project documents (/v3/projects/{project_id}/flavors/): the API
# joins the generation's FOOTPRINTS, PROJECT_PATTERNS and
# project_capacity() documents with a project's quota part, which is not
# part of a generation: the leading worker reads a project's quota when
# an API process asks (PROJECT_REQUESTS_NAME, publication/mailboxes.py)
# and writes the part, then the project's entry; both expire after
# [projects] forget_after.

#: The requests of API processes: a counter and a ring of slots.
PROJECT_REQUESTS_NAME = 'project-requests'
#: The set checks API processes ask for (mailboxes.CheckRequests).
CHECK_REQUESTS_NAME = 'check-requests'
#: The what-ifs API processes ask for (mailboxes.AnswerRequests).
WHATIF_REQUESTS_NAME = 'whatif-requests'
#: The defrag requests API processes ask for (mailboxes.AnswerRequests).
DEFRAG_REQUESTS_NAME = 'defrag-requests'

# What the workers hear of Nova's notifications (worker/notifications.py),
# for the leading worker (publication/mailboxes.py): a counter per part
# of the cloud to read again, and the requests Nova placed nowhere in a
# ring of slots.
CHANGES_NAME = 'changes'
TURNED_AWAY_NAME = 'turned-away'
#: The leading worker's running totals of those, served in /v3/status as
#: "demand" and in /metrics: {TURNED_AWAY_SEEN: ring number,
#: TURNED_AWAY_LOST: failures the ring lost before being read,
#: DEMAND_FLAVORS: {flavor id: {NAME, TURNED_AWAY, LAST_AT, PROJECTS:
#: {project id: count}, OTHER_PROJECTS: count}}, DEMAND_UNKNOWN:
#: {TURNED_AWAY, LAST_AT}}. Only flavors of the flavor list, named from
#: it; failures of other ids go to DEMAND_UNKNOWN (worker/demand.py).
DEMAND_NAME = 'demand'
DEMAND_UNKNOWN = 'unknown'
OTHER_PROJECTS = 'other_projects'
TURNED_AWAY = 'turned_away'
TURNED_AWAY_SEEN = 'seen'
TURNED_AWAY_LOST = 'lost'
DEMAND_FLAVORS = 'flavors'
LAST_AT = 'last_at'
PROJECTS = 'projects'
#: How the leading worker answers them: counts and the last error,
#: served in /v3/status as "projects".
PROJECT_STATUS_NAME = 'project-status'


def project(project_id):
    """The entry of a project: ENTRY of its quota part, or PROBLEM."""
    return 'project/%s' % project_id


# Fields of a project's entry.
ENTRY = 'entry'                # the quota part's Entry, as a list
COMPUTED_AT = 'computed_at'    # seconds since the epoch
QUOTA_READ_AT = 'quota_read_at'
#: Why the project has no answer, or no newer one: {PROBLEM_KIND,
#: REASON, RETRY_AT (seconds since the epoch)}; absent when none.
PROBLEM = 'problem'
PROBLEM_KIND = 'kind'
REASON = 'reason'
RETRY_AT = 'retry_at'
#: The project does not exist (Keystone or Nova said so).
UNKNOWN_PROJECT = 'unknown'
#: Its quota could not be read, or the answer lacked what Nova counts.
QUOTA_UNREADABLE = 'unreadable'

# Fields of a project's document.
PROJECT_ID = 'project_id'
STARTABLE = 'startable'
QUOTA = 'quota'
QUOTA_TIMESTAMP = 'quota_timestamp'

# memcached keys: at most 250 bytes, no spaces or control characters.
_MAX_NAME = 160


class Entry(collections.namedtuple('Entry', 'identity changed_at parts')):
    """One stored document: content identity, when first seen, parts."""

    def part_names(self):
        return ['blob/%s-%d-%d' % (self.identity, self.changed_at, i)
                for i in range(self.parts)]

    @property
    def etag(self):
        """The strong entity tag of the bytes this entry stores."""
        return '"%s-%x"' % (self.identity, self.changed_at)


def identity(body):
    """A short digest of bytes: equal content, equal identity."""
    return hashlib.blake2b(body, digest_size=10).hexdigest()


def split(body):
    """The parts body is stored in (at least one)."""
    return [body[i:i + PART_BYTES]
            for i in range(0, max(len(body), 1), PART_BYTES)]


def stamp(body, placeholder, value):
    """body with every stamp placeholder replaced by the string value."""
    return body.replace(_fragment(placeholder), _fragment(value))


def stamped(body, first_seen):
    """body with its stamps saying first_seen (seconds since the epoch)."""
    body = stamp(body, COLLECTED_AT, iso_from_epoch(first_seen))
    return stamp(body, LEGACY_COLLECTED_AT, legacy_timestamp(
        datetime.datetime.fromtimestamp(first_seen, datetime.timezone.utc)))


# What the head of every v3 document starts with (see render.py), and
# what it says of data older than [api] stale_after. A quote cannot
# follow "stale" unescaped inside a JSON string, so the first occurrence
# is the head's.
_FRESH = b'"%s":false' % STALE.encode()
_STALE = b'"%s":true' % STALE.encode()


def marked_stale(body):
    """The encoded v3 document body saying ``"stale": true``."""
    return body.replace(_FRESH, _STALE, 1)


def _fragment(text):
    # How a string looks inside encoded JSON, quotes excluded.
    return json.dumps(text, ensure_ascii=False)[1:-1].encode('utf-8')


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


def iso_from_epoch(seconds):
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(seconds))


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
    """The pointer fields a refresh knows; the publisher adds the others."""
    return {FORMAT: FORMAT_VERSION,
            TIMESTAMP: iso_timestamp(collected_at),
            SOURCE: source,
            FLAVOR_COUNT: flavor_count,
            API_CALLS: api_calls}


def key(prefix, name):
    """The memcached key of a cache entry name."""
    safe = urllib.parse.quote(name, safe='/:=.-_')
    if len(safe) > _MAX_NAME:
        safe = 'sha256-' + hashlib.sha256(name.encode()).hexdigest()
    return '%s:%s' % (prefix, safe)


def with_hosts(document, hosts_document, index_page):
    """The v3_flavor() document value as administrators see it.

    hosts_document: the decoded v3_flavor_hosts() document; index_page(n)
    the decoded hosts_page(n) document. The flavor gains its per-host
    rows (HOSTS) and the hosts excluded from it (EXCLUDED), in that order.
    """
    flavor = dict(document[FLAVOR])
    flavor[HOSTS] = _host_rows(hosts_document, index_page)
    flavor[EXCLUDED] = hosts_document[EXCLUDED]
    if flavor.get(FRAGMENTATION) is not None:
        # Documents of a worker before fragmentation have no FRAGMENTS.
        flavor[FRAGMENTATION] = dict(flavor[FRAGMENTATION], **{
            FRAGMENTS: _fragment_rows(hosts_document.get(FRAGMENTS, ()),
                                      index_page)})
    return dict(document, **{FLAVOR: flavor})


def _fragment_rows(fragments, index_page):
    rows = []
    for position, leftover, closeness in fragments:
        page = index_page(position // HOSTS_PER_PAGE)
        at = position % HOSTS_PER_PAGE
        rows.append({HOST: page[HOST][at], NODE: page[NODE][at],
                     ZONE: page[ZONE][at], LEFTOVER: leftover,
                     CLOSENESS: closeness})
    return rows


def _host_rows(numbers, index_page):
    labels = numbers[LABELS]
    rows = []
    for position, total, available, code in zip(
            numbers[POSITION], numbers[TOTAL], numbers[AVAILABLE],
            numbers[LIMITED_BY]):
        page = index_page(position // HOSTS_PER_PAGE)
        at = position % HOSTS_PER_PAGE
        rows.append({HOST: page[HOST][at], NODE: page[NODE][at],
                     ZONE: page[ZONE][at], TOTAL: total,
                     AVAILABLE: available,
                     LIMITED_BY: labels[code] if code >= 0 else None})
    return rows


def with_gpu_hosts(document, hosts_document, index_page):
    """The v3_gpu() document value as administrators see it.

    hosts_document: the decoded v3_gpu_hosts() document, columns
    POSITION, TOTAL, USED, FREE, STRANDED and BLOCKED_BY (codes into
    LABELS, -1 for none); index_page as for with_hosts(). The type gains
    its per-host rows (HOSTS).
    """
    labels = hosts_document[LABELS]
    rows = []
    for position, total, used, free, stranded, code in zip(*(
            hosts_document[column] for column in (
                POSITION, TOTAL, USED, FREE, STRANDED, BLOCKED_BY))):
        page = index_page(position // HOSTS_PER_PAGE)
        at = position % HOSTS_PER_PAGE
        rows.append({HOST: page[HOST][at], NODE: page[NODE][at],
                     ZONE: page[ZONE][at], TOTAL: total, USED: used,
                     FREE: free, STRANDED: stranded,
                     BLOCKED_BY: labels[code] if code >= 0 else None})
    return dict(document, **{GPU: dict(document[GPU], **{HOSTS: rows})})


def manifest_entries(manifest):
    """{document name: Entry} of a decoded manifest."""
    return {name: Entry(*fields)
            for name, fields in manifest[DOCUMENTS].items()}


def encode_manifest(entries):
    return encode({DOCUMENTS: {name: list(entry)
                               for name, entry in sorted(entries.items())}})
