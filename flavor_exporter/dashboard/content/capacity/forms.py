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
"""The "Can these start?" form: a set of servers for POST /v3/checks."""

from django import forms
from django.utils.translation import gettext_lazy as _

#: Rows of the form: requests of the set, in launch order.
ROWS = 3
MAX_COUNT = 1000


class CheckForm(forms.Form):
    """Up to ROWS requests (flavor, count) and an availability zone."""

    def __init__(self, *args, flavors=(), zones=(), **kwargs):
        super().__init__(*args, **kwargs)
        choices = [('', _('-'))] + [(f['id'], f['name']) for f in flavors]
        for row in range(ROWS):
            self.fields['flavor_%d' % row] = forms.ChoiceField(
                label=_('Flavor'), choices=choices, required=(row == 0))
            self.fields['count_%d' % row] = forms.IntegerField(
                label=_('Count'), min_value=1, max_value=MAX_COUNT,
                initial=1, required=False)
        self.fields['availability_zone'] = forms.ChoiceField(
            label=_('Availability zone'), required=False,
            choices=[('', _('Any'))] + [(z, z) for z in zones])

    def rows(self):
        """[(flavor field, count field)] for the template."""
        return [(self['flavor_%d' % row], self['count_%d' % row])
                for row in range(ROWS)]

    def body(self):
        """The POST /v3/checks body of the cleaned form."""
        data = self.cleaned_data
        servers = [{'flavor': data['flavor_%d' % row],
                    'count': data.get('count_%d' % row) or 1}
                   for row in range(ROWS) if data.get('flavor_%d' % row)]
        body = {'servers': servers}
        if data.get('availability_zone'):
            body['availability_zone'] = data['availability_zone']
        return body
