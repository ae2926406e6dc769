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
"""Console scripts.

Importing this package selects oslo.service's threading backend before any
service module is imported; otherwise oslo.service locks in eventlet.
"""

import os
import warnings

# futurist imports eventlet when it is installed (oslo.service installs
# it), and eventlet imports dnspython for its green DNS, whose DSA
# algorithms print eight lines of CryptographyDeprecationWarning with
# cryptography 51. Nothing here runs eventlet, let alone its resolver:
# its own switch leaves dnspython unimported.
os.environ.setdefault('EVENTLET_NO_GREENDNS', 'yes')

from oslo_service import backend  # noqa: E402 (the switch first)

# oslo.service still installs eventlet, and futurist imports it when it
# is there, which prints eight lines of deprecation warning on every
# command's stderr. These commands never run eventlet: the warning only
# buries what they have to say.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
backend.init_backend(backend.BackendType.THREADING)
