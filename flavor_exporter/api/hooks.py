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
"""Pecan hooks: what holds for every page of this API."""

from oslo_log import log
from pecan import hooks
import webob.exc

from flavor_exporter.api import responses

LOG = log.getLogger(__name__)


class JsonErrorHook(hooks.PecanHook):
    """Every error of a page as JSON, in the shape of its route family.

    Pecan would otherwise answer exceptions with WebOb's HTML pages.
    What the queries raise (an unknown cloud, say) is answered as
    dispatch.py answers it for the documents.
    """

    def __init__(self, retry_after):
        self._retry_after = retry_after

    def on_error(self, state, exc):
        path = state.request.path_info
        known = responses.for_exception(exc, self._retry_after)
        if known is not None:
            return responses.error(path, *known)
        if isinstance(exc, webob.exc.HTTPException):
            if exc.code < 400:
                return None
            message = exc.detail or (
                'No such resource: %s' % path if exc.code == 404
                else exc.title)
            return responses.error(path, exc.code, message)
        LOG.error('Unexpected error answering %s %s: %s',
                  state.request.method, path, exc)
        LOG.debug('The unexpected error', exc_info=exc)
        return responses.error(path, 500, responses.INTERNAL_ERROR)
