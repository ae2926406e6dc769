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
"""The [DEFAULT] options of oslo.service's launcher, as these commands run it.

oslo.service's own namespace for oslo-config-generator
(oslo.service.service) imports the backend of the moment: eventlet, since
the generator selects none, and eventlet prints a deprecation warning on
import. It also lists the eventlet backdoor's options, which the threading
backend these commands run (flavor_exporter.cmd) does not have. This
namespace lists the options with the threading backend selected, without
the backdoor's.
"""

import warnings

from oslo_service import backend

# futurist imports eventlet whenever it is installed, which oslo.service
# still makes it; these commands never run it (see flavor_exporter.cmd).
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
backend.init_backend(backend.BackendType.THREADING)

from oslo_service import service  # noqa: E402 (after the backend choice)

# Options only the eventlet backend reads.
_EVENTLET_ONLY = ('backdoor_port', 'backdoor_socket')


def list_opts():
    return [(group, [opt for opt in opts if opt.dest not in _EVENTLET_ONLY])
            for group, opts in service.list_opts()]
