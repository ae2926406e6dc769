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
"""The shipped Grafana dashboard and alerting rules use what /metrics has.

The names are checked against a real exposition: the sample cloud computed
by the engine, rendered by the worker's renderer, served by the API app.
So is their use of the cloud label every sample has: the dashboard filters
by its cloud variable, and no aggregation merges two clouds' series.
"""

import json
import os
import re

import yaml

from flavor_exporter.publication import contract as pub
from flavor_exporter.tests.unit.api import base

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
MONITORING = os.path.join(ROOT, 'etc', 'monitoring')

# PromQL words that are not metric names: operators, modifiers and
# aggregations (those also followed by "(" are caught as functions).
KEYWORDS = {'and', 'or', 'unless', 'by', 'without', 'on', 'ignoring',
            'group_left', 'group_right', 'offset', 'bool', 'sum', 'min',
            'max', 'avg', 'count', 'topk', 'bottomk', 'inf', 'nan'}
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_RANGE = re.compile(r'\[[^\]]*\]')
_GROUPING = re.compile(
    r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)')
_SELECTOR = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)?\s*\{([^}]*)\}')
_NAME = re.compile(r'(?<![\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()')
_MATCHER = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)')
_DURATION = re.compile(r'(?<![\w.])\d+(?:\.\d+)?[smhdwy]?\b')
AGGREGATIONS = ('sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar',
                'count', 'count_values', 'bottomk', 'topk', 'quantile')
_AGGREGATION = re.compile(r'\b(%s)\s*(?:(by|without)\s*\(([^)]*)\)\s*)?\('
                          % '|'.join(AGGREGATIONS))
_POSTFIX_GROUPING = re.compile(r'\s*(by|without)\s*\(([^)]*)\)')
_LABEL_VALUES = re.compile(
    r'label_values\(\s*([a-zA-Z_:][\w:]*)\s*(?:\{([^}]*)\})?\s*,\s*(\w+)\s*\)')

# Labels Prometheus adds to every sample it scrapes: not in /metrics.
TARGET_LABELS = {'instance', 'job'}
# A gauge whose name ends in _total, as os-capacity's users know it.
OS_CAPACITY = {'openstack_free_capacity_by_flavor_total'}


def metric_names(expr):
    """The metric names an expression reads."""
    names = set()
    for match in _SELECTOR.finditer(expr):
        if match.group(1):
            names.add(match.group(1))
    rest = _SELECTOR.sub(' ', _STRING.sub(' ', expr))
    rest = _GROUPING.sub(' ', _RANGE.sub(' ', rest))
    rest = _DURATION.sub(' ', rest)
    for name in _NAME.findall(rest):
        if name not in KEYWORDS:
            names.add(name)
    return names


def matchers(expr):
    """{metric name: label names its selectors match on}."""
    found = {}
    for match in _SELECTOR.finditer(_STRING.sub('""', expr)):
        if match.group(1):
            found.setdefault(match.group(1), set()).update(
                _MATCHER.findall(match.group(2)))
    return found


def selectors(expr):
    """[(metric name, label names matched)] of every selector of expr.

    A bare metric name is a selector matching no label.
    """
    text = _STRING.sub('""', expr)
    found = [(match.group(1), set(_MATCHER.findall(match.group(2))))
             for match in _SELECTOR.finditer(text) if match.group(1)]
    bare = metric_names(_SELECTOR.sub(' ', text))
    return found + [(name, set()) for name in sorted(bare)]


def _closing(text, opening):
    """The index of the parenthesis closing the one at text[opening]."""
    depth = 0
    for index in range(opening, len(text)):
        depth += {'(': 1, ')': -1}.get(text[index], 0)
        if depth == 0:
            return index
    raise ValueError('unbalanced parentheses: %s' % text)


def aggregations(expr):
    """[(operator, "by", "without" or None, labels, operand)] of expr.

    Both forms: "max by (a) (x)" and "max(x) by (a)".
    """
    text = _STRING.sub('""', expr)
    found = []
    for match in _AGGREGATION.finditer(text):
        opening = match.end() - 1
        closing = _closing(text, opening)
        operator, grouping, labels = match.groups()
        if grouping is None:
            postfix = _POSTFIX_GROUPING.match(text, closing + 1)
            if postfix:
                grouping, labels = postfix.groups()
        found.append((operator, grouping,
                      {label.strip() for label in (labels or '').split(',')
                       if label.strip()},
                      text[opening + 1:closing]))
    return found


def label_values_queries(query):
    """Grafana's label_values(metric, label) reads metric."""
    return set(re.findall(r'label_values\(\s*([a-zA-Z_:][\w:]*)', query))


def label_values_parts(query):
    """(metric, label names its selector matches, label) of label_values."""
    match = _LABEL_VALUES.search(_STRING.sub('""', query))
    metric, matched, label = match.groups()
    return metric, set(_MATCHER.findall(matched or '')), label


def dashboard():
    with open(os.path.join(MONITORING, 'grafana-dashboard.json')) as f:
        return json.load(f)


def dashboard_expressions():
    exprs = [target['expr'] for panel in dashboard()['panels']
             for target in panel.get('targets', [])]
    templates = [variable['query']
                 for variable in dashboard()['templating']['list']]
    return exprs, templates


def alert_rules():
    with open(os.path.join(MONITORING, 'prometheus-alerts.yaml')) as f:
        rules = yaml.safe_load(f)
    return {rule['alert']: rule for group in rules['groups']
            for rule in group['rules']}


def alert_expressions():
    return {alert: rule['expr'] for alert, rule in alert_rules().items()}


class TestPromqlParsing(base.base.BaseTestCase):
    """The parser the checks rely on finds what it must."""

    def test_names(self):
        self.assertEqual(
            {'a_b', 'c:d', 'e'},
            metric_names('sum by (x, y) (rate(a_b{l="v,w"}[5m])) '
                         '/ on (z) group_left (q) c:d offset 1h '
                         'and e > 0.75 * 3'))

    def test_matchers(self):
        self.assertEqual({'a': {'x', 'y'}},
                         matchers('a{x="1",y=~"$f"} > 0'))

    def test_selectors(self):
        self.assertEqual(
            [('a', {'x'}), ('a', set()), ('b', set())],
            selectors('max by (c) (a{x="}"}) / a and b offset 1h'))

    def test_aggregations(self):
        self.assertEqual(
            [('max', 'by', {'cloud', 'x'}, 'a{l=""}'),
             ('sum', 'by', {'cloud'}, 'rate(c[5m])'),
             ('count_values', None, set(), '"", d'),
             ('min', 'without', {'gpu'}, 'e')],
            aggregations('max by (cloud, x) (a{l="max(b)"}) '
                         '/ sum(rate(c[5m])) by (cloud) '
                         '+ count_values("v", d) + min without (gpu) (e)'))

    def test_label_values(self):
        self.assertEqual(
            ('m', {'cloud'}, 'flavor_name'),
            label_values_parts('label_values(m{cloud=~"$c"}, flavor_name)'))
        self.assertEqual(('m', set(), 'cloud'),
                         label_values_parts('label_values(m, cloud)'))


class TestMonitoringUsesExportedMetrics(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.publish()
        # Boots Nova turned away, as the leading worker adds them up.
        self.store.write_demand({pub.TURNED_AWAY_LOST: 0,
                                 pub.DEMAND_FLAVORS: {'1': {
                                     pub.NAME: 'g.large',
                                     pub.TURNED_AWAY: 3, pub.LAST_AT: None,
                                     pub.PROJECTS: {'p1': 3}}}})
        text = self.app.get('/metrics').text
        self.exported = {}
        for name, labels in re.findall(
                r'^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? \S+$', text, re.M):
            self.exported.setdefault(name, set()).update(
                re.findall(r'(\w+)="', labels))
        for name in self.exported:
            # Every sample's family is declared: counters end in _total.
            self.assertIn('# TYPE %s %s\n' % (
                name, 'gauge' if name in OS_CAPACITY or not name.endswith(
                    '_total') else 'counter'), text)

    def assertExported(self, where, expr):
        names = metric_names(expr)
        self.assertTrue(names, '%s reads no metric: %s' % (where, expr))
        for name in names:
            self.assertIn(name, self.exported,
                          '%s uses %s, which /metrics does not export'
                          % (where, name))
        for name, labels in matchers(expr).items():
            self.assertLessEqual(
                labels, self.exported[name],
                '%s matches labels %s has not' % (where, name))
        for _op, _grouping, labels, operand in aggregations(expr):
            for name in metric_names(operand):
                self.assertLessEqual(
                    labels - TARGET_LABELS, self.exported[name],
                    '%s groups %s by labels it has not' % (where, name))

    def assertCloudsApart(self, where, expr):
        """No aggregation of expr merges the series of two clouds."""
        for operator, grouping, labels, _operand in aggregations(expr):
            self.assertEqual(
                ('by', True), (grouping, 'cloud' in labels),
                '%s: %s must aggregate by (cloud, ...): %s'
                % (where, operator, expr))

    def test_alerts(self):
        alerts = alert_expressions()
        self.assertEqual(
            {'FlavorExporterDataStale', 'FlavorExporterNotScraped',
             'FlavorExporterRefreshFailing',
             'FlavorExporterGpuFlavorExhausted',
             'FlavorExporterCapacityDropped',
             'FlavorExporterDemandTurnedAway'}, set(alerts))
        for alert, expr in alerts.items():
            self.assertExported(alert, expr)
            self.assertCloudsApart(alert, expr)

    def test_alerts_name_the_cloud(self):
        for alert, rule in alert_rules().items():
            if rule['expr'].startswith('absent('):
                # Fires when no series exists: there is no cloud to name.
                continue
            self.assertIn('{{ $labels.cloud }}',
                          rule['annotations']['summary'], alert)

    def test_dashboard(self):
        exprs, templates = dashboard_expressions()
        for expr in exprs:
            self.assertExported('dashboard', expr)
        for query in templates:
            names = label_values_queries(query)
            self.assertTrue(names, query)
            for name in names:
                self.assertIn(name, self.exported)
            metric, matched, label = label_values_parts(query)
            self.assertLessEqual(matched | {label}, self.exported[metric],
                                 query)

    def test_dashboard_filters_by_cloud(self):
        variables = {variable['name']: variable['query']
                     for variable in dashboard()['templating']['list']}
        # The cloud variable lists the clouds /metrics has.
        self.assertEqual('cloud', label_values_parts(variables['cloud'])[2])
        # Every other variable and every panel reads the chosen clouds
        # only, and keeps them apart.
        for name, query in variables.items():
            if name != 'cloud':
                self.assertIn('cloud', label_values_parts(query)[1], query)
        exprs, _templates = dashboard_expressions()
        for expr in exprs:
            for metric, labels in selectors(expr):
                self.assertIn('cloud', labels,
                              '%s in %s' % (metric, expr))
            self.assertCloudsApart('dashboard', expr)
        for panel in dashboard()['panels']:
            for target in panel['targets']:
                self.assertIn('{{cloud}}', target['legendFormat'],
                              panel['title'])

    def test_no_gauge_named_like_a_counter(self):
        # os-capacity's name is the one exception, kept for its users.
        self.assertEqual(
            OS_CAPACITY | {'flavor_exporter_scheduling_failures_total',
                           'flavor_exporter_scheduling_failures_by_'
                           'project_total'},
            {name for name in self.exported if name.endswith('_total')})
