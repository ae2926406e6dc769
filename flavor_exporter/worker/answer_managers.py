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

"""The managers that answer what API processes ask the leader.

One manager per family of requests, each run by a timer thread of its
own (see service.py), beside the refresh manager's: a quota API that
hangs holds the project answers, a slow set check the check answers,
never a refresh nor each other. Only the leader answers; whether this
worker leads is the refresh manager's to know (leads, a callable).
"""

from oslo_service import periodic_task

from flavor_exporter.worker import periodic


class ProjectManager(periodic.Manager):
    """Answers the projects asked about (a projects.ProjectAnswers)."""

    SPACINGS = {'answer_projects': lambda conf: conf.projects.poll_interval}

    def __init__(self, conf, cloud, projects, leads):
        super().__init__(conf, cloud.log_prefix)
        self.projects = projects
        self._leads = leads

    @periodic_task.periodic_task(spacing=periodic.SET_FROM_CONF,
                                 run_immediately=True)
    @periodic.one_line('Answering projects')
    def answer_projects(self, context):
        """Read the quotas of the projects asked about, when leading."""
        if self._leads():
            self.projects.answer()


class CheckManager(periodic.Manager):
    """Answers the set checks asked for (a checks.CheckAnswers)."""

    SPACINGS = {'answer_checks': lambda conf: conf.checks.poll_interval}

    def __init__(self, conf, cloud, checks, leads):
        super().__init__(conf, cloud.log_prefix)
        self.checks = checks
        self._leads = leads

    @periodic_task.periodic_task(spacing=periodic.SET_FROM_CONF,
                                 run_immediately=True)
    @periodic.one_line('Answering set checks')
    def answer_checks(self, context):
        """Answer the set checks asked for, when leading."""
        if self._leads():
            self.checks.answer()


class RequestManager(periodic.Manager):
    """Answers one other kind of request (a checks.RequestAnswers).

    What-ifs, and any kind after them, each in a manager (and a timer
    thread) of its own: a what-if that takes a second holds no set check.
    Paced as set checks are ([checks] poll_interval).
    """

    SPACINGS = {'answer_requests': lambda conf: conf.checks.poll_interval}

    def __init__(self, conf, cloud, answers, leads):
        super().__init__(conf, cloud.log_prefix)
        self.answers = answers
        self._leads = leads

    @periodic_task.periodic_task(spacing=periodic.SET_FROM_CONF,
                                 run_immediately=True)
    @periodic.one_line('Answering requests')
    def answer_requests(self, context):
        """Answer the requests asked for, when leading."""
        if self._leads():
            self.answers.answer()
