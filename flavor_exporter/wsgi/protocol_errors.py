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
"""Requests waitress refuses before the application sees them, as JSON.

waitress answers what it cannot parse (a malformed request line, headers
over its limit, a body over its limit) itself, in text/plain. The API
answers every error in JSON; this channel makes waitress's own refusals
JSON too, in the v2 error shape since no route was read.
"""

import json

from waitress import channel
from waitress import task


class JsonErrorTask(task.ErrorTask):
    """waitress's error response with a JSON body."""

    def execute(self):
        error = self.request.error
        message = '%s: %s' % (error.reason, error.body) if error.body \
            else error.reason
        body = json.dumps({'error': {'code': error.code,
                                     'message': message}}).encode()
        self.status = '%d %s' % (error.code, error.reason)
        self.response_headers.append(('Content-Type', 'application/json'))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class JsonErrorChannel(channel.HTTPChannel):
    """waitress's HTTP channel, answering its own refusals in JSON."""

    error_task_class = JsonErrorTask
