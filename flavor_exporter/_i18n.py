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
"""oslo.i18n integration: ``_()`` marks messages shown to users.

See https://docs.openstack.org/oslo.i18n/latest/user/index.html. Only
what an operator reads as output or as an exception's message is
translated; log messages are not (current OpenStack guidance), nor is
option help.
"""

import oslo_i18n

DOMAIN = 'flavor_exporter'

_translators = oslo_i18n.TranslatorFactory(domain=DOMAIN)

# The primary translation function using the well-known name "_"
_ = _translators.primary

# "1 server", "2 servers": ngettext's (singular, plural, n).
_P = _translators.plural_form
