#!/bin/bash
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

# Create the virtualenv the browser tests and the demo run Horizon from.
#
# Horizon 27.0.0, the release of 2026.2 (the test cloud's), from PyPI, in a
# venv of its own: its pins (Django) need not agree with flavor-exporter's
# test environments. flavor-exporter goes in with its dashboard extra, as
# an operator installs it (editable: the venv runs this tree), and the
# plugin's enabled files are copied where Horizon reads them, as the
# devstack plugin does. Usage:
#
#     make_horizon_venv.sh [VENV_DIR] [PYTHON]
#
# VENV_DIR defaults to .tox/horizon-venv at the top of the repository;
# PYTHON defaults to python3. Re-running it on a ready venv only copies
# the enabled files again.

set -eu

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
venv="${1:-$repo/.tox/horizon-venv}"
python="${2:-python3}"
requirement="horizon==27.0.0"

if ! "$venv/bin/python" -W ignore -c \
        "import openstack_dashboard, osc_lib, flavor_exporter.dashboard" \
        2>/dev/null; then
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        "$requirement" -e "$repo[dashboard]"
fi
enabled="$("$venv/bin/python" -W ignore -c \
    "import os, openstack_dashboard.local.enabled as e; \
print(os.path.dirname(e.__file__))")"
cp "$repo"/flavor_exporter/dashboard/enabled/_[0-9]*_capacity_panel.py \
    "$enabled/"
echo "$venv/bin/python"
