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
"""The OpenStack releases flavor-exporter is tested against, and their APIs.

README.rst ("Supported OpenStack releases") says the same for operators;
the test cloud installs each from ``testcloud/releases/<name>/``. The
maximum microversions are what that release's Nova and Placement answer
in their version documents: functional/test_releases.py checks them
against the running cloud, and unit/test_microversions.py keeps every
microversion this service asks for within the oldest release's.
"""

import collections

Release = collections.namedtuple(
    'Release', 'name nova placement compute_max placement_max')

SUPPORTED = (
    Release('2024.1', nova='29.4.0', placement='11.0.1',
            compute_max='2.96', placement_max='1.39'),
    Release('2026.2', nova='34.0.0', placement='16.0.0',
            compute_max='2.104', placement_max='1.39'),
)
OLDEST = SUPPORTED[0]


def by_name(name):
    for release in SUPPORTED:
        if release.name == name:
            return release
    raise KeyError(name)


def version_tuple(version):
    """'2.96' -> (2, 96): microversions compare number by number."""
    return tuple(int(part) for part in version.split('.'))
