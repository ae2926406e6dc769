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

"""A real Nova + Placement (+ Keystone) test cloud on loopback.

Not part of flavor-exporter's installed package: the functional tests, the
demo and the benchmarks run it from the source tree (README.rst here).

Test side (any interpreter with openstacksdk, fixtures, PyYAML, requests):
``launcher`` (TestCloud, shared_cloud), ``cloud_venv`` (each OpenStack
release's interpreter), ``oracle`` (boot until NoValidHost),
``placement_view``, ``scenario`` (the YAML schema), ``keystone_fixture``,
``process``, ``loopback`` (free ports, memcached), ``demo``.

Cloud side (one release's interpreter, built from ``releases/<release>/``
and started by the launcher): ``server`` (entry point), ``nova_release``
(where the releases differ), ``nova_cloud``, ``driver``, ``webserver``,
``control``, ``keystone_catalog``; and ``keystone_server``, run by
Keystone's own interpreter.
"""
