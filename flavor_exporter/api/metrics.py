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
"""/metrics: the worker's per-flavor gauges plus gauges only the API knows.

The per-flavor gauges are rendered once per refresh by the worker. How old
the served data is, and whether the cache answers, change between two
scrapes, so they are rendered here on every scrape. A scrape always
succeeds (200) even with no data: alerting on "no data" needs a scrape
that tells it.
"""

from flavor_exporter.api import generations
from flavor_exporter.common import published as pub

CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'


def _gauge(name, text, value):
    if value is None:
        return []
    return ['# HELP %s %s' % (name, text), '# TYPE %s gauge' % name,
            '%s %s' % (name, _number(value))]


def _number(value):
    if isinstance(value, bool):
        return '1' if value else '0'
    return repr(float(value)) if isinstance(value, float) else str(value)


def live_gauges(view, status):
    """Prometheus text lines on the data's freshness; view may be None."""
    lines = []
    lines += _gauge('flavor_exporter_data_available',
                    '1 when capacity data is published and served.',
                    view is not None)
    if view is not None:
        lines += _gauge('flavor_exporter_data_age_seconds',
                        'Seconds since the served data was collected.',
                        None if view.age is None else round(view.age, 3))
        lines += _gauge('flavor_exporter_data_stale',
                        '1 when the served data is older than '
                        '[api] stale_after or the cache cannot be read.',
                        view.stale)
        lines += _gauge('flavor_exporter_cache_readable',
                        '1 when this API process could read the cache at '
                        'its last check.',
                        not (view.trouble or '').startswith(
                            generations.UNREACHABLE))
        lines += _gauge('flavor_exporter_hosts_unreadable',
                        'Hosts the served data excludes because their '
                        'resources could not be read.',
                        view.generation.pointer.get(pub.UNREADABLE_COUNT,
                                                    0))
    status = status or {}
    lines += _gauge('flavor_exporter_refresh_duration_seconds',
                    'Duration of the last refresh attempt.',
                    status.get(pub.DURATION))
    lines += _gauge('flavor_exporter_refresh_consecutive_failures',
                    'Refreshes that failed since the last success.',
                    status.get(pub.CONSECUTIVE_FAILURES))
    lines += _gauge('flavor_exporter_refresh_api_calls',
                    'OpenStack API calls made by the last refresh.',
                    status.get(pub.API_CALLS))
    return lines


def exposition(reader):
    """The whole /metrics body, bytes."""
    try:
        view = reader.view(fill=False)
    except (generations.NoData, generations.Unavailable):
        view = None
    published = b''
    if view is not None:
        try:
            held = reader.documents.get(view.generation, pub.METRICS)
        except generations.Unavailable:
            held = None
        published = held.body if held is not None else b''
    live = '\n'.join(live_gauges(view, reader.status.get())) + '\n'
    if published and not published.endswith(b'\n'):
        published += b'\n'
    return published + live.encode('utf-8')
