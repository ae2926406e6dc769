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
"""Projects, users and unified limits in the test cloud's Keystone.

What an operator does with ``openstack project create``, ``openstack
registered limit create`` and ``openstack limit create``, through
Keystone's REST API with the admin's token, for the tests that boot as
several projects against Nova's unified limits driver.
"""

import requests

from testcloud import keystone_catalog

TIMEOUT = keystone_catalog.TIMEOUT


class Admin:
    """Keystone's admin, for one test cloud (its ready document)."""

    def __init__(self, cloud):
        self.cloud = cloud
        self.keystone = cloud.keystone
        self.base = self.keystone['url'] + '/v3'
        self.headers = {'X-Auth-Token': keystone_catalog.admin_token(
            self.keystone)}

    def _post(self, path, body):
        resp = requests.post(self.base + path, json=body,
                             headers=self.headers, timeout=TIMEOUT)
        resp.raise_for_status()
        return resp.json()

    def _id(self, path, name):
        resp = requests.get(self.base + path, params={'name': name},
                            headers=self.headers, timeout=TIMEOUT)
        resp.raise_for_status()
        return next(iter(resp.json().values()))[0]['id']

    def project(self, name, password):
        """A new project with a member user of the same name; its id."""
        project_id = self._post('/projects', {'project': {
            'name': name, 'domain_id': 'default'}})['project']['id']
        user_id = self._post('/users', {'user': {
            'name': name, 'password': password, 'domain_id': 'default',
            'default_project_id': project_id}})['user']['id']
        resp = requests.put('%s/projects/%s/users/%s/roles/%s' % (
            self.base, project_id, user_id, self._id('/roles', 'member')),
            headers=self.headers, timeout=TIMEOUT)
        resp.raise_for_status()
        return project_id

    def registered_limits(self, limits):
        """Defaults for every project: {resource name: limit}."""
        self._post('/registered_limits', {'registered_limits': [
            {'service_id': self.cloud.compute_service_id,
             'region_id': self.keystone['region'], 'resource_name': name,
             'default_limit': value} for name, value in limits.items()]})

    def project_limits(self, project_id, limits):
        """One project's own limits: {resource name: limit}."""
        self._post('/limits', {'limits': [
            {'service_id': self.cloud.compute_service_id,
             'region_id': self.keystone['region'], 'project_id': project_id,
             'resource_name': name, 'resource_limit': value}
            for name, value in limits.items()]})

    def member(self, name, password):
        """A Connection as the member user of project name."""
        from openstack import connection

        return connection.Connection(
            auth_type='password', auth={
                'auth_url': self.keystone['url'], 'username': name,
                'password': password, 'project_name': name,
                'user_domain_id': 'default', 'project_domain_id': 'default'},
            identity_api_version='3', region_name=self.keystone['region'])
