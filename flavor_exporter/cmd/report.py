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

"""flavor-exporter-report: compute once from a cloud and print."""

import json
import logging
import sys
import threading

from oslo_config import cfg
from oslo_log import log

from flavor_exporter._i18n import _
from flavor_exporter.cmd import start
from flavor_exporter.common import clouds
from flavor_exporter.common import config
from flavor_exporter.common import config_check
from flavor_exporter.common import exceptions
from flavor_exporter.common import failures
from flavor_exporter.common import phrases
from flavor_exporter.common import whatif_text
from flavor_exporter.publication import checks as check_docs
from flavor_exporter.publication import contract as pub
from flavor_exporter.publication import projects as project_docs
from flavor_exporter.publication import render
from flavor_exporter.publication import whatif as whatif_docs
from flavor_exporter.worker import checks
from flavor_exporter.worker import openstack
from flavor_exporter.worker import projects
from flavor_exporter.worker import refresh
from flavor_exporter.worker import whatif

LOG = log.getLogger(__name__)

PROG = 'flavor-exporter-report'

DESCRIPTION = _(
    'Read a cloud once (--cloud, by default [DEFAULT] default_cloud) and '
    'print how many instances of each flavor fit, per availability zone, '
    'GPU flavors first (or, with --gpus, its GPU devices by type): no '
    'memcached, no API. Progress goes to stderr, the report to stdout.')

CLI_OPTS = [
    cfg.StrOpt('cloud', metavar='NAME',
               help='The cloud of [DEFAULT] clouds to read, through its '
                    '[cloud:NAME] group; [DEFAULT] default_cloud when not '
                    'given. Not a clouds.yaml entry: that is the group\'s '
                    '"cloud" option.'),
    cfg.StrOpt('format', default='table', choices=['table', 'json'],
               help='table for people; json prints the /v3/flavors/ '
                    'document.'),
    cfg.BoolOpt('gpu', default=False, help='GPU flavors only.'),
    cfg.BoolOpt('gpus', default=False,
                help='GPU devices by type instead of flavors: how many '
                     'exist, are used, are free and are stranded (free on '
                     'hosts where no flavor that could take them can '
                     'start now, and what blocks them), per availability '
                     'zone; json prints the /v3/gpus/ document.'),
    # "project" is oslo.config's own name: the option is project_id,
    # given as --project (or --project-id).
    cfg.StrOpt('project_id', metavar='PROJECT_ID',
               deprecated_opts=[cfg.DeprecatedOpt('project')],
               help='What this project can start instead of the cloud: '
                    'per flavor it may use, the capacity on the hosts it '
                    'may use, its quota headroom (read now, as Nova counts '
                    'it) and startable, the smaller; json prints the '
                    '/v3/projects/PROJECT_ID/flavors/ document.'),
    cfg.StrOpt('check', metavar='FILE',
               help='Whether the set of servers FILE describes can start '
                    'together, and where Nova would put each (a JSON '
                    'body of POST /v3/checks; - reads stdin); json prints '
                    'the answer document, as the API gives it to callers '
                    'who may see hosts. Exit status 0 when the whole set '
                    'starts, 1 when it does not (or the cloud could not be '
                    'read), 2 for a bad option or file.'),
    cfg.StrOpt('whatif', metavar='FILE',
               help='The capacity after the changes FILE describes (a '
                    'JSON body of POST /v3/whatif: hosts drained, their '
                    'servers staying or evacuated, added, removed, '
                    'allocation ratios or reserved amounts changed, '
                    'flavors changed or added; - reads stdin): per flavor '
                    'available and total before and after; json prints the '
                    'answer document. Exit status 0 when every evacuated '
                    'server finds a host, 1 when one does not.'),
    cfg.BoolOpt('progress', default=None,
                help='Show on stderr how far reading the cloud has got. '
                     'By default only when stderr is a terminal; never on '
                     'stdout.'),
]

# How often the progress line is redrawn, seconds.
PROGRESS_INTERVAL = 0.5


def _gpu(flavor):
    return phrases.gpu(flavor['gpu']) or '-'


def _number(value):
    return 'ERROR' if value is None else str(value)


def _zone(flavor, zone):
    numbers = (flavor[pub.ZONES] or {}).get(zone)
    if flavor[pub.TOTAL] is None:
        return 'ERROR'
    if not numbers or not numbers[pub.TOTAL]:
        return '-'
    return phrases.zone_cell(numbers[pub.AVAILABLE], numbers[pub.TOTAL])


def ordered(flavors):
    """GPU flavors first (by GPU model, then name), then by name."""
    return sorted(flavors, key=lambda f: (
        not f['gpu'], (f['gpu'] or {}).get('type', ''),
        f[pub.NAME].casefold(), f[pub.ID]))


def format_table(flavors):
    """A fixed-width table: one row a flavor, one column a zone.

    Numbers are right-aligned so that magnitudes line up down a column;
    a zone cell is available/total there (phrases.zone_cell, as the
    openstack command prints it), "-" where the flavor fits on no host of
    the zone, said under the table. IDs are left to --format json: a
    column of UUIDs would double the width.
    """
    zones = sorted({zone for f in flavors for zone in f[pub.ZONES] or ()})
    header = (['name', 'gpu', 'available', 'total'] + zones
              + ['limited_by'])
    numeric = [False, False, True, True] + [True] * len(zones) + [False]
    return _table(header, numeric, [
        [flavor[pub.NAME], _gpu(flavor), _number(flavor[pub.AVAILABLE]),
         _number(flavor[pub.TOTAL])]
        + [_zone(flavor, zone) for zone in zones]
        + [flavor['limited_by'] or '-'] for flavor in ordered(flavors)],
        phrases.FLAVOR_ZONE_CELL if zones else None)


def _headroom(flavor):
    quota = flavor[pub.QUOTA]
    if quota['headroom'] is None:
        return phrases.UNLIMITED
    return '%d (%s)' % (phrases.headroom(quota),
                        phrases.quota_limited_by(quota))


def format_project_table(flavors):
    """A project's flavors: startable, capacity, quota, per zone.

    A zone cell is startable/available there.
    """
    zones = sorted({zone for f in flavors for zone in f[pub.ZONES] or ()
                    if zone})
    header = (['name', 'gpu', 'startable', 'available', 'quota']
              + zones + ['limited_by'])
    numeric = [False, False, True, True, True] + [True] * len(zones) + [
        False]

    def zone(flavor, name):
        numbers = (flavor[pub.ZONES] or {}).get(name)
        if not numbers or not numbers[pub.TOTAL]:
            return '-'
        return phrases.zone_cell(numbers[pub.STARTABLE],
                                 numbers[pub.AVAILABLE])
    return _table(header, numeric, [
        [flavor[pub.NAME], _gpu(flavor), str(flavor[pub.STARTABLE]),
         _number(flavor[pub.AVAILABLE]), _headroom(flavor)]
        + [zone(flavor, name) for name in zones]
        + [flavor['startable_limited_by'] or '-']
        for flavor in ordered(flavors)],
        phrases.PROJECT_ZONE_CELL if zones else None)


def format_gpu_table(gpus):
    """The GPU types of a /v3/gpus/ document as a fixed-width table.

    A zone cell is free/total there, "-" where the type has no device;
    stranded_by says what blocks the stranded devices, most first.
    """
    zones = sorted({zone for gpu in gpus for zone in gpu[pub.ZONES]})
    header = (['type', 'total', 'used', 'free', 'stranded'] + zones
              + ['stranded_by'])
    numeric = [False, True, True, True, True] + [True] * len(zones) + [False]
    rows = []
    for gpu in gpus:
        cells = [gpu[pub.TYPE]] + [str(gpu[field]) for field in (
            pub.TOTAL, pub.USED, pub.FREE, pub.STRANDED)]
        for zone in zones:
            numbers = gpu[pub.ZONES].get(zone)
            cells.append(phrases.zone_cell(numbers[pub.FREE],
                                           numbers[pub.TOTAL])
                         if numbers else '-')
        blocked = sorted(gpu[pub.STRANDED_BY].items(),
                         key=lambda item: (-item[1], item[0]))
        cells.append(', '.join('%s %d' % item for item in blocked) or '-')
        rows.append(cells)
    return _table(header, numeric, rows,
                  phrases.GPU_ZONE_CELL if zones else None)


def format_check(document):
    """A check's answer: one row a request, then where each server goes.

    In the words of openstack capacity check (phrases): a request's
    hosts, tied ones named, and what would start instead, under the
    table; the verdict; the notes.
    """
    check = document[check_docs.CHECK]
    rows = []
    for index, item in enumerate(check[check_docs.REQUESTS], 1):
        rows.append([
            str(index), (item['flavor'] or {}).get(pub.NAME, item['asked']),
            item['request'], str(item[check_docs.COUNT]),
            str(phrases.started(item)),
            phrases.stopped_by(item['stopped_by']) or '-'])
    text = _table(['#', 'flavor', 'request', 'count', 'started',
                   'stopped_by'], [True, False, False, True, True, False],
                  rows)
    for index, item in enumerate(check[check_docs.REQUESTS], 1):
        hosts = phrases.hosts(item[check_docs.SERVERS])
        if hosts:
            text += _('%(index)d: hosts: %(hosts)s') % {
                'index': index, 'hosts': hosts} + '\n'
        instead = phrases.alternatives(item['alternatives'])
        if instead:
            text += _('%(index)d: would start instead: %(instead)s') % {
                'index': index, 'instead': instead} + '\n'
    text += phrases.verdict(check) + '\n'
    for note in check[check_docs.NOTES]:
        text += phrases.note(note) + '\n'
    return text


def _table(header, numeric, rows, zone_cell=None):
    """header and rows aligned in columns, numeric ones to the right.

    zone_cell: what a zone column's cells are (phrases.*_ZONE_CELL), said
    on a line under the table.
    """
    rows = [header] + rows
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]

    def line(row):
        return '  '.join(cell.rjust(width) if right and row is not header
                         else cell.ljust(width)
                         for cell, width, right
                         in zip(row, widths, numeric)).rstrip()
    lines = [line(row) for row in rows]
    lines.insert(1, '  '.join('-' * width for width in widths))
    if zone_cell:
        lines.append(phrases.zone_legend(zone_cell))
    return '\n'.join(lines) + '\n'


def chosen_cloud(conf):
    """The clouds.Cloud to read: --cloud, else [DEFAULT] default_cloud.

    exceptions.InvalidOption when --cloud names no cloud of this deployment.
    """
    if not conf.cloud:
        return clouds.default(conf)
    found = clouds.configured(conf)
    for cloud in found:
        if cloud.name == conf.cloud:
            return cloud
    if not conf.clouds:
        raise exceptions.InvalidOption(
            _('--cloud %s: [DEFAULT] clouds is empty, so the only cloud '
              'is "default"; list the clouds there or leave --cloud out')
            % conf.cloud)
    raise exceptions.InvalidOption(
        _('--cloud %(name)s is none of [DEFAULT] clouds (%(names)s); pick '
          'one of them') % {'name': conf.cloud,
                            'names': ', '.join(c.name for c in found)})


def footer(cloud, report, document):
    """The table's last line: which cloud, source, data time, API calls."""
    values = {'cloud': cloud.name, 'source': report.source,
              'timestamp': document[pub.TIMESTAMP],
              'calls': report.api_calls}
    if cloud.log_prefix:
        # Among several clouds a saved table must say which it shows.
        return _('cloud %(cloud)s, source: %(source)s, data from '
                 '%(timestamp)s, %(calls)d API calls') % values + '\n'
    return _('source: %(source)s, data from %(timestamp)s, %(calls)d API '
             'calls') % values + '\n'


def progress_wanted(conf, stream):
    if conf.progress is not None:
        return conf.progress
    return stream.isatty()


class Progress:
    """Redraws "reading the cloud: N API calls" on stream until stopped.

    The report's calls go through one CloudClient, which counts them: a
    count that grows is what shows that a large cloud is being read, with
    no change to how it is read.
    """

    def __init__(self, client, stream):
        self._client = client
        self._stream = stream
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name='report-progress')
        self._width = 0

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc_info):
        self._done.set()
        self._thread.join()
        if self._width:
            self._draw('')

    def text(self):
        calls = self._client.calls
        by_service = ', '.join('%s %d' % item
                               for item in sorted(calls.items()))
        return _('reading the cloud: %(count)d API calls%(detail)s') % {
            'count': sum(calls.values()),
            'detail': ' (%s)' % by_service if by_service else ''}

    def _draw(self, text):
        # Overwrite the previous line, spaces over what was longer.
        self._stream.write('\r' + text.ljust(self._width))
        self._stream.write('\r' if not text else '')
        self._stream.flush()
        self._width = len(text)

    def _run(self):
        # At once, then every PROGRESS_INTERVAL: a quick read shows too.
        self._draw(self.text())
        while not self._done.wait(PROGRESS_INTERVAL):
            self._draw(self.text())


def _check(conf):
    if conf.gpu and conf.gpus:
        raise exceptions.InvalidOption(
            _('--gpu picks GPU flavors, --gpus lists GPU devices by type '
              'instead of flavors: give one of them'))
    if conf.project_id is not None and conf.gpus:
        raise exceptions.InvalidOption(
            _('--project lists what a project can start of each flavor, '
              '--gpus the cloud\'s GPU devices: give one of them'))
    if conf.project_id is not None and not project_docs.valid_project_id(
            conf.project_id):
        raise exceptions.InvalidOption(
            _('--project %s is not a project id') % conf.project_id[:80])
    if conf.check is not None and (conf.gpus or conf.project_id):
        raise exceptions.InvalidOption(
            _('--check answers for the set in its file (which names its '
              'project): give it without --gpus and --project'))
    if conf.whatif is not None and (conf.gpus or conf.project_id
                                    or conf.check is not None):
        raise exceptions.InvalidOption(
            _('--whatif answers for the whole cloud: give it without '
              '--gpus, --project and --check'))
    cloud = chosen_cloud(conf)
    config_check.check_urls(conf, [cloud.group])
    return refresh.engine_options(conf), cloud


def read_check(conf):
    """The set_check.SetRequest of --check FILE; InvalidOption if bad."""
    try:
        if conf.check == '-':
            body = json.load(sys.stdin)
        else:
            with open(conf.check) as stream:
                body = json.load(stream)
        return check_docs.parse(body, conf.checks.max_servers,
                                project_docs.valid_project_id)
    except (OSError, ValueError) as exc:
        raise exceptions.InvalidOption(
            _('--check %(file)s: %(why)s') % {'file': conf.check,
                                              'why': exc})


def read_whatif(conf):
    """The whatif_request.WhatIf of --whatif FILE; InvalidOption if bad."""
    try:
        if conf.whatif == '-':
            body = json.load(sys.stdin)
        else:
            with open(conf.whatif) as stream:
                body = json.load(stream)
        return whatif_docs.parse(body)
    except (OSError, ValueError) as exc:
        raise exceptions.InvalidOption(
            _('--whatif %(file)s: %(why)s') % {'file': conf.whatif,
                                               'why': exc})


def format_whatif(document):
    """A what-if's answer: the flavors, the GPU types, the summary."""
    answer = document[whatif_docs.WHATIF]
    text = _table(list(whatif_text.FLAVOR_COLUMNS),
                  [False, False, True, True, True, True, True, False],
                  whatif_text.flavor_rows(answer))
    if answer['results']['gpus']:
        text += '\n' + _table(list(whatif_text.GPU_COLUMNS),
                              [False, True, True, True, True, True],
                              whatif_text.gpu_rows(answer))
    return text + ''.join(line + '\n'
                          for line in whatif_text.summary_lines(answer))


@start.command
def main(argv):
    config.CONF.register_cli_opts(CLI_OPTS)
    # stdout carries the report: logs go to stderr unless a file is set.
    config.CONF.set_default('use_stderr', True)
    conf, (options, cloud) = start.configure(PROG, argv, DESCRIPTION,
                                             _check)
    if not conf.debug:
        # The report prints the problems and the failure itself; the
        # worker's INFO and WARNING lines would repeat them on stderr,
        # across the progress line.
        logging.getLogger('flavor_exporter').setLevel(logging.ERROR)
    try:
        wanted = read_check(conf) if conf.check is not None else None
        changes = read_whatif(conf) if conf.whatif is not None else None
    except exceptions.InvalidOption as exc:
        sys.stderr.write('%s: %s\n' % (PROG, exc))
        return 2
    try:
        client = openstack.CloudClient.from_conf(conf, cloud.group)
        # Nothing is published: the documents are printed.
        refresher = refresh.Refresher(conf, publisher=None, client=client,
                                      options=options, cloud=cloud)
        if progress_wanted(conf, sys.stderr):
            with Progress(client, sys.stderr):
                report = refresher.compute()
        else:
            report = refresher.compute()
        project = answer = None
        if changes is not None:
            answer = whatif.Whatif(conf, options).compute(
                report, refresher.computed_snapshot, changes, client)
        elif wanted is not None:
            answer = checks.Checker(conf, options).answer(report, client,
                                                          wanted)
        elif conf.project_id is not None:
            project = projects.compute(conf, report, client,
                                       conf.project_id, options.tenancy)
    except checks.InvalidRequest as exc:
        # A host, aggregate or flavor of the what-if the cloud lacks: the
        # file is wrong, as the API's 400 says.
        sys.stderr.write('%s: --whatif %s: %s\n' % (PROG, conf.whatif, exc))
        return 2
    except Exception as exc:
        LOG.debug('The report could not be computed', exc_info=True)
        sys.stderr.write('%s: %s%s\n' % (
            PROG, cloud.log_prefix,
            failures.explain(exc, cloud.group, again=False)))
        return 1
    # Only the list it prints: per-host documents are the bulk of a
    # refresh's rendering on a large cloud.
    if answer is not None:
        document = answer
    elif project is not None:
        document = project
        if conf.gpu:
            document[pub.FLAVORS] = [f for f in document[pub.FLAVORS]
                                     if f['gpu']]
    elif conf.gpus:
        document = json.loads(render.gpu_list_document(report))
    else:
        document = json.loads(render.list_document(
            report, True if conf.gpu else None))
    if conf.format == 'json':
        sys.stdout.write(json.dumps(document, indent=2) + '\n')
    elif changes is not None:
        sys.stdout.write(format_whatif(document))
        sys.stdout.write('\n' + footer(cloud, report,
                                       document[whatif_docs.WHATIF]))
        for problem in report.problems:
            sys.stdout.write(_('warning: %s') % problem + '\n')
    else:
        if answer is not None:
            sys.stdout.write(format_check(document))
        elif project is not None:
            sys.stdout.write(format_project_table(document[pub.FLAVORS]))
        elif conf.gpus:
            sys.stdout.write(format_gpu_table(document[pub.GPUS]))
        else:
            sys.stdout.write(format_table(document[pub.FLAVORS]))
        sys.stdout.write('\n' + footer(
            cloud, report,
            document[check_docs.CHECK] if answer is not None else document))
        for problem in report.problems:
            sys.stdout.write(_('warning: %s') % problem + '\n')
    if changes is not None:
        evacuation = answer[whatif_docs.WHATIF]['evacuation']
        return 1 if evacuation and not evacuation['fits'] else 0
    if answer is not None and not answer[check_docs.CHECK][check_docs.FITS]:
        # As openstack capacity check: a script tests the exit status.
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
