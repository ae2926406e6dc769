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
"""The API examples of the documentation, as the demo's cloud answers them.

Starts the demo's cloud (``tox -e demo``'s scenario, the predecessor's
example), serves ``flavor-exporter-all`` against it with the demo's own
configuration (testcloud.demo.write_config), asks every request of
EXAMPLES and writes each answer to doc/source/api-ref/samples/NAME.json
(the user guide includes the same files). What changes from one start of
the cloud to the next (UUIDs Nova makes, times, ages, durations, request
ids) is replaced by stable values first, so that the files only change
when an answer does: tests/functional/test_doc_examples.py asks again
and compares.

    .tox/functional/bin/python -m tools.doc_examples [--check]
"""

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid

import requests

from testcloud import demo
from testcloud import launcher
from testcloud import loopback
from testcloud import scenario as scenario_mod

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
SAMPLES = os.path.join(ROOT, 'doc', 'source', 'api-ref', 'samples')
SCENARIO = 'predecessor'
# A project of the scenario: the private GPU flavor is shared with it.
PROJECT = 'denbi-project'
FLAVOR = 'de.NBI GPU V100 medium'
GPU_TYPE = 'V100'
READY_TIMEOUT = 300

#: The set of servers the examples check (POST /v3/checks): two GPU
#: servers and a CPU one, as a portal asks before a project's cluster.
CHECK = {'project_id': PROJECT,
         'servers': [{'flavor': FLAVOR, 'count': 2},
                     {'flavor': 'de.NBI large', 'count': 1}]}

#: The changes the examples ask about (POST /v3/whatif): one of the GPU
#: hosts drained, its server evacuated as Nova would place it.
WHATIF = {'drain': [{'hosts': ['gpu1'], 'servers': 'evacuate'}]}

#: (file name, method, path, JSON body). A path's {flavor_id} is the id
#: of FLAVOR in the running cloud.
EXAMPLES = [
    ('versions', 'GET', '/', None),
    ('version-v3', 'GET', '/v3/', None),
    ('version-v2', 'GET', '/v2/', None),
    ('seed-flavors-list', 'GET', '/v2/flavors/', None),
    ('legacy-flavors-list', 'GET', '/gpus/flavors/', None),
    ('legacy-flavor-show', 'GET', '/gpus/flavors/{flavor_id}', None),
    ('legacy-flavor-not-found', 'GET', '/gpus/flavors/no-such-flavor', None),
    ('legacy-gpus-list', 'GET', '/gpus/', None),
    ('legacy-gpu-show', 'GET', '/gpus/' + GPU_TYPE, None),
    ('flavors-list', 'GET', '/v3/flavors/', None),
    ('flavors-list-gpu', 'GET', '/v3/flavors/?gpu=true', None),
    ('flavor-show', 'GET', '/v3/flavors/' + FLAVOR, None),
    ('flavor-not-found', 'GET', '/v3/flavors/m1.large', None),
    ('flavors-list-bad-filter', 'GET', '/v3/flavors/?gpus=true', None),
    ('gpus-list', 'GET', '/v3/gpus/', None),
    ('gpu-show', 'GET', '/v3/gpus/' + GPU_TYPE, None),
    ('project-flavors-list', 'GET',
     '/v3/projects/%s/flavors/' % PROJECT, None),
    ('project-flavor-show', 'GET',
     '/v3/projects/%s/flavors/%s' % (PROJECT, FLAVOR), None),
    ('check-request', None, None, CHECK),
    ('check-response', 'POST', '/v3/checks', CHECK),
    ('whatif-request', None, None, WHATIF),
    ('whatif-response', 'POST', '/v3/whatif', WHATIF),
    ('status', 'GET', '/v3/status', None),
    ('clouds-list', 'GET', '/v3/clouds/', None),
    ('healthcheck', 'GET', '/healthcheck', None),
    ('metrics', 'GET', '/metrics', None),
]

_UUID = re.compile(
    r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
_ISO_TIME = re.compile(
    r'\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?')
#: Keys whose values depend on when the example was asked, or on the
#: start of the cloud, not on its capacity: {key: the fixed value}.
_VOLATILE = {
    'age_seconds': 1.0,
    'duration_seconds': 1.0,
    'published_at': 1796576400.0,
    'seconds': 1.0,
    # What identifies a publication: random, or a digest of a document
    # that holds times.
    'generation': '8d13c8bd108145b9b77e2a8c3afb6065',
    'manifest': ['df8e2ba97146e1912c85', 1796576400, 1],
    # pbr's version of the checkout the example was served from.
    'version': '1.0.0',
}
#: Metrics whose samples say when, not how much (/metrics).
_VOLATILE_METRICS = re.compile(
    r'^(flavor_exporter_(data_age_seconds|refresh_duration_seconds)'
    r'\{[^}]*\}) \S+$', re.M)
_FIXED_TIME = '2026-11-29T17:00:00Z'
#: The demo's address: the examples are served on a free port.
DEMO_URL = 'http://127.0.0.1:8780'


def _stable_uuid(kind, name):
    """A UUID that is the same at every start of the cloud."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL,
                          'flavor-exporter-docs:%s:%s' % (kind, name)))


def _same_kind(value, fixed):
    """Whether value is of fixed's kind (a number, a string, a list).

    /v3/'s "version" is a document, the root's a string: only the
    latter is pbr's version.
    """
    if isinstance(value, bool):
        return False
    if isinstance(fixed, (int, float)):
        return isinstance(value, (int, float))
    return isinstance(value, type(fixed))


class Normaliser:
    """Replaces what differs between two starts of the same cloud.

    Flavor ids become a UUID made from the flavor's name (the names are
    the scenario's), times a fixed time of the same format, ages,
    durations and publication ids fixed values (_VOLATILE), the port
    the demo's; any other UUID the n-th of its kind in the order met,
    the same each run since the answers list things in a fixed order.
    """

    def __init__(self, flavors, base):
        self.uuids = {f['id']: _stable_uuid('flavor', f['name'])
                      for f in flavors}
        self.base = base
        self.others = 0

    def _uuid(self, match):
        found = match.group(0)
        if found not in self.uuids:
            self.others += 1
            self.uuids[found] = _stable_uuid('other', self.others)
        return self.uuids[found]

    @staticmethod
    def _time(match):
        # The same format (separator, fraction's digits, zone) at a
        # fixed instant.
        found = match.group(0)
        fraction = re.match(r'\.\d+', found[19:])
        digits = len(fraction.group(0)) - 1 if fraction else 0
        zone = found[19 + (digits + 1 if fraction else 0):]
        return (_FIXED_TIME[:10] + found[10] + _FIXED_TIME[11:19]
                + ('.' + '0' * digits if fraction else '') + zone)

    def text(self, text):
        text = text.replace(self.base, DEMO_URL)
        text = _VOLATILE_METRICS.sub(r'\1 1.0', text)
        return _ISO_TIME.sub(self._time, _UUID.sub(self._uuid, text))

    def value(self, value, key=None):
        if key in _VOLATILE and _same_kind(value, _VOLATILE[key]):
            return _VOLATILE[key]
        if isinstance(value, dict):
            return {k: self.value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, str):
            return self.text(value)
        return value


def ask(base, method, path, body, flavor_id):
    """(status, decoded JSON body or text) of one example request."""
    url = base + path.replace('{flavor_id}', flavor_id)
    response = requests.request(method, url, json=body, timeout=30)
    try:
        document = response.json()
    except ValueError:
        document = response.text
    return response.status_code, document


def collect(base):
    """{file name: normalised JSON text} of every example, asked at base."""
    flavors = requests.get(base + '/v3/flavors/', timeout=30).json()
    [flavor_id] = [f['id'] for f in flavors['flavors']
                   if f['name'] == FLAVOR]
    normaliser = Normaliser(flavors['flavors'], base)
    samples = {}
    for name, method, path, body in EXAMPLES:
        if method is None:
            document = body
        else:
            status, document = ask(base, method, path, body, flavor_id)
            if name.endswith(('not-found', 'bad-filter')) == (status < 400):
                raise SystemExit('doc_examples: %s %s answered %d'
                                 % (method, path, status))
        document = normaliser.value(document)
        if isinstance(document, str):
            # Text answers (/healthcheck, /metrics) as they are.
            samples[name + '.txt'] = document.rstrip('\n') + '\n'
        else:
            samples[name + '.json'] = json.dumps(
                document, indent=2, sort_keys=True) + '\n'
    return samples


def serve(cloud, workdir):
    """Start flavor-exporter-all as the demo does; (process, base URL)."""
    port = loopback.free_port()
    base = 'http://127.0.0.1:%d' % port
    config = os.path.join(workdir, 'flavor-exporter.conf')
    # The demo's configuration, but for the refresh interval: one refresh
    # only, so that /v3/status says the same at every run.
    demo.write_config(config, cloud, scenario_mod.load(SCENARIO), port,
                      refresh_interval=3600)
    clouds_yaml = os.path.join(workdir, 'clouds.yaml')
    demo.write_clouds_yaml(clouds_yaml, cloud, base)
    env = dict(os.environ, OS_CLIENT_CONFIG_FILE=clouds_yaml,
               OS_CLOUD=cloud.cloud_name)
    log = open(os.path.join(workdir, 'flavor-exporter.log'), 'w')
    process = subprocess.Popen(
        [sys.executable, '-m', 'flavor_exporter.cmd.all',
         '--config-file', config], env=env, stdout=log,
        stderr=subprocess.STDOUT)
    log.close()
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit('flavor-exporter-all exited with %d'
                             % process.returncode)
        try:
            if requests.get(base + '/v3/flavors/',
                            timeout=2).status_code == 200:
                return process, base
        except requests.ConnectionError:
            pass
        time.sleep(0.5)
    process.terminate()
    raise SystemExit('no data from %s after %ds' % (base, READY_TIMEOUT))


def samples_of(cloud, workdir):
    """Every example's normalised text, served against a started cloud."""
    process, base = serve(cloud, workdir)
    try:
        return collect(base)
    finally:
        process.terminate()
        process.wait(timeout=30)


def committed():
    """{file name: text} of the committed samples."""
    found = {}
    for name in sorted(os.listdir(SAMPLES)):
        if name.endswith(('.json', '.txt')):
            with open(os.path.join(SAMPLES, name)) as sample:
                found[name] = sample.read()
    return found


def differences(samples, files):
    """Unified diffs between asked and committed samples, '' when equal."""
    lines = []
    for name in sorted(set(samples) | set(files)):
        lines += difflib.unified_diff(
            files.get(name, '').splitlines(True),
            samples.get(name, '').splitlines(True),
            'committed/' + name, 'demo/' + name)
    return ''.join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--check', action='store_true',
                        help='compare with the committed samples instead '
                        'of writing them; exit 1 when they differ')
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix='flavor-exporter-docs-') as tmp:
        cloud = launcher.TestCloud(SCENARIO, rootdir=tmp)
        cloud.setUp()
        try:
            samples = samples_of(cloud, tmp)
        finally:
            cloud.cleanUp()
    if args.check:
        diff = differences(samples, committed())
        sys.stdout.write(diff)
        return 1 if diff else 0
    os.makedirs(SAMPLES, exist_ok=True)
    for name in set(committed()) - set(samples):
        os.unlink(os.path.join(SAMPLES, name))
    for name, text in samples.items():
        with open(os.path.join(SAMPLES, name), 'w') as sample:
            sample.write(text)
    print('wrote %d samples to %s' % (len(samples), SAMPLES))
    return 0


if __name__ == '__main__':
    sys.exit(main())
