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
"""Admin > Compute > Capacity: every flavor, GPU devices, demand, worker."""

from django.utils.translation import gettext_lazy as _

from flavor_exporter.dashboard import api
from flavor_exporter.dashboard.content import refreshing


def percent(part, whole):
    """part of whole in percent for the chart's widths (0 without whole)."""
    if not whole or part is None:
        return 0
    return round(100.0 * part / whole, 1)


def gpu_rows(document):
    """GPU types with the chart's segments: used, free, stranded."""
    rows = []
    for gpu in (document or {}).get('gpus', []):
        total = gpu.get('total') or 0
        stranded = gpu.get('stranded') or 0
        free = gpu.get('free') or 0
        rows.append(dict(
            gpu, zones=refreshing.zones(gpu.get('availability_zones')),
            stranded_by_list=sorted((gpu.get('stranded_by') or {}).items()),
            free_usable=max(free - stranded, 0),
            used_pct=percent(gpu.get('used'), total),
            # Stranded devices are free devices no flavor can use now.
            free_pct=percent(max(free - stranded, 0), total),
            stranded_pct=percent(stranded, total)))
    return rows


def demand_rows(status):
    """NoValidHost per flavor, most turned away first; None without it."""
    demand = (status or {}).get('demand')
    if demand is None:
        return None
    rows = [dict(figures, id=flavor_id) for flavor_id, figures
            in (demand.get('flavors') or {}).items()]
    return sorted(rows, key=lambda r: (-(r.get('turned_away') or 0),
                                       r.get('name') or ''))


class AdminIndexView(refreshing.RefreshingView):
    template_name = 'flavor_exporter/admin.html'
    figures_template = 'flavor_exporter/_admin_figures.html'
    page_title = _("Capacity")

    def read(self, problems):
        flavors = self.fetch(problems, api.flavors)
        gpus = self.fetch(problems, api.gpus)
        status = self.fetch(problems, api.status)
        timestamp, age = refreshing.data_age(flavors)
        rows = []
        for flavor in refreshing.gpu_first((flavors or {}).get('flavors',
                                                               [])):
            rows.append(dict(flavor, zones=refreshing.zones(
                flavor.get('availability_zones'))))
        return {
            'flavors_document': flavors, 'flavors': rows,
            'timestamp': timestamp, 'age': age,
            'stale': bool((flavors or {}).get('stale')
                          or (gpus or {}).get('stale')),
            'unreadable_hosts': sorted(
                ((flavors or {}).get('unreadable_hosts') or {}).items()),
            'unreadable_host_count': (flavors or {}).get(
                'unreadable_host_count'),
            'gpus_document': gpus, 'gpus': gpu_rows(gpus),
            'status': status, 'demand': demand_rows(status),
            'refresh': (status or {}).get('refresh') or {},
        }
