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
"""Several oslo.service Services in one process.

A launcher forks one process per launch_service call; the worker of
each cloud, and the API beside them in flavor-exporter-all, share one.
"""

from oslo_service import service


class OneProcess(service.Service):
    """Starts parts side by side in this process, stops them in reverse."""

    def __init__(self, parts):
        super().__init__()
        self.parts = list(parts)

    def start(self):
        super().start()
        for part in self.parts:
            part.start()

    def stop(self, graceful=False):
        for part in reversed(self.parts):
            part.stop(graceful)
        super().stop(graceful)

    def wait(self):
        for part in self.parts:
            part.wait()
        super().wait()

    def reset(self):
        for part in self.parts:
            part.reset()
