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

"""oslo.service periodic tasks paced by configuration options.

The worker's managers are oslo.service ``PeriodicTasks``, as Nova's and
Cyborg's are, with two differences that this base class makes:

- Spacings from the configuration files. ``@periodic_task(spacing=N)``
  reads N when the module is imported, before the files are parsed (the
  worker's modules are imported by the console script, before its
  arguments are). A manager names in ``SPACINGS`` the option that paces
  each of its tasks; ``__init__`` gives the instance its own spacings
  from them. The decorator's spacing is ``SET_FROM_CONF``, a placeholder.
- Failures in one line. ``run_periodic_tasks`` survives a task that
  raises, but logs its traceback at ERROR, every time: a cloud that stays
  unreachable would fill the log. A task decorated with ``one_line``
  logs one ERROR line naming the cause (the traceback at DEBUG) and runs
  again at its next spacing, like any other.
"""

import functools

from oslo_log import log
from oslo_service import periodic_task

from flavor_exporter.common import failures

LOG = log.getLogger(__name__)

# The spacing the decorator records at import; Manager.__init__ replaces
# it. Positive: oslo.service skips a task whose spacing is negative and
# turns 0 into its own default.
SET_FROM_CONF = periodic_task.DEFAULT_INTERVAL


def one_line(what):
    """Decorate a task: its failure is one ERROR line, not the manager's.

    what: what the task does, for the line ("Answering projects").
    """
    def decorator(task):
        @functools.wraps(task)
        def run(self, context):
            try:
                task(self, context)
            except Exception as exc:
                LOG.debug('%s failed', what, exc_info=True)
                LOG.error('%s%s failed, trying again in %gs: %s',
                          self.log_prefix, what, self.spacing(task.__name__),
                          failures.explain(exc))
        return run
    return decorator


class Manager(periodic_task.PeriodicTasks):
    """Periodic tasks whose spacings are configuration options.

    SPACINGS: {task name: function of conf -> seconds between two runs},
    one for each periodic task of the class; a task without one refuses
    the instance (KeyError), so none runs at the placeholder's pace.
    log_prefix: the cloud's, for the lines the tasks log.
    """

    SPACINGS = {}

    def __init__(self, conf, log_prefix=''):
        super().__init__(conf)
        self.log_prefix = log_prefix
        # An attribute of the instance: the metaclass keeps the
        # decorator's spacings in one dict per class, which every
        # instance (every cloud's manager) would share.
        self._periodic_spacing = {
            name: self.SPACINGS[name](conf)
            for name, _task in self._periodic_tasks}

    def spacing(self, name):
        """Seconds between two runs of the task called name."""
        return self._periodic_spacing[name]

    @property
    def task_names(self):
        """The names of the periodic tasks, in the order they run."""
        return [name for name, _task in self._periodic_tasks]
