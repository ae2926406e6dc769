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

"""The test cloud's interpreter for each OpenStack release it runs.

``releases/<release>/`` holds what that release's cloud is installed from:
``requirements.txt`` (Nova and Placement pinned, and what Nova's functional
fixtures import) and ``upper-constraints.txt``, that release's constraints
copied from openstack/requirements (its first lines name the branch and the
commit). A release installs cleanly only with its own constraints: the
newest oslo libraries drop what older Nova still uses.

:func:`python` builds ``<repo>/.tox/cloud-<release>`` from them the first
time it is asked (about two minutes), and again when either file changes;
parallel test workers wait for one build. The release is
``$FLAVOR_EXPORTER_CLOUD_RELEASE``, else the newest. By hand::

    python -m testcloud.cloud_venv [RELEASE]   # build; print its python
"""

import fcntl
import hashlib
import os
import subprocess
import sys

from testcloud import process

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(HERE)
RELEASES_DIR = os.path.join(HERE, 'releases')
ENV_RELEASE = 'FLAVOR_EXPORTER_CLOUD_RELEASE'
FILES = ('requirements.txt', 'upper-constraints.txt')
#: What the stamp file in a built venv is called; it holds the digest of
#: the files it was built from.
STAMP = 'testcloud-release.sha256'


class UnknownRelease(ValueError):
    """A release with no ``releases/<name>/`` directory."""


def supported():
    """The releases the test cloud can run, oldest first."""
    names = [name for name in os.listdir(RELEASES_DIR)
             if all(os.path.isfile(os.path.join(RELEASES_DIR, name, f))
                    for f in FILES)]
    return sorted(names, key=lambda n: tuple(int(p) for p in n.split('.')))


def newest():
    return supported()[-1]


def selected():
    """The release asked for by the environment, else the newest."""
    release = os.environ.get(ENV_RELEASE) or newest()
    if release not in supported():
        raise UnknownRelease('%s=%s: no such test cloud release (%s)' % (
            ENV_RELEASE, release, ', '.join(supported())))
    return release


def venv_dir(release):
    return os.path.join(REPO_ROOT, '.tox', 'cloud-' + release)


def _digest(release):
    digest = hashlib.sha256(sys.version.encode())
    for name in FILES:
        with open(os.path.join(RELEASES_DIR, release, name), 'rb') as f:
            digest.update(f.read())
    return digest.hexdigest()


def _built(venv, digest):
    try:
        with open(os.path.join(venv, STAMP)) as f:
            return f.read().strip() == digest
    except OSError:
        return False


def _build(release, venv):
    files = [os.path.join(RELEASES_DIR, release, name) for name in FILES]
    # --clear: nothing of a build from other files stays behind.
    # The HOME tests started with: pip's configuration is there.
    env = process.environ()
    subprocess.run([sys.executable, '-m', 'venv', '--clear', venv],
                   check=True, env=env)
    subprocess.run([os.path.join(venv, 'bin', 'python'), '-m', 'pip',
                    'install', '--quiet', '--disable-pip-version-check',
                    '-c', files[1], '-r', files[0]], check=True, env=env)


def built(release=None):
    """Whether python(release) has its interpreter already (no build)."""
    release = release or selected()
    return _built(venv_dir(release), _digest(release))


def python(release=None):
    """The interpreter of ``release`` (default: :func:`selected`)."""
    release = release or selected()
    if release not in supported():
        raise UnknownRelease('no such test cloud release: %s (%s)' % (
            release, ', '.join(supported())))
    venv = venv_dir(release)
    digest = _digest(release)
    os.makedirs(os.path.dirname(venv), exist_ok=True)
    # Parallel test workers must not build the same venv at once.
    with open(venv + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _built(venv, digest):
            _build(release, venv)
            with open(os.path.join(venv, STAMP), 'w') as f:
                f.write(digest + '\n')
    return os.path.join(venv, 'bin', 'python')


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        print(python(argv[0] if argv else None))
    except UnknownRelease as exc:
        sys.exit('testcloud: %s' % exc)
    except subprocess.CalledProcessError as exc:
        sys.exit('testcloud: building the cloud interpreter failed: %s'
                 % exc)


if __name__ == '__main__':
    main()
