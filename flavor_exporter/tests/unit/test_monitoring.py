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
"""

import json
import os
import re

import yaml

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


def label_values_queries(query):
    """Grafana's label_values(metric, label) reads metric."""
    return set(re.findall(r'label_values\(\s*([a-zA-Z_:][\w:]*)', query))


def dashboard_expressions():
    with open(os.path.join(MONITORING, 'grafana-dashboard.json')) as f:
        dashboard = json.load(f)
    exprs = [target['expr'] for panel in dashboard['panels']
             for target in panel.get('targets', [])]
    templates = [variable['query']
                 for variable in dashboard['templating']['list']]
    return exprs, templates


def alert_expressions():
    with open(os.path.join(MONITORING, 'prometheus-alerts.yaml')) as f:
        rules = yaml.safe_load(f)
    return {rule['alert']: rule['expr'] for group in rules['groups']
            for rule in group['rules']}


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


class TestMonitoringUsesExportedMetrics(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.publish()
        text = self.app.get('/metrics').text
        self.exported = {}
        for name, labels in re.findall(
                r'^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? \S+$', text, re.M):
            self.exported.setdefault(name, set()).update(
                re.findall(r'(\w+)="', labels))
        for name in self.exported:
            # Every sample's family is declared, as a gauge.
            self.assertIn('# TYPE %s gauge\n' % name, text)

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

    def test_alerts(self):
        alerts = alert_expressions()
        self.assertEqual(
            {'FlavorExporterDataStale', 'FlavorExporterNotScraped',
             'FlavorExporterRefreshFailing',
             'FlavorExporterGpuFlavorExhausted',
             'FlavorExporterCapacityDropped'}, set(alerts))
        for alert, expr in alerts.items():
            self.assertExported(alert, expr)

    def test_dashboard(self):
        exprs, templates = dashboard_expressions()
        for expr in exprs:
            self.assertExported('dashboard', expr)
        for query in templates:
            names = label_values_queries(query)
            self.assertTrue(names, query)
            for name in names:
                self.assertIn(name, self.exported)

    def test_no_gauge_named_like_a_counter(self):
        # os-capacity's name is the one exception, kept for its users.
        self.assertEqual(
            ['openstack_free_capacity_by_flavor_total'],
            [name for name in self.exported if name.endswith('_total')])
