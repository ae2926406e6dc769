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
"""The filters of the v3 lists: parsing, validation and application.

GET /v3/flavors/: ``?gpu=`` picks one of the lists the worker publishes;
``?name=`` and ``?availability_zone=`` are applied here to the decoded
list. GET /v3/gpus/: ``?availability_zone=``, applied likewise. A filter the
API does not know, a repeated one, or a bad value is refused (400) rather
than ignored: a client that misspells a filter would otherwise get the
whole cloud and believe it filtered.
"""

import collections

from oslo_utils import strutils

from flavor_exporter.api import errors
from flavor_exporter.publication import contract as pub


_KNOWN = ('gpu', 'availability_zone', 'name')
_GPU_KNOWN = ('availability_zone',)
_MAX_LENGTH = 255


def _single(params, name):
    values = params.getall(name)
    if not values:
        return None
    if len(values) > 1:
        raise errors.BadRequest('Query parameter "%s" was given %d times; '
                                'give it once.' % (name, len(values)))
    value = values[0]
    if not value.strip():
        raise errors.BadRequest('Query parameter "%s" must not be empty.'
                                % name)
    if len(value) > _MAX_LENGTH:
        raise errors.BadRequest('Query parameter "%s" is longer than %d '
                                'characters.' % (name, _MAX_LENGTH))
    return value


def refuse_any(params):
    """Raise errors.BadRequest if there is any query parameter."""
    if params:
        raise errors.BadRequest(
            'Unknown query parameter(s): %s. This route takes none.'
            % ', '.join(sorted(set(params.keys()))))


def _refuse_unknown(params, known):
    unknown = sorted(set(params.keys()) - set(known))
    if unknown:
        raise errors.BadRequest(
            'Unknown query parameter(s): %s. Known: %s.' % (
                ', '.join(unknown), ', '.join(known)))


class ListQuery(collections.namedtuple(
        'ListQuery', 'gpu availability_zone name')):
    """Validated list filters; None where not given."""

    @classmethod
    def from_params(cls, params):
        """Parse a WebOb MultiDict of query parameters; BadRequest if bad."""
        _refuse_unknown(params, _KNOWN)
        gpu = _single(params, 'gpu')
        if gpu is not None:
            try:
                gpu = strutils.bool_from_string(gpu, strict=True)
            except ValueError:
                raise errors.BadRequest(
                    'Query parameter "gpu" must be true or false, not "%s".'
                    % gpu) from None
        zone = _single(params, 'availability_zone')
        name = _single(params, 'name')
        return cls(gpu, zone, name.casefold() if name else None)

    def document(self):
        """The name of the published list this query starts from."""
        return pub.v3_list(self.gpu)

    @property
    def rewrites(self):
        """Whether the list must be filtered here (not only picked)."""
        return self.availability_zone is not None or self.name is not None


#: The query of a list request without a query string.
NO_FILTERS = ListQuery(None, None, None)


class GpuQuery(collections.namedtuple('GpuQuery', 'availability_zone')):
    """Validated GPU list filters; None where not given."""

    @classmethod
    def from_params(cls, params):
        """Parse a WebOb MultiDict of query parameters; BadRequest if bad."""
        _refuse_unknown(params, _GPU_KNOWN)
        return cls(_single(params, 'availability_zone'))


#: The query of a GPU list request without a query string.
NO_GPU_FILTERS = GpuQuery(None)


def known_zones(document):
    """The availability zones any flavor of a v3 list has hosts in."""
    zones = set()
    for flavor in document.get(pub.FLAVORS, ()):
        zones.update(flavor.get(pub.ZONES) or ())
    return zones


def apply(query, document, zones):
    """A new v3 list document: document filtered by query.

    zones is the set of valid availability zone names (from the unfiltered
    list, so that ?gpu=true&availability_zone=A accepts a zone A that only
    non-GPU hosts are in). With availability_zone, each flavor's total,
    available and availability_zones are those of that zone only.
    Does not modify document.
    """
    zone = query.availability_zone
    if zone is not None and zone not in zones:
        raise errors.BadRequest(
            'Unknown availability zone "%s". Known: %s.' % (
                zone, ', '.join(sorted(zones)) or 'none'))
    flavors = document.get(pub.FLAVORS, [])
    if query.name is not None:
        flavors = [f for f in flavors
                   if query.name in (f.get(pub.NAME) or '').casefold()]
    if zone is not None:
        flavors = [_in_zone(f, zone) for f in flavors]
    return dict(document, **{pub.FLAVORS: flavors})


def gpu_zones(document):
    """The availability zones any type of a v3 GPU list has devices in."""
    return {zone for gpu in document.get(pub.GPUS, ())
            for zone in gpu.get(pub.ZONES) or ()}


def apply_gpus(query, document, zones):
    """A new v3 GPU list document: document filtered by query.

    zones: the valid zone names. Each type keeps its identity; its
    figures and availability_zones become those of the zone (0 where it
    has no device there), as apply() does with a flavor's.
    """
    zone = query.availability_zone
    if zone not in zones:
        raise errors.BadRequest(
            'Unknown availability zone "%s". Known: %s.' % (
                zone, ', '.join(sorted(zones)) or 'none'))
    gpus = []
    for gpu in document.get(pub.GPUS, []):
        numbers = (gpu.get(pub.ZONES) or {}).get(zone)
        figures = numbers or {pub.TOTAL: 0, pub.USED: 0, pub.FREE: 0,
                              pub.STRANDED: 0, pub.STRANDED_BY: {}}
        if not numbers and pub.FRAGMENTED in gpu:
            figures = dict(figures, **{pub.FRAGMENTED: 0})
        gpus.append(dict(gpu, **figures, **{
            pub.ZONES: {zone: numbers} if numbers else {}}))
    return dict(document, **{pub.GPUS: gpus})


def _in_zone(flavor, zone):
    numbers = (flavor.get(pub.ZONES) or {}).get(zone)
    if flavor.get(pub.TOTAL) is None:
        # The flavor could not be evaluated (its "error" says why).
        numbers = None
        total = available = None
    elif numbers is None:
        total = available = 0
    else:
        total, available = numbers[pub.TOTAL], numbers[pub.AVAILABLE]
    zoned = dict(flavor, **{pub.TOTAL: total, pub.AVAILABLE: available,
                            pub.ZONES: {zone: numbers} if numbers else {}})
    if pub.FRAGMENTED in flavor:
        # A worker before fragmentation published none.
        zoned[pub.FRAGMENTED] = (
            None if flavor.get(pub.TOTAL) is None
            else (numbers or {}).get(pub.FRAGMENTED, 0))
    return zoned
