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
"""What the API's routes ask of the published data.

One Queries object per API process answers every cloud's questions: the
legacy list and flavor, the v2 list (filtered), a v2 flavor (with its
per-host rows for those who may see them), GPU types (the same three
ways), the data's freshness and the worker's status. An answer is an
Answer: the Representation to serve (bytes, entity tag, time) and the
View it came from (how fresh). What
goes wrong is one of NotFound, NoData, Unavailable or filters.BadQuery;
the HTTP layer (dispatch.py) turns them into status codes.

Most answers are published documents served as they are. The others are
made here from them, once per version of what they are made from (see
memo.py): a stale copy, a list filtered by query or by what the caller's
project may see, a flavor with its per-host rows.
"""

import collections
import json
import threading
import time
import wsgiref.handlers
import zlib

from flavor_exporter.api import access
from flavor_exporter.api import filters
from flavor_exporter.api import generations
from flavor_exporter.api import memo as memo_mod
from flavor_exporter.policies import capacity as policies
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import reader as reader_mod

#: The predecessor's answer for a flavor it does not serve, kept verbatim.
UNKNOWN_LEGACY_FLAVOR = 'Unknown flavor id!'
#: Its first API's answer for an unknown GPU type, in the same words (its
#: openapi.yaml gave the shape, {"message"}, not the text).
UNKNOWN_LEGACY_GPU = 'Unknown GPU type!'
# A decoded document holds several times its encoded size in memory.
DECODED_COST = 8
# How long a request for parts missing stays asked for, seconds.
REQUEST_TTL = 60
# What the healthcheck reads to tell whether the data can be served.
PROBED = (pub.V2_LIST, pub.LEGACY_LIST)


class NotFound(Exception):
    """What the route names does not exist for this caller; str() says so."""


class NoData(Exception):
    """Nothing has been published yet: the cache is cold."""


class Unavailable(Exception):
    """The cache failed and this process holds no copy of the answer."""


class Representation(collections.namedtuple(
        'Representation', 'body etag last_modified')):
    """The bytes of an answer, their strong entity tag, and their time."""


class Answer(collections.namedtuple('Answer', 'representation view')):
    """A Representation and the generations.View it was made from."""


def http_date(epoch):
    return None if epoch is None else wsgiref.handlers.format_date_time(
        epoch)


class _Cloud:
    """What one API process knows of one cloud's published data."""

    def __init__(self, reader, watcher, on_cold, status_interval, clock):
        self.reader = reader
        self.watcher = watcher
        self.on_cold = on_cold
        self._status_interval = status_interval
        self._clock = clock
        self._status = None
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
            self.reader.request_refresh(generation.id, REQUEST_TTL)
        except reader_mod.CacheError:
            pass  # the worker notices a lost server on its own

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
                except reader_mod.CacheError:
                    pass  # the view says the cache is unreachable
        return self._status


class Queries:
    """The answers of an API process, for every cloud it serves."""

    def __init__(self, readers, default, check_interval, stale_after,
                 on_cold=None, memo=None, clock=time.monotonic,
                 wall_clock=time.time):
        """readers: {cloud name: publication.reader.Reader}, in order.

        default: the name of the cloud the legacy and unprefixed v2
        routes serve; on_cold: {cloud name: callable filling that cloud's
        cold cache, True when it did} ([api] compute_on_miss).
        """
        on_cold = on_cold or {}
        self.default = default
        self._clouds = collections.OrderedDict(
            (name, _Cloud(reader, generations.GenerationWatcher(
                reader, check_interval, stale_after, clock=clock,
                wall_clock=wall_clock), on_cold.get(name), check_interval,
                clock))
            for name, reader in readers.items())
        self._memo = memo if memo is not None else memo_mod.Memo()

    def names(self):
        """The clouds served, in their configured order."""
        return list(self._clouds)

    # Freshness

    def view(self, cloud=None, fill=True):
        """The generations.View of cloud's data (the default cloud: None).

        With fill, a cold cache is filled first when [api]
        compute_on_miss says so. Raises NoData when nothing was
        published, Unavailable when the cache fails and this process
        holds nothing, NotFound for an unknown cloud.
        """
        state = self._cloud(cloud)
        view = state.watcher.view()
        if view.generation is None and view.trouble is None and fill and \
                state.on_cold is not None and state.on_cold():
            view = state.watcher.view(force=True)
        if view.generation is None:
            if view.trouble:
                raise Unavailable(view.trouble)
            raise NoData()
        return view

    def peek(self, cloud=None):
        """The View of cloud's data as it is, even with none (no filling)."""
        return self._cloud(cloud).watcher.view()

    def status(self, cloud=None):
        """The last status entry cloud's worker wrote, or None."""
        return self._cloud(cloud).status()

    def probe(self, cloud=None):
        """The View of cloud's data once its main documents were read.

        A generation whose pointer and manifest are there but whose parts
        a memcached server lost must not look healthy: reading the lists
        most clients ask for (held here after the first time) marks it.
        """
        state = self._cloud(cloud)
        view = state.watcher.view()
        if view.generation is not None:
            for name in PROBED:
                try:
                    self._document(state, view.generation, name)
                except Unavailable:
                    return state.watcher.view()
        return view

    # The predecessor's routes

    def legacy_flavors(self, cloud, caller):
        """/gpus/flavors: the GPU flavors the caller may see."""
        state, view = self._answering(cloud)
        held = self._document(state, view.generation, pub.LEGACY_LIST,
                              required=True)
        visible = self._visible(state, view.generation, caller)
        if visible is not None:
            held = self._variant(held, ('project', caller.project_id),
                                 lambda: pub.encode(self._only(
                                     state, view.generation, pub.LEGACY_LIST,
                                     pub.LEGACY_ID, visible)))
        return Answer(held, view)

    def legacy_flavor(self, cloud, flavor_id, caller):
        """/gpus/flavors/{id}: one GPU flavor the caller may see."""
        state, view = self._answering(cloud)
        held = self._document(state, view.generation,
                              pub.legacy_flavor(flavor_id))
        visible = self._visible(state, view.generation, caller)
        if held is None or (visible is not None and not visible(flavor_id)):
            raise NotFound(UNKNOWN_LEGACY_FLAVOR)
        return Answer(held, view)

    # v2

    def flavors(self, cloud, query, caller):
        """/v2/flavors/: every flavor the caller may see, filtered by query.

        query: a filters.ListQuery. Raises filters.BadQuery for a zone the
        cloud does not have.
        """
        state, view = self._answering(cloud)
        generation = view.generation
        name = query.document()
        base = self._document(state, generation, name, required=True)
        visible = self._visible(state, generation, caller)
        if not query.rewrites and visible is None:
            return Answer(self._fresh_or_stale(base, view), view)

        def make():
            document = self._value(state, generation, name)
            if visible is not None:
                document = dict(document, **{pub.FLAVORS: self._only(
                    state, generation, name, pub.ID, visible)[pub.FLAVORS]})
            if query.rewrites:
                zones = None
                if query.availability_zone is not None:
                    zones = self._derived(state, generation, pub.V2_LIST,
                                          'zones', filters.known_zones)
                document = filters.apply(query, document, zones)
            return pub.encode(_marked(document, view.stale))
        variant = (query.availability_zone, query.name, view.stale,
                   None if visible is None else caller.project_id)
        return Answer(self._variant(base, variant, make), view)

    def flavor(self, cloud, flavor, caller):
        """/v2/flavors/{flavor}: one flavor by id or name.

        With the hosts policy, the flavor carries its per-host rows and
        the hosts excluded from it.
        """
        state, view = self._answering(cloud)
        generation = view.generation
        flavor_id = self._flavor_id(state, generation, flavor)
        visible = self._visible(state, generation, caller)
        if flavor_id is None or (visible is not None
                                 and not visible(flavor_id)):
            # A flavor the caller may not see does not exist for them.
            raise NotFound('No flavor has the id or name "%s".' % flavor)
        base = self._document(state, generation, pub.v2_flavor(flavor_id),
                              required=True)
        if not caller.may(policies.HOSTS):
            return Answer(self._fresh_or_stale(base, view), view)
        hosts = self._document(state, generation,
                               pub.v2_flavor_hosts(flavor_id), required=True)

        def make():
            document = pub.with_hosts(
                self._value(state, generation, pub.v2_flavor(flavor_id)),
                self._value(state, generation,
                            pub.v2_flavor_hosts(flavor_id)),
                lambda page: self._value(state, generation,
                                         pub.hosts_page(page)))
            return pub.encode(_marked(document, view.stale))
        # The rows are made of these too: a new version of any is new.
        variant = ('hosts', hosts.etag, generation.host_index_tags,
                   view.stale)
        return Answer(self._variant(base, variant, make), view)

    # GPU types

    def legacy_gpus(self, cloud, caller):
        """/gpus: every GPU type, the predecessor's first shape."""
        state, view = self._answering(cloud)
        return Answer(self._document(state, view.generation,
                                     pub.LEGACY_GPUS, required=True), view)

    def legacy_gpu(self, cloud, gpu_type, caller):
        """/gpus/{gpu_type}: one GPU type, the predecessor's first shape."""
        state, view = self._answering(cloud)
        held = self._gpu_document(state, view.generation, pub.LEGACY_GPUS,
                                  pub.legacy_gpu(gpu_type))
        if held is None:
            raise NotFound(UNKNOWN_LEGACY_GPU)
        return Answer(held, view)

    def gpus(self, cloud, query, caller):
        """/v2/gpus/: every GPU type, filtered by query (filters.GpuQuery).

        Raises filters.BadQuery for a zone the cloud does not have.
        """
        state, view = self._answering(cloud)
        generation = view.generation
        base = self._document(state, generation, pub.V2_GPUS, required=True)
        if query.availability_zone is None:
            return Answer(self._fresh_or_stale(base, view), view)

        def make():
            # A zone with hosts but no GPUs is known: its types count 0.
            zones = (self._derived(state, generation, pub.V2_LIST, 'zones',
                                   filters.known_zones)
                     | self._derived(state, generation, pub.V2_GPUS,
                                     'zones', filters.gpu_zones))
            document = filters.apply_gpus(
                query, self._value(state, generation, pub.V2_GPUS), zones)
            return pub.encode(_marked(document, view.stale))
        return Answer(self._variant(base, (query.availability_zone,
                                           view.stale), make), view)

    def gpu(self, cloud, gpu_type, caller):
        """/v2/gpus/{gpu_type}: one GPU type.

        With the hosts policy, the type carries its per-host rows.
        """
        state, view = self._answering(cloud)
        generation = view.generation
        name = pub.v2_gpu(gpu_type)
        base = self._gpu_document(state, generation, pub.V2_GPUS, name)
        if base is None:
            raise NotFound('No GPU type is named "%s"; GET /v2/gpus/ lists '
                           'them.' % gpu_type)
        if not caller.may(policies.HOSTS):
            return Answer(self._fresh_or_stale(base, view), view)
        hosts_name = pub.v2_gpu_hosts(gpu_type)
        hosts = self._document(state, generation, hosts_name, required=True)

        def make():
            document = pub.with_gpu_hosts(
                self._value(state, generation, name),
                self._value(state, generation, hosts_name),
                lambda page: self._value(state, generation,
                                         pub.hosts_page(page)))
            return pub.encode(_marked(document, view.stale))
        variant = ('hosts', hosts.etag, generation.host_index_tags,
                   view.stale)
        return Answer(self._variant(base, variant, make), view)

    def _gpu_document(self, state, generation, listed, name):
        """Document name of a GPU type, or None when there is no such type.

        A generation without the list (its worker predates GPU types)
        has nothing to say about any type: Unavailable, not NotFound.
        """
        if listed not in generation.documents:
            raise Unavailable('the published data has no %s document'
                              % listed)
        return self._document(state, generation, name)

    def metrics(self, cloud, view):
        """The published per-flavor gauges of view's generation, bytes."""
        held = self._document(self._cloud(cloud), view.generation,
                              pub.METRICS)
        return held.body if held is not None else b''

    # How answers are made

    def _cloud(self, name):
        state = self._clouds.get(self.default if name is None else name)
        if state is None:
            raise NotFound('No cloud is named "%s"; GET /v2/clouds lists '
                           'them.' % name)
        return state

    def _answering(self, cloud):
        return self._cloud(cloud), self.view(cloud)

    def _document(self, state, generation, name, required=False):
        """The Representation of a published document, or None if absent.

        required: absent is Unavailable, not None.
        """
        entry = generation.documents.get(name)
        if entry is None:
            if required:
                raise Unavailable('the published data has no %s document'
                                  % name)
            return None
        return self._memo.get(('document', entry),
                              lambda: self._fetch(state, generation, entry),
                              lambda held: len(held.body))

    @staticmethod
    def _fetch(state, generation, entry):
        try:
            body = state.reader.read(entry)
        except reader_mod.MissingData as exc:
            state.lost(generation)
            raise Unavailable(str(exc)) from exc
        except reader_mod.CacheError as exc:
            raise Unavailable('%s: %s' % (generations.UNREACHABLE,
                                          exc)) from exc
        return Representation(body, entry.etag, http_date(entry.changed_at))

    def _value(self, state, generation, name):
        """A document's decoded value, shared: callers must not modify it."""
        held = self._document(state, generation, name, required=True)
        return self._memo.get(('value', held.etag),
                              lambda: json.loads(held.body),
                              lambda value: DECODED_COST * len(held.body))

    def _derived(self, state, generation, name, purpose, compute):
        """compute(decoded document name), made once per version."""
        held = self._document(state, generation, name, required=True)
        return self._memo.get(
            ('derived', held.etag, purpose),
            lambda: compute(self._value(state, generation, name)),
            lambda value: DECODED_COST * len(held.body))

    def _variant(self, base, variant, make):
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

    def _fresh_or_stale(self, held, view):
        """held as published, or saying it is stale when view is."""
        if not view.stale:
            return held
        return self._variant(held, ('stale',),
                             lambda: pub.marked_stale(held.body))

    def _visible(self, state, generation, caller):
        """None when caller sees every flavor, else a test of flavor ids.

        Private flavors are seen by the projects they are shared with, and
        by those whom policy lets see them all.
        """
        if caller.may(policies.ALL_FLAVORS):
            return None
        private = self._derived(state, generation, pub.ACCESS, 'private',
                                access.private_flavors)
        if not private:
            return None
        project = caller.project_id
        return lambda flavor_id: access.may_see(private, flavor_id, project)

    def _only(self, state, generation, name, id_field, visible):
        """The list document name with the visible flavors only."""
        document = self._value(state, generation, name)
        return dict(document, **{pub.FLAVORS: [
            f for f in document[pub.FLAVORS] if visible(f[id_field])]})

    def _flavor_id(self, state, generation, key):
        """The id of the flavor key names, or None."""
        # Ids first: a flavor may be named like another's id. The
        # manifest knows the ids; the names cost one decoded document.
        if pub.v2_flavor(key) in generation.documents:
            return key
        return self._derived(state, generation, pub.V2_NAMES, 'names',
                             dict).get(key)


def _marked(document, stale):
    return dict(document, **{pub.STALE: True}) if stale else document
