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
"""Project > Compute > Capacity: what this project can start now."""

from django.contrib import messages
from django.utils.translation import gettext_lazy as _

from flavor_exporter.dashboard import api
from flavor_exporter.dashboard.content.capacity import forms
from flavor_exporter.dashboard.content import refreshing


def flavor_rows(document):
    """The project's flavors as the page shows them, GPU flavors first."""
    rows = []
    for flavor in refreshing.gpu_first(document.get('flavors', [])):
        quota = flavor.get('quota') or {}
        rows.append({
            'id': flavor['id'], 'name': flavor['name'],
            'gpu': flavor.get('gpu'),
            'vcpus': flavor.get('vcpus'), 'ram': flavor.get('ram'),
            'disk': flavor.get('disk'),
            'startable': flavor.get('startable'),
            'startable_limited_by': flavor.get('startable_limited_by'),
            'available': flavor.get('available'),
            'total': flavor.get('total'),
            'headroom': quota.get('headroom'),
            'quota_limited_by': quota.get('limited_by'),
            'zones': refreshing.zones(flavor.get('availability_zones')),
            'error': flavor.get('error'),
            'unsupported': flavor.get('unsupported') or [],
        })
    return rows


class IndexView(refreshing.RefreshingView):
    template_name = 'flavor_exporter/project.html'
    figures_template = 'flavor_exporter/_project_figures.html'
    page_title = _("Capacity")

    def read(self, problems):
        document = self.fetch(problems, api.project_flavors)
        gpus = self.fetch(problems, api.gpus)
        self._document = document
        timestamp, age = refreshing.data_age(document)
        gpu_timestamp, gpu_age = refreshing.data_age(gpus)
        return {
            'document': document,
            'flavors': flavor_rows(document) if document else [],
            'timestamp': timestamp, 'age': age,
            'quota_timestamp': (document or {}).get('quota_timestamp'),
            'stale': bool((document or {}).get('stale')
                          or (gpus or {}).get('stale')),
            'partial': bool((document or {}).get('partial')),
            'gpus': [dict(g, zones=refreshing.zones(
                g.get('availability_zones')))
                for g in (gpus or {}).get('gpus', [])],
            'gpu_timestamp': gpu_timestamp, 'gpu_age': gpu_age,
        }

    def check_form(self, data=None):
        document = getattr(self, '_document', None) or {}
        flavors = refreshing.gpu_first(document.get('flavors', []))
        zones = sorted({z for f in flavors
                        for z in (f.get('availability_zones') or {})})
        return forms.CheckForm(data, flavors=flavors, zones=zones)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.setdefault('form', self.check_form())
        return context

    def post(self, request, *args, **kwargs):
        figures, problems = self.figures_context()
        for problem in problems:
            messages.error(request, str(problem))
        form = self.check_form(request.POST)
        context = self.get_context_data(form=form, **kwargs)
        context.update(figures)
        context['figures_template'] = self.figures_template
        context['refresh_seconds'] = refreshing.refresh_seconds()
        if form.is_valid():
            try:
                context['answer'] = api.check(request, form.body())
            except api.CapacityError as exc:
                messages.error(request, str(exc))
        return self.render_to_response(context)
