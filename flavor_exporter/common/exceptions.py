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
"""Exceptions shared by the worker, the API and the commands.

They live apart from the modules that raise them so that those modules
need not import each other: common/clouds.py and common/config.py both
refuse options, and config.py reads the clouds.
"""


class InvalidOption(ValueError):
    """An option value the service cannot run with.

    The message names the option and says what is wrong with the value.
    """


class CacheError(Exception):
    """The cache could not be read or written.

    Raised by publication/cache.py (as cache.CacheError); here so that
    common/failures.py can name it without importing the publication.
    """
