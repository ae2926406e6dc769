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

"""flavor-exporter-report: compute once from the cloud and print."""

import json
import sys

from oslo_config import cfg
from oslo_log import log

from flavor_exporter._i18n import _
from flavor_exporter.capacity import render
from flavor_exporter.common import config
from flavor_exporter.common import published as pub
from flavor_exporter.worker import refresh

LOG = log.getLogger(__name__)

PROG = 'flavor-exporter-report'

CLI_OPTS = [
    cfg.StrOpt('format', default='table', choices=['table', 'json'],
               help='table for people; json prints the /v2/flavors/ '
                    'document.'),
    cfg.BoolOpt('gpu', default=False, help='GPU flavors only.'),
]

COLUMNS = ('name', 'id', 'gpu', 'available', 'total', 'limited_by')


def _cell(body, column):
    value = body[column]
    if column == 'gpu':
        return '%s x%d' % (value['type'], value['count']) if value else '-'
    if value is None:
        return 'ERROR' if column in ('available', 'total') else '-'
    return str(value)


def format_table(flavors):
    rows = [COLUMNS] + [tuple(_cell(f, c) for c in COLUMNS)
                        for f in flavors]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = ['  '.join(cell.ljust(width) for cell, width
                       in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, '  '.join('-' * width for width in widths))
    return '\n'.join(lines) + '\n'


def main(argv=None):
    config.CONF.register_cli_opts(CLI_OPTS)
    # stdout carries the report: logs go to stderr unless a file is set.
    config.CONF.set_default('use_stderr', True)
    try:
        config.prepare_service(sys.argv[1:] if argv is None else argv)
        options = refresh.engine_options(config.CONF)
    except config.CONFIG_ERRORS as exc:
        return config.refuse_to_start(PROG, exc)
    conf = config.CONF
    try:
        # Nothing is published: the documents are printed.
        report = refresh.Refresher(conf, store=None,
                                   options=options).compute()
    except Exception as exc:
        LOG.debug('The report could not be computed', exc_info=True)
        sys.stderr.write('%s: %s: %s\n' % (PROG, type(exc).__name__, exc))
        return 1
    # Only the list it prints: per-host documents are the bulk of a
    # refresh's rendering on a large cloud.
    document = json.loads(render.list_document(
        report, True if conf.gpu else None))
    if conf.format == 'json':
        sys.stdout.write(json.dumps(document, indent=2) + '\n')
    else:
        sys.stdout.write(format_table(document[pub.FLAVORS]))
        sys.stdout.write('\n' + _(
            'source: %(source)s, data from %(timestamp)s, %(calls)d API '
            'calls') % {'source': report.source,
                        'timestamp': document[pub.TIMESTAMP],
                        'calls': report.api_calls} + '\n')
        for problem in report.problems:
            sys.stdout.write(_('warning: %s') % problem + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
