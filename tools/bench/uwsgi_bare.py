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
"""tools/bench/api_apps.Bare as a module uWSGI imports (--module).

The yardstick of tools/bench/api.py: the published bytes from process
memory under uWSGI, the fastest server measured on this machine kind.
The environment names memcached and the key (see tools/bench/api_apps);
FLAVOR_EXPORTER_BENCH_APP=pecan-minimal serves the minimal Pecan app
instead (tools/bench/pecan_minimal.py).
"""

import os

from tools.bench import api_apps

application = api_apps.make(os.environ.get(api_apps.APP_ENV) or 'bare')
