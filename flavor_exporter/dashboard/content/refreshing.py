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
"""A panel page whose figures refresh themselves.

The page is rendered whole once; then static/flavor_exporter/capacity.js
asks the same URL with ?figures=1 every CAPACITY_REFRESH_SECONDS and puts
the answer (the figures' template only) in place of the figures. The API's
errors become Horizon messages on the page and an alert in the figures,
never an error page: the figures a user had stay until new ones come.
"""

import datetime

from django.conf import settings
from django.contrib import messages
from django import shortcuts
from horizon import views

from flavor_exporter.dashboard import api

#: Seconds between refreshes when the setting is absent.
DEFAULT_REFRESH_SECONDS = 30


class RefreshingView(views.HorizonTemplateView):
    """template_name: the page; figures_template: the part refreshed."""

    figures_template = None

    def read(self, problems):
        """The figures' context; problems.append(CapacityError) on errors."""
        raise NotImplementedError

    def fetch(self, problems, function, *args):
        """function(request, *args), or None with the error in problems."""
        try:
            return function(self.request, *args)
        except api.CapacityError as exc:
            problems.append(exc)
            return None

    def figures_context(self):
        problems = []
        context = self.read(problems)
        context['problems'] = [str(p) for p in problems]
        context['rendered_at'] = datetime.datetime.now(
            datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')
        return context, problems

    def get(self, request, *args, **kwargs):
        figures, problems = self.figures_context()
        if request.GET.get('figures'):
            return shortcuts.render(request, self.figures_template, figures)
        for problem in problems:
            messages.error(request, str(problem))
        context = self.get_context_data(**kwargs)
        context.update(figures)
        context['figures_template'] = self.figures_template
        context['refresh_seconds'] = refresh_seconds()
        return self.render_to_response(context)


def refresh_seconds():
    return getattr(settings, 'CAPACITY_REFRESH_SECONDS',
                   DEFAULT_REFRESH_SECONDS)


def gpu_first(flavors):
    """GPU flavors first (by GPU type), then by name, as the CLI sorts."""
    return sorted(flavors, key=lambda f: (
        f.get('gpu') is None, (f.get('gpu') or {}).get('type', ''),
        f['name'].casefold()))


def zones(mapping):
    """[(zone, figures)] sorted by zone name, from a zone mapping."""
    return sorted((mapping or {}).items())


def data_age(document):
    """The document's timestamp and its age in seconds (None, None)."""
    if not document:
        return None, None
    stamp = document.get('timestamp')
    return stamp, api.age_seconds(stamp)
