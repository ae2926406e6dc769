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

"""The Horizon plugin in a real browser, against the real cloud and API.

One stack for the class: the gpu_types test cloud (GPU types in two zones,
devices stranded by memory, vCPUs and a disabled host) with Keystone and a
message bus; flavor-exporter-worker (hearing Nova's notifications) and
flavor-exporter-api behind keystonemiddleware; the API registered in
Keystone's catalog as "capacity" (behind a loopback proxy, through which
a test makes the API answer 503, 429 or 403); Horizon 27.0.0 (2026.2, the
cloud's release) from PyPI with the plugin, served by Django's server with
sessions in memcached; Debian's headless chromium driven by selenium.

Users log in through Horizon's login form. Every figure a page shows is
compared with what the API answers the same user's token, and each page
is saved as a screenshot in the artifacts directory:
$OS_TEST_ARTIFACTS/horizon, else .tox/functional/artifacts/horizon.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time

import fixtures
import requests
from selenium.common import exceptions as sel_exc
from selenium import webdriver
from selenium.webdriver.chrome import service as chrome_service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select
from selenium.webdriver.support.ui import WebDriverWait
import testtools

from flavor_exporter.tests import base
from flavor_exporter.tests.functional import fixtures as fe_fixtures
from flavor_exporter.tests.functional import test_keystone_auth as ka
from flavor_exporter.tests.functional import test_osc_keystone
from testcloud import faultproxy
from testcloud import horizon
from testcloud import launcher
from testcloud import loopback
from testcloud import oracle
from testcloud import scenario as scenario_mod

SCENARIO = 'gpu_types'
#: A GPU flavor no host can take: Nova turns its boots away (the demand).
HUGE = 'gpu.v100.huge'
TURNED_AWAY = 2
#: A flavor a server of which visibly takes room (2 of 5 left).
ROOM_FLAVOR = 'cpu.ram'
#: Seconds between the panels' own refreshes of their figures.
REFRESH = 3
#: The member's Nova quota: cores limits some flavors before room does.
MEMBER_QUOTA = {'instances': 10, 'cores': 20, 'ram': 200000}
WAIT = 60
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
CHROMIUM = '/usr/bin/chromium'
CHROMEDRIVER = '/usr/bin/chromedriver'


# window.fetch answering only while window.capacityHold is false (hold()).
_HOLD_SCRIPT = """
if (!window.capacityFetch) {
  var fetched = window.capacityFetch = window.fetch;
  var released = function () {
    return new Promise(function (resolve) {
      (function wait() {
        if (window.capacityHold) { window.setTimeout(wait, 50); }
        else { resolve(); }
      })();
    });
  };
  window.fetch = function (url, options) {
    return fetched(url, options).then(function (response) {
      return released().then(function () { return response; });
    });
  };
}
window.capacityHold = arguments[0];
"""


def artifacts_dir():
    """Where the screenshots go (made if needed)."""
    # Not under .stestr: the unit tests' repository, made by their run
    # beside this one (tox p), must not find the folder there first.
    root = os.environ.get('OS_TEST_ARTIFACTS') or os.path.join(
        REPO, '.tox', 'functional', 'artifacts')
    path = os.path.join(root, 'horizon')
    os.makedirs(path, exist_ok=True)
    return path


def browser():
    """Debian's chromium, headless, through Debian's chromedriver."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ('--headless=new', '--no-sandbox', '--disable-gpu',
                     '--disable-dev-shm-usage', '--window-size=1400,1800',
                     '--lang=en-US'):
        options.add_argument(argument)
    driver = webdriver.Chrome(
        options=options,
        service=chrome_service.Service(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(120)
    return driver


def config_lines(spec, cloud):
    """The groups of nova.conf a deployer mirrors for spec's cloud."""
    lines = []
    for group, options in fe_fixtures.mirrored_options(spec).items():
        lines.append('[%s]' % group)
        for name, value in options.items():
            if isinstance(value, bool):
                value = str(value).lower()
            lines.append('%s = %s' % (name, value))
    return lines


class Browser:
    """A logged-in user's pages: horizon_url, users {who: (name, pw)}."""

    def login(self, who, page):
        """Log in through Horizon's form as who (admin or member).

        Then on to page: Horizon's own start page (the project overview)
        needs a Neutron the test cloud does not have.
        """
        driver = self.driver
        login = self.horizon_url + 'auth/login/?next=/' + page
        # Cookies are deleted for the page's site: be on Horizon's.
        driver.get(login)
        driver.delete_all_cookies()
        driver.get(login)
        user, password = self.users[who]
        driver.find_element(By.ID, 'id_username').send_keys(user)
        driver.find_element(By.ID, 'id_password').send_keys(password)
        driver.find_element(By.ID, 'loginBtn').click()
        WebDriverWait(driver, WAIT).until(
            lambda d: '/auth/login' not in d.current_url)

    def open(self, path):
        """Open a page of Horizon; fails on an error page."""
        self.driver.get(self.horizon_url + path)
        WebDriverWait(self.driver, WAIT).until(
            ec.presence_of_element_located((By.ID, 'capacity-figures')))
        self.assertNotIn('Something went wrong', self.driver.page_source)

    def figures(self):
        return self.driver.find_element(By.ID, 'capacity-figures')

    def hold(self, held=True):
        """Hold the page's refreshed figures back while it is read.

        The figures are replaced every REFRESH seconds: reading a page
        takes longer than that on a loaded machine, and elements read
        before a refresh are stale after it. Held, a refresh's answer
        waits (in the page's fetch) until released, then lands as ever.
        """
        self.driver.execute_script(_HOLD_SCRIPT, held)

    def read(self, what):
        """what(), the page held; again if a refresh beat the hold.

        A refresh whose fetch was under way before the hold lands anyway
        and makes the elements read before it stale.
        """
        self.hold()
        # what() returns a tuple: true, so until() hands it back.
        return WebDriverWait(self.driver, WAIT, ignored_exceptions=(
            sel_exc.StaleElementReferenceException,)).until(
            lambda driver: what())

    def rows(self, table_id, key):
        """{data-key value: row element} of a table on the page."""
        table = self.driver.find_element(By.ID, table_id)
        return {row.get_attribute('data-' + key): row for row in
                table.find_elements(By.CSS_SELECTOR,
                                    'tbody tr[data-%s]' % key)}

    @staticmethod
    def field(element, name):
        return element.find_element(
            By.CSS_SELECTOR, '[data-field="%s"]' % name).text.strip()

    def zones(self, row, fields):
        """{zone: (field texts)} of a row's per-zone figures."""
        return {zone.get_attribute('data-zone'): tuple(
            self.field(zone, f) for f in fields)
            for zone in row.find_elements(By.CSS_SELECTOR,
                                          '.capacity-zone')}

    def messages(self):
        """The texts of Horizon's messages and the figures' alerts."""
        found = self.driver.find_elements(
            By.CSS_SELECTOR, '.messages .alert, .capacity-problem')
        return [element.get_attribute('textContent').strip()
                for element in found]

    def assertProjectPage(self, document, gpus):
        """Project > Compute > Capacity shows these API answers."""
        self.hold()
        try:
            self._assert_project_page(document, gpus)
        finally:
            self.hold(False)

    def _assert_project_page(self, document, gpus):
        rows = self.rows('capacity-project-flavors', 'flavor')
        # GPU flavors first, as the API lists them otherwise.
        expected = sorted(document['flavors'], key=lambda f: (
            f['gpu'] is None, (f['gpu'] or {}).get('type', ''),
            f['name'].casefold()))
        self.assertEqual([f['id'] for f in expected], list(rows))
        for flavor in expected:
            row = rows[flavor['id']]
            quota = flavor['quota']
            headroom = ('unlimited' if quota['headroom'] is None
                        else str(quota['headroom']))
            self.assertEqual(
                (flavor['name'], str(flavor['startable']), headroom,
                 str(flavor['available']), str(flavor['total'])),
                (self.field(row, 'name'), self.field(row, 'startable'),
                 self.field(row, 'headroom'), self.field(row, 'available'),
                 self.field(row, 'total')), flavor['name'])
            self.assertIn(flavor['startable_limited_by'] or '-',
                          self.field(row, 'startable_limited_by'))
            if not flavor['startable']:
                self.assertIn('none can start now',
                              self.field(row, 'startable_limited_by'))
            self.assertEqual(
                {zone: (str(z['startable']), str(z['available']),
                        str(z['total']))
                 for zone, z in flavor['availability_zones'].items()},
                self.zones(row, ('zone_startable', 'zone_available',
                                 'zone_total')))
        gpu_rows = self.rows('capacity-project-gpus', 'gpu')
        self.assertEqual([g['type'] for g in gpus['gpus']], list(gpu_rows))
        for gpu in gpus['gpus']:
            row = gpu_rows[gpu['type']]
            self.assertEqual((str(gpu['free']), str(gpu['total'])),
                             (self.field(row, 'free'),
                              self.field(row, 'total')))
            self.assertEqual(
                {zone: (str(z['free']),) for zone, z
                 in gpu['availability_zones'].items()},
                self.zones(row, ('zone_free',)))
        figures = self.figures()
        self.assertEqual(document['timestamp'],
                         self.field(figures, 'timestamp'))
        self.assertEqual(document['quota_timestamp'],
                         self.field(figures, 'quota_timestamp'))
        self.assertEqual(
            document['stale'] or gpus['stale'],
            bool(figures.find_elements(By.CSS_SELECTOR, '.capacity-stale')))


class TestHorizonPlugin(Browser, base.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.resources = fixtures.Fixture()
        cls.resources.setUp()
        try:
            cls._start(cls.resources)
        except BaseException:
            cls.resources.cleanUp()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.resources.cleanUp()
        super().tearDownClass()

    @classmethod
    def _start(cls, resources):
        started = time.monotonic()
        cls.workdir = workdir = resources.useFixture(
            fixtures.TempDir()).path
        rabbit = resources.useFixture(loopback.RabbitMQFixture())
        cls.cloud = resources.useFixture(launcher.TestCloud(
            SCENARIO, keystone=True, notification_url=rabbit.url))
        cls.keystone = keystone = cls.cloud.keystone
        cls.spec = spec = scenario_mod.load(SCENARIO)
        admin = cls.cloud.connection()
        _token, member = ka.token_of(keystone, 'member')
        cls.member_project = member.project_id
        oracle.set_quota(admin, member.project_id, **MEMBER_QUOTA)
        huge = admin.compute.create_flavor(name=HUGE, vcpus=4, ram=131072,
                                           disk=20)
        admin.compute.create_flavor_extra_specs(
            huge, {'pci_passthrough:alias': 'V100:1'})
        cls.memcached = memcached = resources.useFixture(
            loopback.MemcachedFixture())
        cls.port = loopback.free_port()
        who = ('admin_user', 'admin_password', 'admin_project')
        identity = ka.password_lines(keystone['url'] + '/v3',
                                     *(keystone[k] for k in who))
        config = ka.write_config(os.path.join(workdir, 'api.conf'), {
            'DEFAULT': ['auth_strategy = keystone'],
            'api': ['host_ip = 127.0.0.1', 'port = %d' % cls.port,
                    'workers = 1'],
            'worker': ['refresh_interval = 10'],
            'notifications': ['settle = 0.5'],
            'document_cache': ['memcache_servers = %s'
                               % memcached.servers[0]],
            'openstack': identity + [
                'notification_transport_url = %s' % rabbit.url,
                'cell_database_connections = %s'
                % cls.cloud.cell_database],
            'pci': ['alias = %s' % json.dumps(alias)
                    for alias in spec.pci_aliases],
            'keystone_authtoken': identity + [
                'www_authenticate_uri = %s' % keystone['url']],
        })
        with open(config, 'a') as conf:
            conf.write('\n'.join(config_lines(spec, cls.cloud)) + '\n')
        env = ka.clean_env(workdir)
        for name in ('worker', 'api'):
            log = open(os.path.join(workdir, name + '.log'), 'w')
            resources.addCleanup(log.close)
            process = subprocess.Popen(
                fe_fixtures.console_script('flavor-exporter-' + name)
                + ['--config-file', config], env=env, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True)
            resources.addCleanup(fe_fixtures.stop_process_group, process)
        loopback.wait_for_port(cls.port, timeout=WAIT, process=process)
        cls.api_url = 'http://127.0.0.1:%d' % cls.port
        cls.tokens = {who: ka.token_of(keystone, who)[0]
                      for who in ('admin', 'member')}
        cls._until(lambda: cls.api('/v3/flavors/', 'admin'), 120)
        # Nova turns the huge flavor away; the worker hears it.
        for _ in range(TURNED_AWAY):
            server = oracle.boot(admin, HUGE)
            if oracle.NO_VALID_HOST not in str(server.get('fault')):
                raise AssertionError('%s started: %s' % (HUGE, server))
            oracle.delete_servers(admin, [server])
        huge_id = oracle.flavor_id(admin, HUGE)
        cls._until(lambda: ((cls.api('/v3/status', 'admin')['demand']
                             or {}).get('flavors', {}).get(huge_id, {})
                            .get('turned_away') == TURNED_AWAY), 120)
        # The member's numbers: the worker computes them on first ask.
        cls._until(lambda: cls.api('/v3/projects/%s/flavors/'
                                   % cls.member_project, 'member'), 120)
        cls.proxy = resources.useFixture(faultproxy.FaultProxy(cls.api_url))
        resources.addCleanup(test_osc_keystone.register_capacity(
            keystone, cls.proxy.url))
        cls.horizon = resources.useFixture(horizon.HorizonServer(
            keystone['url'], workdir, refresh=REFRESH,
            memcached=memcached.servers[0]))
        cls.horizon_url = cls.horizon.url
        cls.users = {who: (keystone[who + '_user'],
                           keystone[who + '_password'])
                     for who in ('admin', 'member')}
        cls.driver = browser()
        resources.addCleanup(cls.driver.quit)
        cls.artifacts = artifacts_dir()
        cls.start_seconds = time.monotonic() - started

    @classmethod
    def api(cls, path, who, method='GET', body=None):
        """The API's JSON answer with who's token (None unless 200)."""
        response = requests.request(
            method, cls.api_url + path, json=body, timeout=ka.TIMEOUT,
            headers={'X-Auth-Token': cls.tokens[who]})
        if response.status_code != 200:
            return None
        return response.json()

    @staticmethod
    def _until(condition, timeout):
        deadline = time.monotonic() + timeout
        while True:
            result = condition()
            if result:
                return result
            if time.monotonic() > deadline:
                raise AssertionError('not within %d s: %s'
                                     % (timeout, condition))
            time.sleep(0.5)

    def setUp(self):
        super().setUp()
        self.addCleanup(self.proxy.mend)
        self.addOnException(self._attach_logs)

    def _attach_logs(self, exc_info):
        for name in ('horizon.log', 'api.log', 'worker.log'):
            path = os.path.join(self.workdir, name)
            if os.path.exists(path):
                with open(path, errors='replace') as log:
                    self.addDetail(name, testtools.content.text_content(
                        log.read()[-20000:]))
        try:
            self.addDetail('page', testtools.content.text_content(
                self.driver.page_source[-20000:]))
        except sel_exc.WebDriverException:
            pass

    def screenshot(self, name):
        path = os.path.join(self.artifacts, name + '.png')
        self.driver.save_screenshot(path)
        return path

    # -- Project > Compute > Capacity ---------------------------------------

    def project_document(self):
        return self.api('/v3/projects/%s/flavors/' % self.member_project,
                        'member')

    def test_member_sees_what_the_project_can_start(self):
        self.login('member', 'project/capacity/')
        self.open('project/capacity/')
        document = self.project_document()
        gpus = self.api('/v3/gpus/', 'member')
        self.assertProjectPage(document, gpus)
        # Some flavors are limited by the quota, others by room: the
        # member's quota was chosen so.
        limits = {f['startable_limited_by'] for f in document['flavors']}
        self.assertLessEqual({'quota', 'capacity'}, limits, limits)
        self.screenshot('project-capacity')
        # No host name of the cloud on a member's page.
        text = self.driver.find_element(By.TAG_NAME, 'body').text
        for host in self.cloud.hosts:
            self.assertNotIn(host, text)
        self.assertEqual([], self.messages())
        # The Admin panel is not a member's: Horizon does not serve it.
        self.driver.get(self.horizon_url + 'admin/capacity/')
        self.assertNotIn('capacity-figures', self.driver.page_source)

    def test_figures_refresh_by_themselves(self):
        self.login('member', 'project/capacity/')
        self.open('project/capacity/')
        driver = self.driver
        # A mark that a reload would lose.
        driver.execute_script('window.capacityMark = 1;')
        fragment = driver.find_element(By.CSS_SELECTOR,
                                       '#capacity-figures .capacity-fragment')
        first = fragment.get_attribute('data-rendered-at')
        WebDriverWait(driver, 4 * REFRESH + WAIT, ignored_exceptions=(
            sel_exc.StaleElementReferenceException,)).until(
            lambda d: d.find_element(
                By.CSS_SELECTOR, '#capacity-figures .capacity-fragment')
            .get_attribute('data-rendered-at') > first)
        self.assertEqual(1, driver.execute_script(
            'return window.capacityMark;'))
        # The refreshed figures are the API's of now.
        self.assertProjectPage(self.project_document(),
                               self.api('/v3/gpus/', 'member'))

        # A server started elsewhere takes room: the open page shows the
        # API's new figure by itself.
        def available():
            flavors = {f['name']: f
                       for f in self.project_document()['flavors']}
            return flavors[ROOM_FLAVOR]['id'], flavors[ROOM_FLAVOR][
                'available']

        def shown():
            row = self.rows('capacity-project-flavors', 'flavor')[flavor_id]
            return self.field(row, 'available')
        flavor_id, before = available()
        admin = self.cloud.connection()
        server = oracle.boot(admin, ROOM_FLAVOR)
        try:
            self.assertEqual('ACTIVE', server['status'], server)
            self._until(lambda: available()[1] == before - 1, WAIT)
            WebDriverWait(driver, 4 * REFRESH + WAIT, ignored_exceptions=(
                sel_exc.StaleElementReferenceException,)).until(
                lambda d: shown() == str(before - 1))
            self.assertEqual(1, driver.execute_script(
                'return window.capacityMark;'))
        finally:
            oracle.delete_servers(admin, [server])
            # As the other tests found it.
            self._until(lambda: available()[1] == before, WAIT)
        WebDriverWait(driver, 4 * REFRESH + WAIT, ignored_exceptions=(
            sel_exc.StaleElementReferenceException,)).until(
            lambda d: shown() == str(before))

    def test_check_form_answers_as_the_api(self):
        self.login('member', 'project/capacity/')
        self.open('project/capacity/')
        # One more than can start of each flavor the room limits: the
        # API's answer says what stops it, and for some what else would
        # start; the form asks for the first with alternatives.
        asked = None
        for flavor in self.project_document()['flavors']:
            if (flavor['startable_limited_by'] == 'capacity'
                    and flavor['startable']):
                body = {'servers': [{'flavor': flavor['id'],
                                     'count': flavor['startable'] + 1}]}
                check = self.api('/v3/checks', 'member', method='POST',
                                 body=body)['check']
                if check['requests'][0]['alternatives']:
                    asked = flavor
                    break
        self.assertIsNotNone(asked, 'no flavor with alternatives')
        gpu, count = asked, asked['startable'] + 1
        Select(self.driver.find_element(By.ID, 'id_flavor_0')) \
            .select_by_value(gpu['id'])
        field = self.driver.find_element(By.ID, 'id_count_0')
        field.clear()
        field.send_keys(str(count))
        self.driver.find_element(By.ID, 'capacity-check-submit').click()
        WebDriverWait(self.driver, WAIT).until(
            ec.presence_of_element_located((By.ID,
                                            'capacity-check-answer')))
        expected = self.api('/v3/checks', 'member', method='POST', body={
            'servers': [{'flavor': gpu['id'], 'count': count}]})['check']
        answer = self.driver.find_element(By.ID, 'capacity-check-answer')
        self.assertEqual('false', answer.get_attribute('data-fits'))
        self.assertFalse(expected['fits'])
        rows = answer.find_elements(By.CSS_SELECTOR,
                                    '.capacity-check-request')
        self.assertEqual(len(expected['requests']), len(rows))
        for request, row in zip(expected['requests'], rows):
            self.assertEqual(
                (request['flavor']['name'], str(request['count']),
                 str(request['started'])),
                (self.field(row, 'flavor'), self.field(row, 'count'),
                 self.field(row, 'started')))
            stopped = self.field(row, 'stopped_by')
            self.assertIn(request['stopped_by']['limit'], stopped)
            self.assertIn(request['stopped_by']['reason'], stopped)
            shown = [(a.get_attribute('data-name'),
                      a.get_attribute('data-would-start'))
                     for a in row.find_elements(
                         By.CSS_SELECTOR, '.capacity-alternative')]
            self.assertEqual([(a['name'], str(a['would_start']))
                              for a in request['alternatives']], shown)
        self.screenshot('project-capacity-check')

    def test_api_errors_are_messages(self):
        self.login('member', 'project/capacity/')
        path = '/v3/projects/%s/flavors/' % self.member_project
        for status, text in ((503, 'being computed'),
                             (429, 'Too many projects'),
                             (403, 'not allowed')):
            self.proxy.break_path(path, status=status, body=json.dumps(
                {'error': {'code': status, 'message': text}}).encode())
            self.driver.get(self.horizon_url + 'project/capacity/')
            WebDriverWait(self.driver, WAIT).until(
                ec.presence_of_element_located((By.ID, 'capacity-figures')))
            shown, gpus = self.read(lambda: (
                ' '.join(self.messages()),
                len(self.rows('capacity-project-gpus', 'gpu'))))
            self.assertIn('HTTP %d' % status, shown)
            self.assertIn(text, shown)
            # The GPU types still came: one failed call is one message.
            self.assertTrue(gpus)
            if status == 503:
                self.screenshot('project-capacity-503')
        self.proxy.mend()
        # Figures the API says are stale are shown, with the notice.
        self.proxy.rewrite_path(path, lambda answer: dict(answer,
                                                          stale=True))
        self.open('project/capacity/')
        notices, flavors = self.read(lambda: (
            [notice.text for notice in self.figures().find_elements(
                By.CSS_SELECTOR, '.capacity-stale')],
            len(self.rows('capacity-project-flavors', 'flavor'))))
        self.assertEqual(1, len(notices))
        self.assertIn('stale', notices[0])
        self.assertTrue(flavors)
        self.screenshot('project-capacity-stale')

    # -- Admin > Compute > Capacity -----------------------------------------

    def test_admin_sees_every_flavor_gpu_demand_and_worker(self):
        self.login('admin', 'admin/capacity/')
        self.open('admin/capacity/')
        self.hold()  # the whole test reads the page
        flavors = self.api('/v3/flavors/', 'admin')
        gpus = self.api('/v3/gpus/', 'admin')
        status = self.api('/v3/status', 'admin')
        rows = self.rows('capacity-admin-flavors', 'flavor')
        self.assertEqual({f['id'] for f in flavors['flavors']}, set(rows))
        for flavor in flavors['flavors']:
            row = rows[flavor['id']]
            self.assertEqual(
                (flavor['name'], str(flavor['available']),
                 str(flavor['total'])),
                (self.field(row, 'name'), self.field(row, 'available'),
                 self.field(row, 'total')))
            self.assertEqual(
                {zone: (str(z['available']), str(z['total']))
                 for zone, z in flavor['availability_zones'].items()},
                self.zones(row, ('zone_available', 'zone_total')))
        gpu_rows = self.rows('capacity-admin-gpus', 'gpu')
        self.assertEqual([g['type'] for g in gpus['gpus']], list(gpu_rows))
        stranded_somewhere = False
        for gpu in gpus['gpus']:
            row = gpu_rows[gpu['type']]
            self.assertEqual(
                tuple(str(gpu[k]) for k in ('total', 'used', 'free',
                                            'stranded')),
                tuple(self.field(row, k) for k in ('total', 'used', 'free',
                                                   'stranded')))
            shown = {e.get_attribute('data-reason'):
                     self.field(e, 'stranded_count')
                     for e in row.find_elements(
                         By.CSS_SELECTOR, '.capacity-stranded-by')}
            self.assertEqual({reason: str(count) for reason, count
                              in (gpu['stranded_by'] or {}).items()}, shown)
            stranded_somewhere |= bool(gpu['stranded'])
            # The chart: one bar per type, segments as wide as the counts.
            bar = self.driver.find_element(
                By.CSS_SELECTOR, '#capacity-gpu-chart [data-gpu="%s"]'
                % gpu['type'])
            widths = [float(span.value_of_css_property('width')[:-2])
                      for span in bar.find_elements(
                          By.CSS_SELECTOR, '.capacity-chart-bar span')]
            if gpu['total']:
                whole = sum(widths)
                self.assertAlmostEqual(gpu['used'] / gpu['total'],
                                       widths[0] / whole, delta=0.02)
                self.assertAlmostEqual(gpu['stranded'] / gpu['total'],
                                       widths[2] / whole, delta=0.02)
        # The scenario strands devices: the chart has them.
        self.assertTrue(stranded_somewhere)
        demand = self.rows('capacity-demand', 'flavor')
        self.assertEqual(
            {flavor_id: (entry['name'], str(entry['turned_away']))
             for flavor_id, entry in status['demand']['flavors'].items()},
            {flavor_id: (self.field(row, 'name'),
                         self.field(row, 'turned_away'))
             for flavor_id, row in demand.items()})
        self.assertIn(HUGE, [self.field(r, 'name') for r in demand.values()])
        worker = self.driver.find_element(By.ID, 'capacity-status')
        refresh = status['refresh']
        self.assertEqual(
            (status['current']['source'],
             str(refresh.get('consecutive_failures') or 0)),
            (self.field(worker, 'source'),
             self.field(worker, 'consecutive_failures')))
        # The worker refreshes every 10 s: the page's reading is the API's
        # of then, or the one before.
        self.assertLessEqual(self.field(worker, 'last_success_at'),
                             str(refresh['last_success_at']))
        self.assertEqual(str(flavors['unreadable_host_count']),
                         self.field(worker, 'unreadable_host_count'))
        self.assertEqual([], self.messages())
        self.screenshot('admin-capacity')


class TestDemoServesHorizon(Browser, base.TestCase):
    """``tox -e demo -- --horizon``: Horizon with the panels, as printed.

    The demo's own cloud (with Keystone), API and Horizon; the member
    printed logs in with the password printed and sees what the API
    answers the member's token.
    """

    def setUp(self):
        super().setUp()
        tmp = self.useFixture(fixtures.TempDir()).path
        self.port = loopback.free_port()
        horizon_port = loopback.free_port()
        self.output = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'demo.out')
        with open(self.output, 'w') as out:
            self.demo = subprocess.Popen(
                [sys.executable, '-m', 'testcloud.demo', '--port',
                 str(self.port), '--horizon', '--horizon-port',
                 str(horizon_port), '--log-file',
                 os.path.join(tmp, 'demo.log')],
                cwd=REPO, env=dict(os.environ, TMPDIR=tmp), stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True)
        self.addCleanup(fe_fixtures.stop_process_group, self.demo)
        self.horizon_url = 'http://127.0.0.1:%d/' % horizon_port

    def printed(self):
        with open(self.output) as out:
            return out.read()

    def test_member_logs_in_with_what_is_printed(self):
        deadline = time.monotonic() + horizon.START_TIMEOUT + 300
        while 'Ctrl-C stops.' not in self.printed():
            self.assertIsNone(self.demo.poll(), self.printed())
            self.assertLess(time.monotonic(), deadline, self.printed())
            time.sleep(0.5)
        text = self.printed()
        self.assertIn('Horizon    %s' % self.horizon_url, text)
        self.users = {who: re.search(r'\n  %s +(\S+) / (\S+)' % who,
                                     text).groups()
                      for who in ('admin', 'member')}
        keystone = {'url': re.search(r'\n  keystone +(\S+)/v3\n',
                                     text).group(1),
                    'member_user': self.users['member'][0],
                    'member_password': self.users['member'][1],
                    'member_project': re.search(r'\(project (\S+)\)',
                                                text).group(1)}
        token, access = ka.token_of(keystone, 'member')
        api = 'http://127.0.0.1:%d' % self.port

        def answer(path):
            response = requests.get(api + path, timeout=ka.TIMEOUT,
                                    headers={'X-Auth-Token': token})
            return response.json() if response.status_code == 200 else None
        path = '/v3/projects/%s/flavors/' % access.project_id
        deadline = time.monotonic() + WAIT
        while not answer(path) and time.monotonic() < deadline:
            time.sleep(0.5)
        self.driver = browser()
        self.addCleanup(self.driver.quit)
        self.login('member', 'project/capacity/')
        self.open('project/capacity/')
        self.assertProjectPage(answer(path), answer('/v3/gpus/'))
        self.assertEqual([], self.messages())
        self.driver.save_screenshot(os.path.join(artifacts_dir(),
                                                 'demo-project-capacity.png'))
        self.demo.send_signal(signal.SIGINT)
        self.assertEqual(0, self.demo.wait(60), self.printed())
