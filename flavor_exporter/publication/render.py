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

"""Render a capacity Report into the documents the API serves as-is.

Every document is compact JSON bytes (or Prometheus text), made once per
refresh, so the API never computes or re-encodes on its hot path. What the
documents are called and how they are encoded is the contract with the API:
flavor_exporter.publication.contract.
"""

import functools

from flavor_exporter.publication import contract as pub


def _legacy_flavor(capacity):
    return {pub.LEGACY_ID: capacity.flavor.id,
            'flavor_name': capacity.flavor.name,
            pub.AVAILABLE: capacity.available,
            pub.TOTAL: capacity.total}


def seed_flavor(capacity):
    """A flavor of the seed's list (contract.SEED_FIELDS), its numbers v3's.

    A flavor Nova would refuse (its extra specs are invalid) starts
    nowhere: 0 of 0, where v3 says null and why.
    """
    flavor = capacity.flavor
    valid = capacity.request is not None
    item = {pub.ID: flavor.id, pub.NAME: flavor.name,
            pub.AVAILABLE: capacity.available if valid else 0,
            pub.TOTAL: capacity.total if valid else 0,
            'cores': flavor.vcpus, 'mem': flavor.ram,
            pub.TYPE: pub.SEED_GPU if capacity.gpu else pub.SEED_CPU}
    if capacity.gpu:
        item['gpu_type'], item['gpu_count'] = capacity.gpu
    item['root_disk'] = flavor.disk
    item['ephemeral_disk'] = flavor.ephemeral
    return item


def _request_groups(request):
    groups = [{'suffix': g.suffix,
               'resources': dict(sorted(g.resources.items())),
               'required_traits': sorted(g.required_traits),
               'forbidden_traits': sorted(g.forbidden_traits)}
              for g in request.groups]
    for demand in request.pci:
        groups.append({'pci_alias': demand.alias,
                       'count': demand.count,
                       'resource_class': demand.resource_class,
                       'required_traits': sorted(demand.traits)})
    return groups


def _resources(request):
    totals = {}
    for group in request.groups:
        for rc, amount in group.resources.items():
            totals[rc] = totals.get(rc, 0) + amount
    for demand in request.pci:
        if demand.resource_class:
            totals[demand.resource_class] = (
                totals.get(demand.resource_class, 0) + demand.count)
    return dict(sorted(totals.items()))


def v3_flavor(capacity, detail=False):
    """A flavor of the v3 list; detail adds what only its own document has.

    The list stays small at a thousand flavors (below the largest item
    memcached keeps by default) without the request groups, which are
    the bulk of a flavor's entry.
    """
    flavor = capacity.flavor
    request = capacity.request
    gpu = capacity.gpu
    valid = request is not None
    figures = capacity.fragmentation
    body = {
        pub.ID: flavor.id,
        pub.NAME: flavor.name,
        'description': flavor.description,
        'vcpus': flavor.vcpus,
        'ram': flavor.ram,
        'disk': flavor.disk,
        'ephemeral': flavor.ephemeral,
        'swap': flavor.swap,
        'is_public': flavor.is_public,
        'resources': _resources(request) if valid else None,
        'gpu': {'type': gpu[0], 'count': gpu[1]} if gpu else None,
        pub.TOTAL: capacity.total if valid else None,
        pub.AVAILABLE: capacity.available if valid else None,
        pub.FRAGMENTED: figures.fragmented if figures else None,
        pub.ZONES: {
            zone: {pub.TOTAL: t, pub.AVAILABLE: a,
                   pub.FRAGMENTED: figures.zones.get(zone, 0)
                   if figures else None}
            for zone, (t, a) in sorted(capacity.zones.items())},
        pub.RESERVED: {pub.TOTAL: capacity.reserved[0],
                       pub.AVAILABLE: capacity.reserved[1]},
        'limited_by': capacity.limited_by,
        'unsupported': list(request.unsupported) if valid else [],
        'notes': list(request.notes) if valid else [],
        'error': capacity.error,
    }
    if detail:
        body['request_groups'] = (_request_groups(request) if valid
                                  else None)
        body['group_policy'] = request.group_policy if valid else None
        body[pub.FRAGMENTATION] = ({pub.POOLED: figures.pooled}
                                   if figures else None)
    return body


def _encoded_hosts(capacity):
    """The v3_flavor_hosts() document of a flavor (see contract).

    What pub.encode makes of the dict of its columns and the rest, byte
    for byte (tests/unit/publication/test_render.py compares them), the
    four integer columns written by _int_list: at 10,000 hosts they are
    ~40,000 integers per distinct request, most of a refresh's rendering.
    """
    if capacity.request is None:
        columns = ((), (), (), [], ())
    else:
        columns = capacity.per_host.arrays()
    positions, totals, available, labels, codes = columns
    parts = [b'{']
    for name, values in ((pub.POSITION, positions), (pub.TOTAL, totals),
                         (pub.AVAILABLE, available),
                         (pub.LIMITED_BY, codes)):
        parts += [pub.encode(name), b':', _int_list(values), b',']
    for name, value in ((pub.LABELS, labels),
                        (pub.EXCLUDED,
                         dict(sorted(capacity.excluded.items()))),
                        (pub.FRAGMENTS, _fragments(capacity))):
        parts += [pub.encode(name), b':', pub.encode(value), b',']
    parts[-1] = b'}'
    return b''.join(parts)


def _fragments(capacity):
    figures = capacity.fragmentation
    return [[f.position, f.leftover, f.closeness]
            for f in (figures.fragments if figures else ())]


# The decimal text of -1 .. _SMALL - 1: looking an integer up costs about
# half of what json.dumps takes to write it.
_SMALL = 1 << 16
_decimal = []


def _int_list(values):
    """pub.encode(list(values)) of an integer array (or sequence)."""
    if not len(values):
        return b'[]'
    if not hasattr(values, 'tolist') or int(values.min()) < -1 or int(
            values.max()) >= _SMALL:
        return pub.encode([int(v) for v in values])
    if not _decimal:
        _decimal.extend(str(i) for i in range(-1, _SMALL))
    return ('[' + ','.join(map(_decimal.__getitem__,
                               (values + 1).tolist())) + ']').encode()


class EncodedHosts:
    """The per-host documents one refresh encoded, for the next one.

    At 10,000 hosts they are most of what a refresh renders, and most do
    not change from one refresh to the next: a request whose numbers are
    the same (HostNumbers.fingerprint) takes the bytes of the last
    refresh. Only the last refresh's are kept.
    """

    def __init__(self):
        self._last = {}
        self._now = {}

    def get(self, key, make):
        body = self._now.get(key)
        if body is None:
            body = self._last.get(key)
            if body is None:
                body = make()
            self._now[key] = body
        return body

    def finish(self):
        """The refresh is rendered: what it used is what is kept."""
        self._last, self._now = self._now, {}


def _hosts_key(capacity):
    """What a flavor's per-host document is made of."""
    per_host = capacity.per_host
    numbers = None if capacity.request is None else per_host.fingerprint()
    return (numbers, tuple(sorted(capacity.excluded.items())),
            repr(_fragments(capacity)))


def host_index(hosts):
    """{page name: columns} of the host index (pub.hosts_page())."""
    pages = {}
    for start in range(0, len(hosts), pub.HOSTS_PER_PAGE):
        page = hosts[start:start + pub.HOSTS_PER_PAGE]
        pages[pub.hosts_page(start // pub.HOSTS_PER_PAGE)] = {
            pub.HOST: [h.name for h in page],
            pub.NODE: [h.node for h in page],
            pub.ZONE: [h.availability_zone for h in page]}
    return pages


def _devices(devices):
    """Figures of a gpus.Devices: a type's in the cloud or in one zone."""
    return {pub.TOTAL: devices.total, pub.USED: devices.used,
            pub.FREE: devices.free, pub.STRANDED: devices.stranded,
            pub.STRANDED_BY: dict(sorted(devices.stranded_by.items()))}


def v3_gpu(gpu_type):
    """A type of the v3 GPU list (gpus.GpuType), per-host rows apart."""
    kind = gpu_type.kind
    return dict({pub.TYPE: kind.name,
                 'resource_class': kind.resource_class,
                 'traits': list(kind.traits),
                 'counted_from': sorted(gpu_type.counted_from)},
                **_devices(gpu_type.devices),
                **{pub.FRAGMENTED: gpu_type.fragmented,
                   pub.FRAGMENTED_BY_FLAVOR: gpu_type.fragmented_by_flavor},
                **{pub.ZONES: {zone: dict(_devices(devices), **{
                    pub.FRAGMENTED: gpu_type.fragmented_zones.get(zone, 0)})
                    for zone, devices in sorted(gpu_type.zones.items())}})


def gpu_hosts(gpu_type):
    """The v3_gpu_hosts() document value of a type (see contract)."""
    rows = gpu_type.hosts
    labels = sorted({row.blocked_by for row in rows if row.blocked_by})
    code_of = {label: i for i, label in enumerate(labels)}
    return {pub.POSITION: [row.position for row in rows],
            pub.TOTAL: [row.total for row in rows],
            pub.USED: [row.used for row in rows],
            pub.FREE: [row.free for row in rows],
            pub.STRANDED: [row.stranded for row in rows],
            pub.BLOCKED_BY: [code_of.get(row.blocked_by, -1)
                             for row in rows],
            pub.LABELS: labels}


def legacy_gpu(gpu_type):
    """A type in the predecessor's first shape (its openapi.yaml "GPU")."""
    devices = gpu_type.devices
    return {pub.TYPE: gpu_type.name, 'used_slots': devices.used,
            'free_slots': devices.free, 'total_slots': devices.total}


def gpu_documents(report, head):
    """{document name: bytes} of the GPU types of report."""
    docs = {pub.LEGACY_GPUS: pub.encode([legacy_gpu(t)
                                         for t in report.gpus])}
    listed = [(t, v3_gpu(t)) for t in report.gpus]
    docs[pub.V3_GPUS] = pub.encode(dict(
        head, **{pub.GPUS: [body for _, body in listed]}))
    for gpu_type, body in listed:
        docs[pub.v3_gpu(gpu_type.name)] = pub.encode(dict(
            head, **{pub.GPU: body}))
        docs[pub.v3_gpu_hosts(gpu_type.name)] = pub.encode(
            gpu_hosts(gpu_type))
        docs[pub.legacy_gpu(gpu_type.name)] = pub.encode(
            legacy_gpu(gpu_type))
    return docs


def _label(value):
    return (str(value).replace('\\', '\\\\').replace('\n', '\\n')
            .replace('"', '\\"'))


def _family(name, text):
    return ['# HELP %s %s' % (name, text), '# TYPE %s gauge' % name]


def metrics(report):
    """Per-flavor gauges in the Prometheus text format 0.0.4.

    Every family is a gauge: an instance count goes up and down with the
    cloud, so none carries the _total suffix Prometheus keeps for counters
    - except openstack_free_capacity_by_flavor_total, kept under the name
    stackhpc/os-capacity gives it so that its dashboards and alerts keep
    working (README.rst, Monitoring).
    """
    valid = [c for c in report.flavors if c.request is not None]
    lines = []
    families = (
        ('flavor_exporter_flavor_capacity', 'total',
         'Instances of the flavor that fit in the empty cloud.'),
        ('flavor_exporter_flavor_available', 'available',
         'Instances of the flavor that fit now.'),
        ('flavor_exporter_flavor_fragmented', 'fragmented',
         'Instances of the flavor the free resources would hold if pooled '
         'per availability zone, beyond what fits now.'))
    for metric, attribute, text in families:
        lines += _family(metric, text)
        for capacity in valid:
            labels = 'flavor_id="%s",flavor_name="%s",gpu="%s"' % (
                _label(capacity.flavor.id), _label(capacity.flavor.name),
                'true' if capacity.gpu else 'false')
            value = (capacity.fragmentation.fragmented
                     if attribute == 'fragmented'
                     else getattr(capacity, attribute))
            lines.append('%s{%s} %d' % (metric, labels, value))
    zone_families = (
        ('flavor_exporter_flavor_zone_capacity', 0,
         'Instances of the flavor that fit in one availability zone, '
         'empty.'),
        ('flavor_exporter_flavor_zone_available', 1,
         'Instances of the flavor that fit now in one availability zone.'))
    for metric, index, text in zone_families:
        lines += _family(metric, text)
        for capacity in valid:
            for zone, figures in sorted(capacity.zones.items()):
                lines.append(
                    '%s{flavor_id="%s",flavor_name="%s",'
                    'availability_zone="%s"} %d' % (
                        metric, _label(capacity.flavor.id),
                        _label(capacity.flavor.name), _label(zone),
                        figures[index]))
    metric = 'flavor_exporter_flavor_invalid'
    lines += _family(metric, '1 when the flavor has extra specs Nova would '
                             'reject.')
    for capacity in report.flavors:
        lines.append('%s{flavor_id="%s"} %d' % (
            metric, _label(capacity.flavor.id),
            1 if capacity.request is None else 0))
    # os-capacity's labels: flavor_name and public ("True"/"False", as
    # Python prints them), the value is what fits now.
    metric = 'openstack_free_capacity_by_flavor_total'
    lines += _family(metric, 'Free capacity if you fill the cloud full of '
                             'each flavor (os-capacity compatible).')
    for capacity in valid:
        lines.append('%s{flavor_name="%s",public="%s"} %d' % (
            metric, _label(capacity.flavor.name),
            bool(capacity.flavor.is_public), capacity.available))
    lines += gpu_metrics(report.gpus)
    return ('\n'.join(lines) + '\n').encode('utf-8')


GPU_FAMILIES = (
    ('flavor_exporter_gpu_devices', 'total',
     'GPU devices of the type in one availability zone.'),
    ('flavor_exporter_gpu_devices_used', 'used',
     'GPU devices of the type in use in one availability zone.'),
    ('flavor_exporter_gpu_devices_free', 'free',
     'GPU devices of the type free in one availability zone.'),
    ('flavor_exporter_gpu_devices_stranded', 'stranded',
     'Free GPU devices of the type in one availability zone on hosts '
     'where no flavor that could take them can start now.'))


def gpu_metrics(types):
    """Gauges of GPU devices: one series per type and zone, none per host.

    The cloud's figure of a type is the sum over its zones; what strands
    devices is one series per reason.
    """
    lines = []
    for metric, attribute, text in GPU_FAMILIES:
        lines += _family(metric, text)
        for gpu_type in types:
            for zone, devices in sorted(gpu_type.zones.items()):
                lines.append(
                    '%s{gpu_type="%s",availability_zone="%s"} %d' % (
                        metric, _label(gpu_type.name), _label(zone),
                        getattr(devices, attribute)))
    metric = 'flavor_exporter_gpu_devices_fragmented'
    lines += _family(metric, 'GPU devices of the type that the flavors '
                             'asking for them would put to use if the free '
                             'resources were pooled per availability zone.')
    for gpu_type in types:
        lines.append('%s{gpu_type="%s"} %d' % (metric, _label(gpu_type.name),
                                               gpu_type.fragmented))
    metric = 'flavor_exporter_gpu_devices_stranded_by'
    lines += _family(metric, 'Stranded GPU devices of the type in one '
                             'availability zone, by what blocks them: a '
                             'resource class or why the hosts are not '
                             'considered.')
    for gpu_type in types:
        for zone, devices in sorted(gpu_type.zones.items()):
            for reason, count in sorted(devices.stranded_by.items()):
                lines.append('%s{gpu_type="%s",availability_zone="%s",'
                             'blocked_by="%s"} %d' % (
                                 metric, _label(gpu_type.name), _label(zone),
                                 _label(reason), count))
    return lines


def _head(report):
    # Which hosts, and why, is for those who may see hosts: the API adds
    # them from pub.UNREADABLE.
    return {pub.TIMESTAMP: pub.COLLECTED_AT, pub.SOURCE: report.source,
            pub.STALE: False, pub.PARTIAL: bool(report.unreadable),
            pub.UNREADABLE_COUNT: len(report.unreadable)}


def pointer_of(report):
    pointer = pub.pointer(report.collected_at, report.source,
                          len(report.flavors), report.api_calls)
    pointer[pub.UNREADABLE_COUNT] = len(report.unreadable)
    return pointer


def list_document(report, gpu=None):
    """The v3 list alone (pub.v3_list(gpu)), for flavor-exporter-report.

    Its timestamp is stamped: the time the cloud was read.
    """
    pointer = pointer_of(report)
    body = pub.encode(dict(_head(report), **{pub.FLAVORS: [
        v3_flavor(c) for c in report.flavors
        if gpu is None or bool(c.gpu) == gpu]}))
    return pub.stamp(body, pub.COLLECTED_AT, pointer[pub.TIMESTAMP])


def gpu_list_document(report):
    """The v3 GPU list alone (pub.V3_GPUS), for flavor-exporter-report.

    Its timestamp is stamped: the time the cloud was read.
    """
    pointer = pointer_of(report)
    body = pub.encode(dict(_head(report), **{pub.GPUS: [
        v3_gpu(t) for t in report.gpus]}))
    return pub.stamp(body, pub.COLLECTED_AT, pointer[pub.TIMESTAMP])


def access_document(report):
    """pub.ACCESS: the projects each private flavor is shared with."""
    return pub.encode({
        c.flavor.id: (None if c.flavor.projects is None
                      else list(c.flavor.projects))
        for c in report.flavors if not c.flavor.is_public})


def documents(report, encoded=None):
    """{document name: bytes} of one refresh, and the pointer fields.

    The documents carry stamps where they say when their numbers were
    first seen (see contract.py): the publisher fills them in. encoded:
    the EncodedHosts of the previous refreshes, kept by the caller.
    """
    pointer = pointer_of(report)
    head = _head(report)
    docs = {}

    docs[pub.SEED_LIST] = pub.encode([seed_flavor(c)
                                      for c in report.flavors])
    gpu_flavors = [c for c in report.flavors
                   if c.gpu and c.request is not None]
    docs[pub.LEGACY_LIST] = pub.encode({
        pub.FLAVORS: [_legacy_flavor(c) for c in gpu_flavors],
        pub.TIMESTAMP: pub.LEGACY_COLLECTED_AT})
    for capacity in gpu_flavors:
        docs[pub.legacy_flavor(capacity.flavor.id)] = pub.encode({
            pub.FLAVOR: _legacy_flavor(capacity),
            pub.TIMESTAMP: pub.LEGACY_COLLECTED_AT})

    listed = [(c, v3_flavor(c)) for c in report.flavors]
    docs[pub.v3_list()] = pub.encode(dict(
        head, **{pub.FLAVORS: [body for _, body in listed]}))
    for wanted in (True, False):
        docs[pub.v3_list(wanted)] = pub.encode(dict(
            head, **{pub.FLAVORS: [body for c, body in listed
                                   if bool(c.gpu) == wanted]}))
    # Flavors of one request share their per-host numbers (the engine's
    # HostNumbers): encoded once, and not again while they do not change.
    encoded = encoded if encoded is not None else EncodedHosts()
    for capacity in report.flavors:
        flavor_id = capacity.flavor.id
        docs[pub.v3_flavor(flavor_id)] = pub.encode(dict(
            head, **{pub.FLAVOR: v3_flavor(capacity, detail=True)}))
        docs[pub.v3_flavor_hosts(flavor_id)] = encoded.get(
            _hosts_key(capacity),
            functools.partial(_encoded_hosts, capacity))
    encoded.finish()
    for name, page in host_index(report.hosts).items():
        docs[name] = pub.encode(page)
    docs[pub.V3_NAMES] = pub.encode({c.flavor.name: c.flavor.id
                                     for c in report.flavors})
    docs[pub.UNREADABLE] = pub.encode(dict(sorted(
        report.unreadable.items())))
    docs[pub.ACCESS] = access_document(report)
    docs.update(gpu_documents(report, head))
    docs[pub.METRICS] = metrics(report)
    return docs, pointer
