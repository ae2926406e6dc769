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

"""One refresh: collect a snapshot, compute, render, publish, record.

A refresh publishes a complete new generation or nothing: any failure
leaves the previous generation in place and is recorded in the status
entry that the API exposes.
"""

import dataclasses
import datetime
import time

from oslo_log import log

from flavor_exporter.capacity import engine
from flavor_exporter.capacity.filters import instance_caps
from flavor_exporter.capacity.filters import tenancy
from flavor_exporter.capacity.fit import numa_fit
from flavor_exporter.capacity.fit import vector_fit
from flavor_exporter.capacity.request import pci_alias
from flavor_exporter.common import clouds
from flavor_exporter.common import exceptions
from flavor_exporter.common import failures
from flavor_exporter.publication import cache
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import publisher as publisher_mod
from flavor_exporter.publication import render
from flavor_exporter.worker import cell_databases
from flavor_exporter.worker import heap
from flavor_exporter.worker import hypervisors_source
from flavor_exporter.worker import notices
from flavor_exporter.worker import openstack
from flavor_exporter.worker import placement_source
from flavor_exporter.worker import projects
from flavor_exporter.worker import provider_store
from flavor_exporter.worker import quotas

LOG = log.getLogger(__name__)

# Problem lines kept in the status entry: enough to act on, and a cloud
# with thousands of broken hosts still fits one memcached item.
PROBLEMS_PUBLISHED = 100


def _now():
    return datetime.datetime.now(datetime.timezone.utc)


def engine_options(conf):
    """Engine options from CONF; exceptions.InvalidOption on a bad [pci] alias.

    The one place [pci] alias is parsed. Commands call it before they
    start, so that a bad alias stops them at once, and hand the result to
    the Refresher.
    """
    try:
        aliases = pci_alias.parse_aliases(conf.pci.alias)
    except ValueError as exc:
        # The message already names [pci] alias and what is wrong.
        raise exceptions.InvalidOption(str(exc)) from None
    return engine.Options(
        aliases=aliases,
        skip_patterns=tuple(conf.capacity.skip_flavor_patterns),
        aggregate_instance_extra_specs=(
            conf.capacity.aggregate_instance_extra_specs),
        isolate_aggregates=conf.capacity.enable_isolated_aggregate_filtering,
        tenancy=tenant_isolation(conf),
        default_availability_zone=conf.capacity.default_availability_zone,
        instance_caps=instance_caps.Caps(
            num_instances_filter=conf.capacity.num_instances_filter,
            aggregate_num_instances_filter=(
                conf.capacity.aggregate_num_instances_filter),
            max_instances_per_host=conf.capacity.max_instances_per_host),
        numa=numa_fit.Rules(
            enabled=conf.capacity.numa_topology_filter,
            # Nova 30 (2024.2) keeps pinned memory from overcommitting.
            pinned_memory_free=conf.capacity.nova_release != '2024.1',
            pack=conf.capacity.packing_host_numa_cells_allocation_strategy),
        type_affinity=conf.capacity.aggregate_type_affinity_filter,
        cloud_lines=cloud_lines(conf))


def cloud_lines(conf):
    """The lines every flavor carries for what is not modelled."""
    lines = []
    if conf.capacity.metrics_filter:
        lines.append('MetricsFilter refuses hosts lacking the metrics of '
                     'nova.conf\'s [metrics] weight_setting; compute node '
                     'metrics are not read, so such hosts are counted')
    zone = conf.capacity.default_schedule_zone
    if zone:
        lines.append('a request that names no zone goes to zone %s '
                     '([DEFAULT] default_schedule_zone): its numbers are '
                     'those of availability_zones["%s"], not total and '
                     'available' % (zone, zone))
    return tuple(lines)


def tenant_isolation(conf):
    """The tenancy.TenantIsolation that [capacity] describes."""
    options = conf.capacity
    return tenancy.TenantIsolation(
        host_filter=options.aggregate_multitenancy_isolation,
        # Nova 29 reads filter_tenant_id alone (see tenancy.py).
        host_filter_prefix=conf.capacity.nova_release != '2024.1',
        request_filter=options.limit_tenants_to_placement_aggregate,
        required=options.placement_aggregate_required_for_tenants)


class TooManyUnreadable(Exception):
    """More hosts were unreadable than [capacity] allows to publish."""


def check_unreadable(report, percent):
    """TooManyUnreadable when over percent % of report's hosts are.

    Below the bound the unreadable hosts are published as excluded and
    named; above it (Placement failing for many providers at once) the
    numbers would say little, and the last good data is kept instead.
    """
    unreadable = report.unreadable
    if unreadable and len(unreadable) * 100 > percent * len(report.hosts):
        raise TooManyUnreadable(
            '%d of %d hosts unreadable, more than [capacity] '
            'max_unreadable_hosts_percent=%d allows; the last good data '
            'stays published. First: %s'
            % (len(unreadable), len(report.hosts), percent,
               '; '.join('%s: %s' % item
                         for item in sorted(unreadable.items())[:3])))


def make_source(conf, client, log_prefix='', store=None):
    """The configured capacity source; auto prefers Placement.

    store: the provider_store.ProviderStore the Placement source shares
    what it read of the providers through, if any.
    """
    wanted = conf.capacity.source
    if wanted == 'auto':
        wanted = ('placement' if placement_source.placement_available(client)
                  else 'hypervisors')
        LOG.info('%sCapacity source: %s', log_prefix, wanted)
    if wanted == 'placement':
        return placement_source.PlacementSource(conf, log_prefix, store)
    return hypervisors_source.HypervisorsSource(conf, log_prefix)


class Refresher:
    """Refreshes the published capacity data; safe to call repeatedly.

    options: the engine Options, as engine_options(conf) returns them;
    made from conf when not given. cloud: the clouds.Cloud read, by
    default the single (or default) one.
    """

    def __init__(self, conf, publisher=None, client=None, source=None,
                 options=None, cloud=None):
        self._conf = conf
        self.cloud = cloud or clouds.default(conf)
        self._publisher = publisher
        self._client = client
        self._source = source
        self._options = (engine_options(conf) if options is None
                         else options)
        self._last_documents = None
        self._last_published = None
        # Host group fits of the last refresh, reused where the cloud did
        # not change.
        self._fits = vector_fit.Fits()
        self._numa_counts = numa_fit.Counts(self._options.numa)
        self._cell_databases = cell_databases.CellDatabases.from_conf(
            conf, self.cloud.group)
        self._encoded = render.EncodedHosts()
        # (inputs, report, documents) of the last refresh: a poll that
        # reads the same cloud publishes them again without computing.
        self._unchanged = None
        self._counting = quotas.counting(conf)
        self._status = pub.initial_status()
        self._notices = notices.Notices(LOG, self.cloud.log_prefix)
        #: The Report of the last refresh published (for projects' answers).
        self.last_report = None
        #: The model.Snapshot it was computed from (what-ifs change a copy).
        self.last_snapshot = None
        self._snapshot = None

    @property
    def client(self):
        """The CloudClient of the cloud, made at the first compute()."""
        if self._client is None:
            self._client = openstack.CloudClient.from_conf(
                self._conf, self.cloud.group)
        return self._client

    def provider_store(self):
        """The shared cache of resource providers, or None.

        Only memcached is shared with the workers that may lead next; a
        process's own memory (flavor-exporter-all) keeps its providers
        anyway, and a one-shot command publishes nothing.
        """
        backend = getattr(self._publisher, 'backend', None)
        if not isinstance(backend, cache.MemcachedBackend):
            return None
        return provider_store.ProviderStore(backend, self.cloud.key_prefix)

    @property
    def last_error(self):
        """The message of the last failed refresh, or None."""
        error = self._status[pub.LAST_ERROR]
        return error['message'] if error else None

    def compute(self, fits=None, scope=None, hosts=None):
        """Collect and compute once; the Report. Raises on failure.

        fits: the vector_fit.Fits of earlier refreshes to reuse, if any.
        scope: the parts Nova announced changes of (nova_events), None for
        all: the source may keep what it read of the others; hosts: those
        whose usages changed, None for any. The snapshot read is then
        computed_snapshot.
        """
        return self._compute(fits, scope, hosts)[0]

    @property
    def fits(self):
        """The vector_fit.Fits of the last refresh (what-ifs read it)."""
        return self._fits

    @property
    def computed_snapshot(self):
        """The model.Snapshot the last compute() read (for what-ifs)."""
        return self._snapshot

    def _compute(self, fits, scope, hosts):
        """(Report, its inputs, whether they are the last refresh's).

        The inputs are the snapshot but for when it was read: the same
        inputs make the same report, so it is not computed again.
        """
        if self._source is None:
            self._source = make_source(self._conf, self.client,
                                       self.cloud.log_prefix,
                                       self.provider_store())
        snapshot = self._source.collect(self.client, scope, hosts)
        # The snapshot and the source's caches outlive this refresh: the
        # collections of computing and rendering need not walk them.
        heap.freeze()
        if self._cell_databases is not None:
            self._cell_databases.attach(snapshot.hosts, snapshot.problems)
        inputs = dataclasses.replace(snapshot, collected_at=None,
                                     api_calls=0)
        self._snapshot = snapshot
        if self._unchanged is not None and self._unchanged[0] == inputs:
            return dataclasses.replace(
                self._unchanged[1], collected_at=snapshot.collected_at,
                api_calls=snapshot.api_calls), inputs, True
        return engine.compute(snapshot, self._options, fits,
                              self._numa_counts), inputs, False

    def refresh(self, record_failure=True, scope=None, hosts=None,
                log_failure=True):
        """Refresh once; True when a new generation was published.

        record_failure: whether a failure goes into the status entry. A
        worker that refreshes only because no coordination backend says
        who leads must not overwrite the leader's status with its own
        failures (missing credentials, say) while the leader's data is
        good; its successes still say what it published. scope, hosts:
        as compute's, for a refresh Nova's notifications asked for.
        log_failure: False when the caller says what failed itself
        (last_error), as a one-shot command does: once, not twice.
        """
        started = time.monotonic()
        self._status[pub.LAST_ATTEMPT_AT] = pub.iso_timestamp(_now())
        try:
            # What the result may replace: if another worker publishes
            # meanwhile, this result is older than its and is dropped.
            base = self._publisher.reader.current()
            report, inputs, unchanged = self._compute(self._fits, scope,
                                                      hosts)
            check_unreadable(
                report, self._conf.capacity.max_unreadable_hosts_percent)
            documents = (self._unchanged[2] if unchanged
                         else self._documents(report, inputs))
            pointer = render.pointer_of(report)
            pointer[pub.DURATION] = round(
                time.monotonic() - started, 3)
            published = self._publisher.publish(
                documents, pointer, report.collected_at, base=base)
        except publisher_mod.Superseded as exc:
            # Not a failure of this worker: the status is the other's.
            LOG.warning('%sRefresh dropped: %s', self.cloud.log_prefix, exc)
            return False
        except Exception as exc:
            # The boundary of the periodic task: whatever went wrong, the
            # last good generation stays published and the worker lives on.
            LOG.debug('The failed refresh', exc_info=True)
            message = failures.explain(exc, self.cloud.group)
        else:
            message = None
        if message:
            # One ERROR line says what happened and what to do; the
            # chained tracebacks (often six for one refused connection)
            # are for --debug. Out of the except block, where oslo.log
            # would append the exception again.
            (LOG.error if log_failure else LOG.debug)(
                '%sCapacity refresh failed, the last good data stays '
                'published: %s', self.cloud.log_prefix, message)
            if record_failure:
                self._record(started, error=message)
            return False
        self._last_documents = (documents, pointer, report.collected_at)
        self._last_published = published
        self.last_report = report
        self.last_snapshot = self._snapshot
        self._status[pub.COLLECT] = self._source.last_stats or None
        # What the refresh skipped or could not read, for /v3/status: the
        # published numbers are only as good as these lines allow.
        self._status[pub.PROBLEMS] = report.problems[:PROBLEMS_PUBLISHED]
        self._status[pub.PROBLEM_COUNT] = len(report.problems)
        unreadable = report.unreadable
        self._status[pub.UNREADABLE_HOSTS] = dict(
            sorted(unreadable.items())[:pub.UNREADABLE_PUBLISHED])
        self._status[pub.UNREADABLE_COUNT] = len(unreadable)
        self._record(started, api_calls=report.api_calls)
        LOG.info('%sPublished capacity of %d flavors from %s in %.2fs '
                 '(%d API calls, %d problems)', self.cloud.log_prefix,
                 len(report.flavors),
                 report.source, time.monotonic() - started,
                 report.api_calls, len(report.problems))
        self._notices.lines('unreadable', [
            '%d host(s) unreadable, excluded from every flavor and named in '
            'the documents: %s' % (len(unreadable),
                                   ', '.join(sorted(unreadable)))
        ] if unreadable else [], ended='Every host is readable again')
        # After publishing: only a next leader needs it.
        self._source.share()
        # What this refresh left alive stays out of the next one's garbage
        # collections (heap.py).
        heap.settle()
        return True

    def _documents(self, report, inputs):
        """The documents of report, kept for a refresh of the same inputs.

        Nothing in them says when the cloud was read (the publisher
        stamps that), so the same inputs make the same documents.
        """
        documents, _ = render.documents(report, self._encoded)
        documents.update(projects.generation_documents(
            self._counting, report, self._options.tenancy))
        self._unchanged = (inputs, report, documents)
        return documents

    def _record(self, started, error=None, api_calls=None):
        status = self._status
        status[pub.DURATION] = round(time.monotonic() - started, 3)
        status[pub.API_CALLS] = api_calls
        if error:
            status[pub.LAST_ERROR] = {'at': status[pub.LAST_ATTEMPT_AT],
                                      'message': error}
            status[pub.CONSECUTIVE_FAILURES] += 1
        else:
            status[pub.LAST_SUCCESS_AT] = status[pub.LAST_ATTEMPT_AT]
            status[pub.CONSECUTIVE_FAILURES] = 0
        try:
            self._publisher.write_status(status)
        except cache.CacheError as exc:
            # A failed refresh already said the cache is down.
            LOG.log(log.DEBUG if error else log.WARNING,
                    'Could not record the refresh status: %s', exc)

    def ensure_published(self, asked=False):
        """Publish the last good documents again if readers miss them.

        memcached forgets everything when it restarts, and a server that
        leaves or joins the ring moves where readers look for a part;
        without this the API would answer 503 until the next refresh, up
        to refresh_interval. asked: an API process found parts of the
        current generation missing, which this worker cannot see: publish
        again if that generation is its own. True when it published.
        """
        if self._last_documents is None:
            return False
        try:
            current = self._publisher.reader.current()
            if current is None:
                base = None
            elif current[pub.GENERATION] != \
                    self._last_published[pub.GENERATION]:
                return False  # another worker's: not this one's to repeat
            elif asked or self._publisher.lost_parts(self._last_published):
                base = current
            else:
                return False
            documents, pointer, collected_at = self._last_documents
            self._last_published = self._publisher.publish(
                documents, pointer, collected_at, rewrite=True, base=base)
            self._publisher.write_status(self._status)
        except publisher_mod.Superseded as exc:
            LOG.debug('Not published again: %s', exc)
            return False
        except cache.CacheError as exc:
            LOG.debug('Cache still unavailable: %s', exc)
            return False
        LOG.warning('%sReaders missed published data (a memcached server '
                    'restarted, or left or joined the ring); published the '
                    'last good generation again', self.cloud.log_prefix)
        return True
