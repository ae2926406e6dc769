# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

import os
import sys

extensions = [
    'openstackdocstheme',
    'os_api_ref',
    'oslo_config.sphinxext',
    'oslo_config.sphinxconfiggen',
    'oslo_policy.sphinxext',
    'oslo_policy.sphinxpolicygen',
]

# The sample configuration and policy files, generated at each build from
# the same generator files as tox -e genconfig and genpolicy (paths from
# the repository's root, where tox runs sphinx-build), into _static/ for
# configuration/sample-config.rst and sample-policy.rst to show and link.
config_generator_config_file = (
    '../../etc/flavor-exporter/flavor-exporter-config-generator.conf')
sample_config_basename = '_static/flavor-exporter'
policy_generator_config_file = (
    '../../etc/flavor-exporter/flavor-exporter-policy-generator.conf')
sample_policy_basename = '_static/flavor-exporter'

# The API examples (api-ref/samples/) and the API reference's generated
# parts are included by the pages that show them, never built as pages of
# their own.
exclude_patterns = ['api-ref/samples/*', 'api-ref/generated/*']

# The repository's root: tools.api_ref writes the API reference's routes,
# parameters and statuses from the API's own route table and OpenAPI
# document before each build.
sys.path.insert(0, os.path.abspath(os.path.join(
    os.path.dirname(__file__), '..', '..')))


openstackdocs_repo_name = 'openstack/flavor-exporter'
openstackdocs_auto_name = False
project = 'flavor-exporter'
copyright = '2026, The flavor-exporter Authors'
master_doc = 'index'
source_suffix = '.rst'
html_theme = 'openstackdocs'
html_static_path = ['_static']
pygments_style = 'native'


def _generate_api_ref(app):
    from tools import api_ref
    api_ref.generate()


def setup(app):
    app.connect('builder-inited', _generate_api_ref)
