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
"""Every error the API answers: its status, its message, its JSON shape.

What goes wrong while a request is answered is raised as one of the
ApiError classes below, which carry their status; the dispatcher (and
every middleware that refuses a request) answers it with answer(). The
shape follows the route family: the predecessor's ``{"message": ...}``
under /gpus, ``{"error": {"code", "message"}}`` everywhere else.
"""

import http

import webob

from flavor_exporter.publication import contract as pub

JSON = 'application/json'
LEGACY_PREFIX = '/gpus'
#: The message of an error no layer expected; the log has the details.
INTERNAL_ERROR = 'Internal error; the API log has the details.'


class ApiError(Exception):
    """An answer that is not a success; str() is the client's message."""

    code = 500

    def __init__(self, message, headers=()):
        super().__init__(message)
        self.headers = list(headers)


class BadRequest(ApiError):
    """The request cannot be answered as asked (a bad query, say)."""

    code = 400


class Forbidden(ApiError):
    """Policy refuses the caller this route."""

    code = 403


class NotFound(ApiError):
    """What the path names does not exist, or not for this caller."""

    code = 404


class MethodNotAllowed(ApiError):
    code = 405

    def __init__(self, method, allowed):
        super().__init__('%s is not allowed here; %s is.'
                         % (method[:32], ' or '.join(allowed)),
                         [('Allow', ', '.join(allowed))])


class PayloadTooLarge(ApiError):
    code = 413


class UnsupportedMediaType(ApiError):
    code = 415


class TooManyRequests(ApiError):
    """The client asked for more than its share; Retry-After says when."""

    code = 429

    def __init__(self, message, retry_after):
        super().__init__(message, [('Retry-After', str(retry_after))])


class BadGateway(ApiError):
    """What the service reads from the cloud failed for this answer."""

    code = 502

    def __init__(self, message, retry_after):
        super().__init__(message, [('Retry-After', str(retry_after))])


class ServiceUnavailable(ApiError):
    """Nothing to answer with yet; Retry-After says when to ask again."""

    code = 503

    def __init__(self, message, retry_after):
        super().__init__(message, [('Retry-After', str(retry_after))])
        self.retry_after = retry_after


class NoData(ServiceUnavailable):
    """Nothing has been published yet: the cache is cold."""

    def __init__(self, retry_after):
        super().__init__(
            'No capacity data has been published yet; the worker '
            'publishes it after its first refresh. Retry in %d seconds.'
            % retry_after, retry_after)


class Unavailable(ServiceUnavailable):
    """The cache failed and this process holds no copy of the answer."""

    def __init__(self, reason, retry_after):
        super().__init__('The capacity data cannot be read (%s). Retry in '
                         '%d seconds.' % (reason, retry_after), retry_after)
        self.reason = reason


def is_legacy(path):
    return path == LEGACY_PREFIX or path.startswith(LEGACY_PREFIX + '/')


def body(path, code, message):
    """The JSON error in the shape of the route family of path, bytes."""
    if is_legacy(path):
        return pub.encode({'message': message})
    return pub.encode({'error': {'code': code, 'message': message}})


def status_line(code):
    try:
        return '%d %s' % (code, http.HTTPStatus(code).phrase)
    except ValueError:
        return '%d Error' % code


def response(path, code, message, headers=()):
    """A WebOb response of the JSON error in the shape of path's family."""
    data = body(path, code, message)
    return webob.Response(status=status_line(code), headerlist=[
        ('Content-Type', JSON), ('Content-Length', str(len(data))),
        *headers], app_iter=[data])


def answer(environ, start_response, code, message, headers=(),
           shape_of=None):
    """Answer the request with a JSON error (WSGI).

    shape_of: the path whose family's shape the error takes, by default
    the request's.
    """
    data = body(environ.get('PATH_INFO', '') if shape_of is None
                else shape_of, code, message)
    start_response(status_line(code), [
        ('Content-Type', JSON), ('Content-Length', str(len(data))),
        *headers])
    return [b'' if environ.get('REQUEST_METHOD') == 'HEAD' else data]


def answer_exception(environ, start_response, exc):
    """Answer an ApiError (WSGI)."""
    return answer(environ, start_response, exc.code, str(exc), exc.headers)
