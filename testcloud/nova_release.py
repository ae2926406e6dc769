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

"""Where the Nova releases the test cloud runs differ, and nowhere else.

The cloud is built from Nova's functional-test fixtures (``nova.test``,
``nova.tests.fixtures``, ``nova.tests.functional``), which are not a stable
API: what works on Nova 34 (2026.2) may be missing or spelled otherwise on
Nova 29 (2024.1). Every such difference is one function here; the rest of
the cloud calls these and stays release-agnostic. Where the installed Nova
can be asked (an attribute, a signature), it is asked; only what must be
decided before Nova is imported goes by its version number.

Import this module before Nova: :func:`choose_concurrency` must run first.
"""

import contextlib
import importlib.metadata
import itertools
import os

NOVA_MAJOR = int(importlib.metadata.version('nova').split('.')[0])


def choose_concurrency():
    """Run Nova with native threads where it can, else under eventlet.

    Nova 32 (2025.2) and later decide in ``monkey_patch.patch()`` and run
    on native threads when ``OS_NOVA_DISABLE_EVENTLET_PATCHING`` is set;
    threads keep the loopback servers and Nova's services out of each
    other's way. Nova 29 only works under eventlet (its resource tracker
    deep-copies provider trees holding locks, which real locks refuse) and
    patches when ``nova.monkey_patch`` is imported unless that variable is
    set; the loopback servers then run as green threads, as Nova's own
    functional tests do. Either way the decision is made before anything
    imports socketserver, futurist or oslo.messaging.
    """
    if NOVA_MAJOR < 32:
        os.environ.pop('OS_NOVA_DISABLE_EVENTLET_PATCHING', None)
        import nova.monkey_patch  # noqa: F401 (patches on import)
        return
    os.environ['OS_NOVA_DISABLE_EVENTLET_PATCHING'] = '1'
    from nova import monkey_patch
    monkey_patch.patch()


def file_backed_cells(directory):
    """Give the cells' databases SQLite files in directory on Nova 29.

    Nova 32 and later already keep them in files; Nova 29's fixtures keep
    them in memory, where nothing outside the cloud's process can read
    them. flavor-exporter reads a real cloud's cell databases for what no
    API shows (NUMA cells, the compute nodes' stats). Returns
    a context manager for the cloud's set-up, where the fixtures make the
    databases.
    """
    from unittest import mock

    from nova.db.main import api as main_db_api
    from nova.tests import fixtures as nova_fixtures

    if NOVA_MAJOR >= 32:
        return contextlib.nullcontext()
    create = main_db_api.create_context_manager
    cells = nova_fixtures.CellDatabases
    add, cache_schema = cells.add_cell_database, cells._cache_schema
    made = itertools.count()

    def file_backed(connection=None):
        if connection is None:
            connection = 'sqlite:///%s' % os.path.join(
                directory, 'cell%d.sqlite' % next(made))
        return create(connection=connection)

    def add_file_backed(fixture, connection_str, default=False):
        # Only while the fixture makes a cell's database: once set up it
        # patches create_context_manager itself.
        with mock.patch.object(main_db_api, 'create_context_manager',
                               file_backed):
            add(fixture, connection_str, default=default)

    def schema_then_empty(fixture, connection_str):
        # The schema is made by migrating the first cell's database and
        # then written into it again: in memory the first copy goes with
        # the connection, a file must be emptied by hand.
        cache_schema(fixture, connection_str)
        engine = fixture._ctxt_mgrs[connection_str].writer.get_engine()
        engine.dispose()
        os.truncate(engine.url.database, 0)

    # The same pool as on Nova 32: a file would get NullPool, one
    # connection per transaction.
    pool_database_connections(force=True)
    patches = contextlib.ExitStack()
    patches.enter_context(mock.patch.object(cells, 'add_cell_database',
                                            add_file_backed))
    patches.enter_context(mock.patch.object(cells, '_cache_schema',
                                            schema_then_empty))
    return patches


def pool_database_connections(force=False):
    """Keep the cloud's SQLite connections open between transactions.

    Nova's fixtures give each database of a native-threads Nova (32 and
    later) a SQLite file in WAL mode, and oslo.db opens such a file with
    NullPool: every transaction opens a connection, registers its
    functions and closes it again. That was about a third of the cloud's
    CPU while the oracle boots, and the scheduler's reads of every host
    multiply it, so a boot took 2.5 times as long on a 50-host cloud as
    under eventlet, where the databases are in memory behind one
    connection. A pool that grows as threads ask (never making one wait)
    keeps the same concurrency with connections reused. Under eventlet
    nothing is changed.
    """
    if NOVA_MAJOR < 32 and not force:
        return
    from oslo_db.sqlalchemy import engines
    from sqlalchemy import pool

    choose_arguments = engines._init_connection_args

    def init_connection_args(url, engine_args, kw):
        choose_arguments(url, engine_args, kw)
        if engine_args.get('poolclass') is pool.NullPool:
            engine_args.update(poolclass=pool.QueuePool, pool_size=8,
                               max_overflow=-1)
            engine_args['connect_args']['check_same_thread'] = False

    # create_engine looks it up at every call.
    engines._init_connection_args = init_connection_args


def rpc_executor_threads():
    """How many threads each RPC server of the cloud may run, or None.

    On native threads (Nova 32 and later) oslo.messaging gives every RPC
    server a futurist pool that starts a thread per message until it
    holds ``executor_thread_pool_size`` (64) and keeps them all, each
    waking every second. A cloud has several servers per compute: a
    50-host cloud ends up with thousands of threads fighting over the GIL
    and its boots slow down tenfold as the oracle goes on. A few threads
    per server are plenty for one test's traffic. Under eventlet the pool
    is green and costs nothing: left as it is.
    """
    return 8 if NOVA_MAJOR >= 32 else None


def versions():
    """The Nova and Placement versions this cloud runs, for its ready file."""
    return {name: importlib.metadata.version(dist) for name, dist in (
        ('nova', 'nova'), ('placement', 'openstack-placement'))}


def vtpm_traits():
    """The traits a libvirt compute with ``swtpm_enabled`` reports.

    Every release: both TPM versions. From Nova 30 (2024.2) also both
    models (traits os-traits 3.1 brought along). From Nova 33 (2026.1),
    whose scheduler asks a vTPM guest's host for its secret security
    policy (request_filter.tpm_secret_security_filter), the policies of
    ``[libvirt] supported_tpm_secret_security``: all three by default.
    Placement refuses a standard trait its os-traits lacks, so a release
    cannot be given another's.
    """
    import os_traits
    traits = ['COMPUTE_SECURITY_TPM_1_2', 'COMPUTE_SECURITY_TPM_2_0']
    if hasattr(os_traits, 'COMPUTE_SECURITY_TPM_TIS'):
        traits += ['COMPUTE_SECURITY_TPM_TIS', 'COMPUTE_SECURITY_TPM_CRB']
    from nova.scheduler import request_filter
    if hasattr(request_filter, 'tpm_secret_security_filter'):
        traits += ['COMPUTE_SECURITY_TPM_SECRET_SECURITY_' + policy
                   for policy in ('USER', 'HOST', 'DEPLOYMENT')]
    return traits
