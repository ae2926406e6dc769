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
"""What one API process reads of the published data, for every cloud.

The controllers (controllers/) answer routes from what this module
gives them: the generation a cloud serves and how fresh it is (a
generations.View), the Representation of a published document (bytes,
entity tag, time), its decoded value, and variants made from them (a
list filtered, a copy marked stale, a flavor with its per-host rows).

Whatever is made from published bytes is made once per version of what
it is made from and kept in the memo (memo.py): stored parts never
change, so nothing is invalidated. What goes wrong is raised as an
errors.ApiError: NoData, Unavailable, NotFound.
"""

import collections
import json
import threading
import time
import wsgiref.handlers
import zlib

from flavor_exporter.api import access
from flavor_exporter.api import errors
from flavor_exporter.api import generations
from flavor_exporter.api import memo as memo_mod
from flavor_exporter.policies import capacity as policies
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import mailboxes
from flavor_exporter.publication import reader as reader_mod

# A decoded document holds several times its encoded size in memory.
DECODED_COST = 8
# How long a request for parts missing stays asked for, seconds.
REQUEST_TTL = 60
# What the healthcheck reads to tell whether the data can be served.
PROBED = (pub.V3_LIST, pub.LEGACY_LIST)


class Representation(collections.namedtuple(
        'Representation', 'body etag last_modified')):
    """The bytes of an answer, their strong entity tag, and their time."""


def http_date(epoch):
    return None if epoch is None else wsgiref.handlers.format_date_time(
        epoch)


class Cloud:
    """What one API process knows of one cloud's published data."""

    def __init__(self, reader, watcher, on_cold, status_interval, clock):
        self.reader = reader
        self.watcher = watcher
        #: controllers.projects.ProjectDocuments of the cloud (app.py).
        self.projects = None
        #: controllers.checks.CheckAnswers of the cloud, None when [checks]
        #: enabled is false (app.py).
        self.checks = None
        #: Other kinds of requests the leading worker answers, by the
        #: name of their mailbox (contract.WHATIF_REQUESTS_NAME: a
        #: controllers.checks.WorkerAnswers), set by app.py when enabled.
        self.answers = {}
        self.on_cold = on_cold
        self._refresh_requests = mailboxes.RefreshRequests(
            reader.backend, reader.key)
        watcher.lost_elsewhere = self._lost_generation
        self._status_interval = status_interval
        self._clock = clock
        self._status = None
        self._project_status = None
        self._demand = None
        self._next_status_read = float('-inf')
        self._status_lock = threading.Lock()
        self._next_ask = float('-inf')

    def lost(self, generation):
        """A part of generation is missing: say so, and ask for it again.

        The worker publishes it again at its next check; until then the
        data is marked stale (healthcheck and metrics say so). One
        request per second at most, however many requests miss.
        """
        self.watcher.lost(generation)
        if self._clock() < self._next_ask:
            return
        self._next_ask = self._clock() + 1
        try:
            self._refresh_requests.ask(generation.id, REQUEST_TTL)
        except reader_mod.CacheError:
            pass  # the worker notices a lost server on its own

    def _lost_generation(self):
        """The generation some process asked the worker for again."""
        pending = self._refresh_requests.pending()
        return pending.get(pub.GENERATION) if pending else None

    def status(self):
        """The worker's status entry, read at most once per interval.

        The last entry read stays reported while the cache cannot be read.
        """
        with self._status_lock:
            if self._clock() >= self._next_status_read:
                self._next_status_read = self._clock() + \
                    self._status_interval
                try:
                    self._status = self.reader.status()
                    self._project_status = self.reader.project_status()
                    self._demand = self.reader.demand()
                except reader_mod.CacheError:
                    pass  # the view says the cache is unreachable
        return self._status

    def project_status(self):
        """How the leading worker answers projects, read with status()."""
        self.status()
        return self._project_status

    def demand(self):
        """The requests Nova placed nowhere, read with status()."""
        self.status()
        return self._demand


class Published:
    """The published data of every cloud an API process serves."""

    def __init__(self, readers, default, check_interval, stale_after,
                 retry_after, on_cold=None, memo=None, clock=time.monotonic,
                 wall_clock=time.time):
        """readers: {cloud name: publication.reader.Reader}, in order.

        default: the name of the cloud the legacy and unprefixed routes
        serve; on_cold: {cloud name: callable filling that cloud's cold
        cache, True when it did} ([api] compute_on_miss); retry_after:
        the Retry-After of a 503 when there is nothing to serve.
        """
        on_cold = on_cold or {}
        self.default = default
        self.stale_after = stale_after
        self.retry_after = retry_after
        self.clouds = collections.OrderedDict(
            (name, Cloud(reader, generations.GenerationWatcher(
                reader, check_interval, stale_after, clock=clock,
                wall_clock=wall_clock), on_cold.get(name), check_interval,
                clock))
            for name, reader in readers.items())
        self._memo = memo if memo is not None else memo_mod.Memo()

    def names(self):
        """The clouds served, in their configured order."""
        return list(self.clouds)

    def cloud(self, name):
        """The Cloud of name (the default one: None); NotFound if none."""
        state = self.clouds.get(self.default if name is None else name)
        if state is None:
            raise errors.NotFound('No cloud is named "%s"; GET /v3/clouds/ '
                                  'lists them.' % name)
        return state

    # Freshness

    def view(self, cloud=None, fill=True):
        """The generations.View of cloud's data (the default cloud: None).

        With fill, a cold cache is filled first when [api]
        compute_on_miss says so. Raises NoData when nothing was
        published, Unavailable when the cache fails and this process
        holds nothing, NotFound for an unknown cloud.
        """
        state = self.cloud(cloud)
        view = state.watcher.view()
        if view.generation is None and view.trouble is None and fill and \
                state.on_cold is not None and state.on_cold():
            view = state.watcher.view(force=True)
        if view.generation is None:
            if view.trouble:
                raise errors.Unavailable(view.trouble, self.retry_after)
            raise errors.NoData(self.retry_after)
        return view

    def peek(self, cloud=None):
        """The View of cloud's data as it is, even with none (no filling)."""
        return self.cloud(cloud).watcher.view()

    def status(self, cloud=None):
        """The last status entry cloud's worker wrote, or None."""
        return self.cloud(cloud).status()

    def project_status(self, cloud=None):
        """How cloud's leading worker answers projects, or None."""
        return self.cloud(cloud).project_status()

    def demand(self, cloud=None):
        """The requests cloud's Nova placed nowhere, or None."""
        return self.cloud(cloud).demand()

    def probe(self, cloud=None):
        """The View of cloud's data once its main documents were read.

        A generation whose pointer and manifest are there but whose parts
        a memcached server lost must not look healthy: reading the lists
        most clients ask for (held here after the first time) marks it.
        """
        state = self.cloud(cloud)
        view = state.watcher.view()
        if view.generation is not None:
            for name in PROBED:
                try:
                    self.document(state, view.generation, name)
                except errors.Unavailable:
                    return state.watcher.view()
        return view

    def answering(self, cloud):
        """(Cloud, View) of the cloud a route answers from."""
        return self.cloud(cloud), self.view(cloud)

    # Documents and what is made of them

    def document(self, state, generation, name, required=False):
        """The Representation of a published document, or None if absent.

        required: absent is Unavailable, not None.
        """
        entry = generation.documents.get(name)
        if entry is None:
            if required:
                raise errors.Unavailable(
                    'the published data has no %s document' % name,
                    self.retry_after)
            return None
        return self._memo.get(('document', entry),
                              lambda: self._fetch(state, generation, entry),
                              lambda held: len(held.body))

    def _fetch(self, state, generation, entry):
        try:
            body = state.reader.read(entry)
        except reader_mod.MissingData as exc:
            state.lost(generation)
            raise errors.Unavailable(str(exc), self.retry_after) from exc
        except reader_mod.CacheError as exc:
            raise errors.Unavailable('%s: %s' % (
                generations.UNREACHABLE, exc), self.retry_after) from exc
        return Representation(body, entry.etag, http_date(entry.changed_at))

    def decoded(self, held):
        """The decoded value of a Representation, shared: do not modify."""
        return self._memo.get(('value', held.etag),
                              lambda: json.loads(held.body),
                              lambda value: DECODED_COST * len(held.body))

    def value(self, state, generation, name):
        """A document's decoded value, shared: callers must not modify it."""
        return self.decoded(self.document(state, generation, name,
                                          required=True))

    def derived(self, state, generation, name, purpose, compute):
        """compute(decoded document name), made once per version."""
        held = self.document(state, generation, name, required=True)
        return self.made(held, purpose,
                         lambda: compute(self.decoded(held)))

    def made(self, held, purpose, make):
        """make(), kept while held (a Representation) is current.

        purpose tells apart what is made of the same bytes; what is
        made costs, in the budget, a few times their size.
        """
        return self._memo.get(('derived', held.etag, purpose), make,
                              lambda value: DECODED_COST * len(held.body))

    def variant(self, base, variant, make):
        """The Representation make() encodes, once per (base, variant).

        Its entity tag is base's, marked with variant: one strong tag
        per distinct body.
        """
        def build():
            tag = zlib.crc32(repr(variant).encode('utf-8'))
            return Representation(make(), '%s-%08x"' % (base.etag[:-1], tag),
                                  base.last_modified)
        return self._memo.get(('variant', base.etag, variant), build,
                              lambda held: len(held.body))

    def fresh_or_stale(self, held, view):
        """held as published, or saying it is stale when view is."""
        if not view.stale:
            return held
        return self.variant(held, ('stale',),
                            lambda: pub.marked_stale(held.body))

    # What a caller may see

    def visible(self, state, generation, caller):
        """None when caller sees every flavor, else a test of flavor ids.

        Private flavors are seen by the projects they are shared with, and
        by those whom policy lets see them all.
        """
        if caller.may(policies.ALL_FLAVORS):
            return None
        private = self.derived(state, generation, pub.ACCESS, 'private',
                               access.private_flavors)
        if not private:
            return None
        project = caller.project_id
        return lambda flavor_id: access.may_see(private, flavor_id, project)

    def unreadable_hosts(self, state, generation, caller):
        """{host: why} of the unreadable hosts, for those who see hosts.

        None when there are none, or when the caller may not see host
        names (the documents' unreadable_host_count and partial fields
        say how many and that the numbers are partial).
        """
        if not generation.pointer.get(pub.UNREADABLE_COUNT) or \
                not caller.may(policies.HOSTS):
            return None
        return self.value(state, generation, pub.UNREADABLE)

    def with_host_rows(self, state, view, held, name, hosts_name, join,
                       caller):
        """held (document name) with its per-host rows: a variant.

        hosts_name: the document of the rows; join(document, rows, page):
        the document with them (contract.with_hosts, with_gpu_hosts);
        the unreadable hosts named for a caller who may see hosts.
        """
        generation = view.generation
        hosts = self.document(state, generation, hosts_name, required=True)
        unreadable = self.unreadable_hosts(state, generation, caller)

        def make():
            document = join(
                self.value(state, generation, name), self.decoded(hosts),
                lambda page: self.value(state, generation,
                                        pub.hosts_page(page)))
            return pub.encode(marked(document, view.stale, unreadable))
        # The rows are made of these too: a new version of any is new.
        variant = ('hosts', hosts.etag, generation.host_index_tags,
                   view.stale, unreadable_tag(generation, unreadable))
        return self.variant(held, variant, make)

    def flavor_id(self, state, generation, key):
        """The id of the flavor key names, or None."""
        # Ids first: a flavor may be named like another's id. The
        # manifest knows the ids; the names cost one decoded document.
        if pub.v3_flavor(key) in generation.documents:
            return key
        return self.derived(state, generation, pub.V3_NAMES, 'names',
                            dict).get(key)


def unreadable_tag(generation, unreadable):
    """What tells one unreadable_hosts() answer from another, for variants."""
    if unreadable is None:
        return None
    return generation.documents[pub.UNREADABLE].etag


def marked(document, stale, unreadable=None):
    """A decoded v3 document saying it is stale, and naming hosts."""
    if stale:
        document = dict(document, **{pub.STALE: True})
    if unreadable:
        document = dict(document, **{pub.UNREADABLE_HOSTS: unreadable})
    return document
