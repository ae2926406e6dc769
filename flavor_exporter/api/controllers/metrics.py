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

Every sample carries a cloud label (common.clouds; "default" for a
deployment of one cloud), added here: the worker's documents do not
depend on what the deployment calls their cloud.
"""

from flavor_exporter.api.controllers import base
from flavor_exporter.api import errors
from flavor_exporter.api import generations
from flavor_exporter.api import responses
from flavor_exporter.publication import contract as pub

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


def _label(value):
    """A label value, escaped as the text format wants it."""
    return str(value).replace('\\', '\\\\').replace('"', '\\"').replace(
        '\n', '\\n')


def demand_counters(demand):
    """Prometheus text lines of the requests Nova placed nowhere.

    demand: the leading worker's totals (worker/demand.py), or None:
    flavors of the flavor list only, each with at most
    demand.PROJECTS_KEPT projects, and one total for every other id, so
    that no message on the bus adds a series.
    """
    demand = demand or {}
    flavors = demand.get(pub.DEMAND_FLAVORS) or {}
    unknown = (demand.get(pub.DEMAND_UNKNOWN) or {}).get(pub.TURNED_AWAY)
    lines = []
    name = 'flavor_exporter_scheduling_failures_total'
    if flavors:
        lines += ['# HELP %s Boots Nova placed nowhere (NoValidHost), by '
                  'flavor, heard since the counting began.' % name,
                  '# TYPE %s counter' % name]
    by_project = []
    for flavor_id, entry in sorted(flavors.items()):
        labels = 'flavor_id="%s",flavor_name="%s"' % (
            _label(flavor_id), _label(entry[pub.NAME]))
        lines.append('%s{%s} %d' % (name, labels, entry[pub.TURNED_AWAY]))
        for project_id, count in sorted(entry[pub.PROJECTS].items()):
            by_project.append(
                'flavor_exporter_scheduling_failures_by_project_total'
                '{%s,project_id="%s"} %d' % (labels, _label(project_id),
                                             count))
    if by_project:
        name = 'flavor_exporter_scheduling_failures_by_project_total'
        lines += ['# HELP %s Boots Nova placed nowhere, by flavor and '
                  'project (the projects with the most per flavor).' % name,
                  '# TYPE %s counter' % name]
        lines += by_project
    if unknown:
        name = 'flavor_exporter_scheduling_failures_unknown_flavor_total'
        lines += ['# HELP %s Boots Nova placed nowhere whose flavor id the '
                  'flavor list does not have (deleted, or made up).' % name,
                  '# TYPE %s counter' % name, '%s %d' % (name, unknown)]
    return lines


def labelled(text, cloud):
    """{family name: [header lines, samples]} of text, cloud labelled.

    text: an exposition (bytes). Every sample gains cloud="<cloud>" as
    its first label; cloud names need no escaping (common.clouds).
    """
    label = b'cloud="%s"' % cloud.encode('ascii')
    families = {}
    for line in text.splitlines():
        if line.startswith(b'#'):
            words = line.split(b' ', 3)
            if len(words) > 2 and words[1] in (b'HELP', b'TYPE'):
                families.setdefault(words[2], ([], []))[0].append(line)
            continue
        if not line:
            continue
        end = min(i for i in (line.find(b'{'), line.find(b' '), len(line))
                  if i >= 0)
        name, rest = line[:end], line[end:]
        if rest.startswith(b'{}'):
            rest = rest[2:]
        if rest.startswith(b'{'):
            sample = name + b'{' + label + b',' + rest[1:]
        else:
            sample = name + b'{' + label + b'}' + rest
        families.setdefault(name, ([], []))[1].append(sample)
    return families


def merged(labelled_texts):
    """One exposition of several labelled() results, bytes.

    The text format wants each family once, its samples together: the
    clouds' samples of one family follow one header.
    """
    families = {}
    for text in labelled_texts:
        for name, (headers, samples) in text.items():
            # The first cloud's HELP and TYPE lines serve for all.
            families.setdefault(name, (headers, []))[1].extend(samples)
    lines = []
    for headers, samples in families.values():
        lines += headers
        lines += samples
    return b'\n'.join(lines) + b'\n'


def exposition(data):
    """The whole /metrics body of every cloud data (published.Published)."""
    texts = []
    for name in data.names():
        view = data.peek(name)
        texts.append(_published_gauges(data, name, view))
        live = '\n'.join(live_gauges(
            view if view.generation is not None else None,
            data.status(name)) + demand_counters(data.demand(name)))
        texts.append(labelled(live.encode('utf-8'), name))
    return merged(texts)


def _published_gauges(data, name, view):
    """The worker's gauges of view's generation, cloud labelled."""
    if view.generation is None:
        return {}
    state = data.cloud(name)
    try:
        held = data.document(state, view.generation, pub.METRICS)
    except errors.Unavailable:
        return {}  # the next scrape tries again
    if held is None:
        return {}
    return data.made(held, ('metrics', name),
                     lambda: labelled(held.body, name))


class MetricsController(base.Resource):
    """/metrics: every cloud's gauges, Prometheus text format."""

    @base.expose('getMetrics')
    def get_all(self):
        return responses.page(exposition(base.request().published),
                              content_type=CONTENT_TYPE)
