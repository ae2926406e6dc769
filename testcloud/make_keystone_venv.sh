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

# Create the virtualenv the test cloud runs Keystone from.
#
# Keystone gets a venv of its own: its pins (Flask, oslo.* versions) need
# not agree with Nova's or flavor-exporter's. Usage:
#
#     make_keystone_venv.sh [VENV_DIR] [PYTHON]
#
# VENV_DIR defaults to .tox/keystone-venv at the top of the repository
# (where launcher.py looks when FLAVOR_EXPORTER_KEYSTONE_PYTHON is unset);
# PYTHON defaults to python3. Re-running it on a ready venv does nothing.

set -eu

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
venv="${1:-$repo/.tox/keystone-venv}"
python="${2:-python3}"
requirement="keystone==30.0.0"

if ! "$venv/bin/python" -W ignore -c "import keystone.server.wsgi" 2>/dev/null; then
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        "$requirement"
    "$venv/bin/python" -W ignore -c "import keystone.server.wsgi"
fi
echo "$venv/bin/python"
